import type { Store } from './client.js';
import { StoreError } from './errors.js';
import { str } from './sql.js';

/** How long `withMigrationLock` waits for another process's migrations. */
const LOCK_WAIT_MS = 30 * 60_000;
const LOCK_POLL_MS = 200;
/** The holder writes a beat this often while it migrates... */
const BEAT_MS = 5_000;
/** ...so a lock without a beat (or creation) for this long was left by a process that died. */
const STALE_S = 60;
/** ClickHouse's TABLE_ALREADY_EXISTS. */
const TABLE_ALREADY_EXISTS = 57;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` while holding the database's migration lock: the table `schema_migrations_lock`, which
 * only one CREATE can make (18.16 has no other lock). Migrations that rebuild a table (migration 6)
 * are not safe to interleave, and every service migrates at start, so several processes (npm start)
 * apply them at once. The holder beats every BEAT_MS; a lock with no beat for STALE_S is dropped.
 */
export async function withMigrationLock<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const lock = `${store.database}.schema_migrations_lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await store.command(`CREATE TABLE ${lock} (beat DateTime) ENGINE = Memory`);
      break;
    } catch (err) {
      if (!(err instanceof StoreError && err.clickhouseCode === TABLE_ALREADY_EXISTS)) throw err;
    }
    if (await isStale(store)) await store.command(`DROP TABLE IF EXISTS ${lock}`);
    if (Date.now() > deadline) throw new Error(`migrations: ${lock} is still held after ${LOCK_WAIT_MS / 60_000} min (drop it if no process is migrating)`);
    await sleep(LOCK_POLL_MS);
  }
  return holdingLock(store, lock, fn);
}

/** Runs `fn` while the lock table `lock` (just created by this process) gets a beat every BEAT_MS; then `release` (a drop) lets it go. */
export async function holdingLock<T>(store: Store, lock: string, fn: () => Promise<T>, release = `DROP TABLE IF EXISTS ${lock}`): Promise<T> {
  const beat = () => store.command(`INSERT INTO ${lock} VALUES (now())`).catch(() => undefined);
  const timer = setInterval(beat, BEAT_MS);
  try {
    await beat();
    return await fn();
  } finally {
    clearInterval(timer);
    await store.command(release);
  }
}

/** Seconds since the lock's last beat, or since it was made (a Memory table's beats do not survive a restart). */
async function isStale(store: Store): Promise<boolean> {
  const db = store.database;
  try {
    const [row] = await store.query<{ age: string }>(
      `SELECT now() - greatest((SELECT max(beat) FROM ${db}.schema_migrations_lock), (SELECT any(metadata_modification_time) FROM system.tables WHERE database = ${str(db)} AND name = 'schema_migrations_lock')) AS age`,
    );
    return Number(row?.age ?? 0) > STALE_S;
  } catch (err) {
    // Released between the CREATE and this look: not stale, try again.
    if (!(err instanceof StoreError)) throw err;
    return false;
  }
}
