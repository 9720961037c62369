/**
 * The one place in the tree that opens ton-lite-client connections: one LiteSingleEngine per
 * liteserver, pooled (see pool.ts). test/unit/one-lite-client.test.ts keeps it that way.
 */
import type { LiteServerAddress } from '@tonstream/liteserver-emulator';
import { LiteSingleEngine } from 'ton-lite-client';
import { createLitePool, type LitePool, type LitePoolOptions, type PoolServer } from './pool.js';

/** How long `connectLitePool` waits for a first connection before returning anyway. */
export const READY_TIMEOUT_MS = 5_000;

export type ConnectOptions = Omit<LitePoolOptions, 'servers'> & {
  /** Told when a connection fails (ton-lite-client then reconnects by itself after 30 s). */
  onConnectionError?: (server: string) => void;
  /** Resolve once one server is connected, or after this long; 0 returns at once (queries wait for the connection). @default READY_TIMEOUT_MS */
  readyTimeoutMs?: number;
};

/** A pool over `addresses`, each named `host:port`. */
export async function connectLitePool(addresses: readonly LiteServerAddress[], options: ConnectOptions = {}): Promise<LitePool> {
  const { readyTimeoutMs = READY_TIMEOUT_MS, onConnectionError, ...poolOptions } = options;
  const engines = addresses.map((a) => {
    const name = `${a.host}:${a.port}`;
    const engine = new LiteSingleEngine({ host: `tcp://${a.host}:${a.port}`, publicKey: a.publicKey });
    // Without a listener an 'error' event would throw; the engine reconnects on its own.
    engine.on('error', () => onConnectionError?.(name));
    return { name, engine };
  });
  const pool = createLitePool({ ...poolOptions, servers: engines satisfies PoolServer[] });
  if (readyTimeoutMs > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, readyTimeoutMs);
      for (const { engine } of engines) {
        engine.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      }
    });
  }
  return pool;
}
