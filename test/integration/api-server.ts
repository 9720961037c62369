import type { AddressInfo } from 'node:net';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, type Store } from '@tonstream/store';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http-server.js';

export type ApiUnderTest = { store: Store; base: string; stop(): Promise<void> };

/**
 * The API app in this process on port 0, over `database` (created and migrated) of the real
 * ClickHouse; `stop()` closes the server and drops the database.
 */
export async function startApi(clickhouseUrl: string, database: string): Promise<ApiUnderTest> {
  const store = createStore({ url: clickhouseUrl, database });
  await migrate(store);
  const app = createApp({ store, registry: createRegistry('api'), logger: createLogger({ level: 'error' }) });
  const server = createApiServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    store,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
      await store.command(`DROP DATABASE IF EXISTS ${database}`);
      await store.close();
    },
  };
}
