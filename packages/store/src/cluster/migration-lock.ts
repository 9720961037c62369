/**
 * The migration lock of a cluster database, held in ZooKeeper through ClickHouse (18.16 has no other
 * way to write there): a replicated table that only one process can create, because its one replica,
 * `holder`, can be registered at its ZooKeeper path once, whichever node the CREATE runs on. Each
 * acquisition takes the next generation's path (`g<N+1>`). A holder beats by inserting a row (each insert
 * leaves a block node with its time in ZooKeeper) and releases by detaching the table: its replica stays
 * registered, only its `is_active` node goes. Dropping it would not do: 18.16 drops the last replica's
 * whole path in two steps, and a replica another process registered between them was removed with it
 * (two holders at once, seen in store-cluster.test.ts); kept paths also mean a generation is never
 * taken twice. A lock whose holder stopped beating is passed over the same way. A detached lock table is
 * attached again when its server restarts: its old beats make it stale, and nobody waits on it.
 */
import type { Store } from '../client.js';
import { StoreError } from '../errors.js';
import { holdingLock } from '../migration-lock.js';
import { str } from '../sql.js';

const LOCK_WAIT_MS = 30 * 60_000;
const LOCK_POLL_MS = 500;
/** A lock with no beat (holdingLock beats every 5 s) or creation for this long was left by a process that died. */
const STALE_S = 60;
/** How long a new holder may take to become active (its `is_active` node), in seconds. */
const ACTIVATION_S = 5;
/** TABLE_ALREADY_EXISTS (this node), REPLICA_IS_ALREADY_EXIST (another node holds this generation). */
const TAKEN = new Set([57, 253]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function withClusterMigrationLock<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const db = store.database;
  const root = `/clickhouse/tonstream/${db}/migration_lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  let table: string | undefined;
  while (!table) {
    const generation = await latestGeneration(store, root);
    if (generation === 0 || !(await isHeld(store, `${root}/g${generation}`))) {
      const candidate = `${db}.schema_migrations_lock_g${generation + 1}`;
      try {
        await store.command(`CREATE TABLE ${candidate} (beat DateTime) ENGINE = ReplicatedMergeTree('${root}/g${generation + 1}', 'holder') ORDER BY beat`);
        table = candidate;
        break;
      } catch (err) {
        if (!(err instanceof StoreError && err.clickhouseCode !== undefined && TAKEN.has(err.clickhouseCode))) throw err;
      }
    }
    if (Date.now() > deadline) throw new Error(`migrations: the cluster migration lock ${root} is still held after ${LOCK_WAIT_MS / 60_000} min`);
    await sleep(LOCK_POLL_MS);
  }
  return holdingLock(store, table, fn, `DETACH TABLE ${table}`);
}

/** The highest generation under `root` (0: none yet). */
async function latestGeneration(store: Store, root: string): Promise<number> {
  const names = await children(store, root);
  return Math.max(0, ...names.map((n) => Number(/^g(\d+)$/.exec(n)?.[1] ?? 0)));
}

/**
 * True while the generation's holder is active (not released) and beat (or was created) within STALE_S.
 * A replica gets its `is_active` node from a background thread a moment after its CREATE: one younger
 * than ACTIVATION_S counts as held without it (taking it as released let two holders in, ci46).
 */
async function isHeld(store: Store, path: string): Promise<boolean> {
  const [holder] = await nodes(store, `${path}/replicas`, `name = 'holder'`);
  if (!holder) return false;
  const active = (await nodes(store, `${path}/replicas/holder`, `name = 'is_active'`)).length > 0;
  if (!active && holder.age >= ACTIVATION_S) return false;
  const beats = await nodes(store, `${path}/blocks`);
  return Math.min(holder.age, ...beats.map((b) => b.age)) < STALE_S;
}

async function children(store: Store, path: string): Promise<string[]> {
  return (await nodes(store, path)).map((n) => n.name);
}

/** The children of a ZooKeeper path with their age in seconds ([] when the path does not exist). */
async function nodes(store: Store, path: string, where = '1'): Promise<{ name: string; age: number }[]> {
  try {
    const rows = await store.query<{ name: string; age: string }>(`SELECT name, now() - ctime AS age FROM system.zookeeper WHERE path = ${str(path)} AND ${where}`);
    return rows.map((r) => ({ name: r.name, age: Number(r.age) }));
  } catch (err) {
    // KEEPER_EXCEPTION "No node": nothing there yet.
    if (err instanceof StoreError && err.clickhouseCode === 999 && /No node/i.test(err.message)) return [];
    throw err;
  }
}
