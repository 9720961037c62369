import type { Server } from 'node:http';
import { ConfigError, createLogger, createRegistry, createShutdown } from '@tonstream/runtime';
import { createStore, migrate } from '@tonstream/store';
import { createApp } from './app.js';
import { createApiServer } from './http-server.js';
import { loadApiConfig } from './config.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadApiConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, bindings: { module: 'api' } });
  const shutdown = createShutdown(logger);
  const registry = createRegistry('api');
  const store = createStore({ url: config.clickhouseUrl, database: config.clickhouseDatabase });
  // The API can start before the writer: make sure the tables exist so queries answer, not fail.
  await migrate(store).catch((err: unknown) => logger.warn('schema check failed; serving anyway', { err }));
  const app = createApp({ store, registry, logger, testnet: config.testnet });
  const server: Server = await new Promise((resolve, reject) => {
    const s = createApiServer(app);
    s.once('error', reject);
    s.listen(config.port, config.host, () => resolve(s));
  });
  shutdown.add('store', () => store.close());
  shutdown.add('http server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  logger.info('api listening', { address: `http://${config.host}:${config.port}`, database: config.clickhouseDatabase });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
