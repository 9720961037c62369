import { existsSync, readFileSync } from 'node:fs';
import { readGlobalConfig } from '@tonstream/liteserver';
import type { Logger } from '@tonstream/runtime';
import { LiteClient, LiteRoundRobinEngine, LiteSingleEngine } from 'ton-lite-client';

const WAIT_FOR_CONFIG_MS = 500;

/**
 * A ton-lite-client over every liteserver of the global config (round robin). The file may not exist
 * yet when the local network starts beside us: it is waited for.
 */
export async function connectLiteClient(globalConfigPath: string, logger: Logger): Promise<{ client: LiteClient; close(): void }> {
  let warned = false;
  while (!existsSync(globalConfigPath)) {
    if (!warned) logger.info('waiting for the global config', { path: globalConfigPath });
    warned = true;
    await new Promise((r) => setTimeout(r, WAIT_FOR_CONFIG_MS));
  }
  const servers = readGlobalConfig(readFileSync(globalConfigPath, 'utf8'));
  const engines = servers.map((s) => {
    const e = new LiteSingleEngine({ host: `tcp://${s.host}:${s.port}`, publicKey: s.publicKey });
    // Without a listener an 'error' event would throw; the engine reconnects by itself.
    e.on('error', () => logger.debug('liteserver connection error', { server: `${s.host}:${s.port}` }));
    return e;
  });
  const engine = new LiteRoundRobinEngine(engines);
  return { client: new LiteClient({ engine }), close: () => engine.close() };
}
