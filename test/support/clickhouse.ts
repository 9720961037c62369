import { createStore } from '@tonstream/store';

/** A drop waits for every running query on the database's tables; on two loaded cores that took over the store's 30 s. */
const DROP_TIMEOUT_MS = 180_000;

/**
 * Drops a suite's database at its end. A query a suite's client gave up on can still run on the server
 * (18.16 does not stop a query when its connection closes) and holds DROP TABLE until it ends, so the
 * queries naming the database are killed first. Database names are per run: nothing else is touched.
 */
export async function dropDatabase(url: string, database: string): Promise<void> {
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`not a database name: ${database}`);
  const admin = createStore({ url, database: 'default', requestTimeoutMs: DROP_TIMEOUT_MS });
  try {
    await admin.command(`KILL QUERY WHERE query LIKE '%${database}%' AND query NOT LIKE 'KILL QUERY%' ASYNC`);
    await admin.command(`DROP DATABASE IF EXISTS ${database}`);
  } finally {
    await admin.close();
  }
}
