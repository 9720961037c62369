import { readFileSync } from 'node:fs';
import type { Store } from '../client.js';
import { StoreError } from '../errors.js';
import type { Migration } from '../migrations/migration.js';
import { str, uint } from '../sql.js';
import { clusterSchema } from './schema.js';

/** The single-node schema every migration makes (`npm run schema:snapshot`), the cluster schema's source. */
const SCHEMA_SQL = new URL('../../schema.sql', import.meta.url);

/**
 * Brings a cluster database to the newest schema. A new cluster index starts at the newest schema
 * at once (`clusterSchema` of schema.sql, every statement ON CLUSTER and idempotent), so the history
 * of single-node migrations (renames, rebuilds) is never replayed over replicated tables. A cluster
 * made at an older version gets the tables and views that are new since, and each newer migration's
 * `cluster` statements; a newer migration that changes existing tables and has none stops here.
 */
export async function migrateCluster(store: Store, cluster: string, migrations: Migration[]): Promise<{ applied: number[]; current: number }> {
  const db = store.database;
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  await store.command(`CREATE DATABASE IF NOT EXISTS ${db} ON CLUSTER ${cluster}`);
  const current = await recordedVersion(store);
  if (current >= newest) return { applied: [], current };
  const pending = [...migrations].filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  if (current > 0) {
    const without = pending.filter((m) => !m.cluster && m.statements(db).some((s) => !/^\s*CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS/.test(s)));
    if (without.length > 0) {
      throw new StoreError(`migrations ${without.map((m) => m.version).join(', ')} change existing tables and have no cluster form (Migration.cluster); the cluster database ${db} stays at version ${current}`, undefined, false);
    }
  }
  for (const table of clusterSchema(readFileSync(SCHEMA_SQL, 'utf8'), db, cluster)) {
    for (const statement of table.statements) await store.command(statement);
  }
  if (current > 0) for (const m of pending) for (const statement of m.cluster?.(db, cluster) ?? []) await store.command(statement);
  for (const m of pending) await store.command(`INSERT INTO ${db}.schema_migrations (version, name) VALUES (${uint(m.version)}, ${str(m.name)})`);
  return { applied: pending.map((m) => m.version), current: newest };
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
