import { readFileSync } from 'node:fs';
import type { Store } from '../client.js';
import { StoreError } from '../errors.js';
import type { Migration } from '../migrations/migration.js';
import { str, uint } from '../sql.js';
import { withClusterMigrationLock } from './migration-lock.js';
import { clusterSchema } from './schema.js';

/** The single-node schema every migration makes (`npm run schema:snapshot`), the cluster schema's source. */
const SCHEMA_SQL = new URL('../../schema.sql', import.meta.url);

/**
 * Brings a cluster database to the newest schema. A new cluster index starts at the newest schema
 * at once (`clusterSchema` of schema.sql, every statement ON CLUSTER and idempotent), so the history
 * of single-node migrations (renames, rebuilds) is never replayed over replicated tables. A cluster
 * made at an older version gets the tables and views that are new since, and each newer migration's
 * `cluster` statements; a newer migration that changes existing tables and has none stops here.
 * One process at a time, under the cluster-wide lock (migration-lock.ts).
 */
export async function migrateCluster(store: Store, cluster: string, migrations: Migration[]): Promise<{ applied: number[]; current: number }> {
  const db = store.database;
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  await store.command(`CREATE DATABASE IF NOT EXISTS ${db} ON CLUSTER ${cluster}`);
  const before = await recordedVersion(store);
  if (before >= newest) return { applied: [], current: before };
  return withClusterMigrationLock(store, () => migrateLocked(store, cluster, migrations, newest));
}

async function migrateLocked(store: Store, cluster: string, migrations: Migration[], newest: number): Promise<{ applied: number[]; current: number }> {
  const db = store.database;
  // Another process may have migrated while this one waited for the lock.
  const current = await recordedVersion(store);
  if (current >= newest) return { applied: [], current };
  const pending = [...migrations].filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  if (current > 0) {
    const without = pending.filter((m) => !m.cluster && m.statements(db).some((s) => !/^\s*CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS/.test(s)));
    if (without.length > 0) {
      throw new StoreError(`migrations ${without.map((m) => m.version).join(', ')} change existing tables and have no cluster form (Migration.cluster); the cluster database ${db} stays at version ${current}`, undefined, false);
    }
  }
  const schema = clusterSchema(readFileSync(SCHEMA_SQL, 'utf8'), db, cluster);
  // Tables first, then the views over them; within each group the objects are independent, so their
  // statements go out DDL_AT_ONCE at a time (each host still runs its DDL queue in order).
  for (const group of [schema.filter((t) => t.kind !== 'view'), schema.filter((t) => t.kind === 'view')]) {
    await eachAtMost(DDL_AT_ONCE, group, async (table) => {
      for (const statement of table.statements) await onCluster(store, statement);
    });
  }
  if (current > 0) for (const m of pending) for (const statement of m.cluster?.(db, cluster) ?? []) await onCluster(store, statement);
  for (const m of pending) await store.command(`INSERT INTO ${db}.schema_migrations (version, name) VALUES (${uint(m.version)}, ${str(m.name)})`);
  return { applied: pending.map((m) => m.version), current: newest };
}

/**
 * ON CLUSTER statements in flight at once. One at a time, a statement's time is mostly waiting: the
 * task's way through ZooKeeper to every host and back, ~130 ms on a local cluster (about 200 of them
 * made a new database in 26 s).
 */
const DDL_AT_ONCE = 8;

/**
 * `run` for every item, at most `limit` at a time. After a failure no item is begun; the first
 * failure rejects once those in flight have ended.
 */
export async function eachAtMost<T>(limit: number, items: T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (!failed && next < items.length) {
      try {
        await run(items[next++]);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  });
  const first = (await Promise.allSettled(lanes)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (first) throw first.reason;
}

/** How long one ON CLUSTER statement may take, asked again, before migrating gives up. */
const DDL_DEADLINE_MS = 10 * 60_000;
/** ClickHouse's TIMEOUT_EXCEEDED: a host had not run the statement within distributed_ddl_task_timeout. */
const TIMEOUT_EXCEEDED = 159;

/**
 * Runs an idempotent ON CLUSTER statement until every host has run it. A host that is slow (or down
 * for a moment) makes ClickHouse answer TIMEOUT_EXCEEDED, or the request time out, while the
 * statement stays queued for that host: asking again waits for it, and changes nothing where it ran.
 */
async function onCluster(store: Store, statement: string): Promise<void> {
  const deadline = Date.now() + DDL_DEADLINE_MS;
  for (;;) {
    try {
      return await store.command(statement);
    } catch (err) {
      const slow = err instanceof StoreError && (err.clickhouseCode === TIMEOUT_EXCEEDED || (err.clickhouseCode === undefined && err.retriable));
      if (!slow || Date.now() > deadline) throw err;
    }
  }
}

async function recordedVersion(store: Store): Promise<number> {
  try {
    const [row] = await store.query<{ v: string }>(`SELECT max(version) AS v FROM ${store.database}.schema_migrations`);
    return Number(row?.v ?? 0);
  } catch (err) {
    // UNKNOWN_TABLE: a database the cluster schema was never applied to.
    if (err instanceof StoreError && err.clickhouseCode === 60) return 0;
    throw err;
  }
}
