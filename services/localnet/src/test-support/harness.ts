/**
 * Tests: a chain served by a real liteserver on an ephemeral 127.0.0.1 port, and the unmodified
 * ton-lite-client connected through the global config file, as a user would connect.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import { createLiteServer, ed25519KeyPairFromSeed, type LiteServer, readGlobalConfig, writeGlobalConfig } from '@tonstream/liteserver-emulator';
import type { Chain } from '@tonstream/localnet';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { createLiteHandlers } from '../lite-handlers.js';

/** A fixed server key, so a restarted server matches the same global config. */
export const TEST_KEY_SEED = Buffer.alloc(32, 7);

export type Served = { server: LiteServer; configPath: string; close(): Promise<void> };

export async function serve(chain: Chain, dir: string): Promise<Served> {
  const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const server = await createLiteServer({
    port: 0,
    keyPair: ed25519KeyPairFromSeed(TEST_KEY_SEED),
    handlers: createLiteHandlers(chain),
    getMasterchainSeqno: () => chain.head().seqno,
    logger: silent,
  });
  const configPath = join(dir, 'global.config.json');
  writeGlobalConfig(configPath, [{ host: server.address, port: server.port, publicKey: server.publicKey }]);
  return { server, configPath, close: () => server.close() };
}

export type Connected = { client: LiteClient; engine: LiteSingleEngine };

/** What a ton-lite-client user does with the global config path. */
export async function connect(configPath: string): Promise<Connected> {
  const [ls] = readGlobalConfig(configPath);
  const engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  await once(engine, 'connect');
  return { engine, client: new LiteClient({ engine }) };
}
