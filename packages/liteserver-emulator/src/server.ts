import { createServer, type Socket } from 'node:net';
import { serveConnection } from './connection.js';
import { createDispatch, type LiteServerHandlers } from './dispatch.js';
import { generateEd25519KeyPair, serverKeys, type Ed25519KeyPair } from './keys.js';
import { stderrLogger, type LiteServerLogger } from './logger.js';

export type LiteServerOptions = {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Server identity (`generateKeyPairSync('ed25519')`); generated when absent. */
  keyPair?: Ed25519KeyPair;
  /** Implementations by TL function name; a method without one answers liteServer.error. */
  handlers: LiteServerHandlers;
  /** Masterchain seqno for waitMasterchainSeqno prefixes. @default last.seqno of the getMasterchainInfo handler */
  getMasterchainSeqno?: () => number | Promise<number>;
  /** @default warnings and errors as JSON on stderr */
  logger?: LiteServerLogger;
};

export type LiteServer = {
  /** The address listened on, e.g. '127.0.0.1'. */
  address: string;
  port: number;
  /** Raw 32-byte ed25519 public key clients need (global config `id.key`). */
  publicKey: Buffer;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
};

export async function createLiteServer(options: LiteServerOptions): Promise<LiteServer> {
  const keys = serverKeys(options.keyPair ?? generateEd25519KeyPair());
  const logger = options.logger ?? stderrLogger();
  const closing = new AbortController();
  const dispatch = createDispatch({
    handlers: options.handlers,
    getMasterchainSeqno: options.getMasterchainSeqno,
    logger,
    signal: closing.signal,
  });
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, { keys, dispatch, logger });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (e) => logger.error('liteserver listener error', { error: e.message }));
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error(`liteserver: unexpected listen address ${String(bound)}`);
  logger.info('liteserver listening', { address: bound.address, port: bound.port, public_key: keys.publicKey.toString('base64') });

  let closed: Promise<void> | undefined;
  return {
    address: bound.address,
    port: bound.port,
    publicKey: Buffer.from(keys.publicKey),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
