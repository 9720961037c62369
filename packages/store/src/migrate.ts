import type { Store } from './client.js';
import { migrateCluster } from './cluster/migrate.js';
import { withMigrationLock } from './migration-lock.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { StoreError } from './errors.js';
import { str, uint } from './sql.js';

export type MigrateResult = { applied: number[]; current: number };

/**
 * Brings the database to the newest schema version: creates the database and the
 * `schema_migrations` ledger, then applies every migration newer than the recorded version, in
 * order. Safe to run from several processes at once: every statement is idempotent, and pending
 * migrations are applied under the database's migration lock (one process at a time). A store on a
 * cluster (`StoreOptions.cluster`) gets the cluster schema instead (cluster/migrate.ts).
 */
export async function migrate(store: Store, migrations: Migration[] = MIGRATIONS): Promise<MigrateResult> {
  if (store.cluster) return migrateCluster(store, store.cluster, migrations);
  const db = store.database;
  await store.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
  await store.command(
    `CREATE TABLE IF NOT EXISTS ${db}.schema_migrations (version UInt32, name String, applied_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY version`,
  );
  const version = async () => Number((await store.query<{ v: string }>(`SELECT max(version) AS v FROM ${db}.schema_migrations`))[0]?.v ?? 0);
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  let current = await version();
  if (!sorted.some((m) => m.version > current)) return { applied: [], current };
  return withMigrationLock(store, async () => {
    // Another process may have applied them while this one waited for the lock.
    current = await version();
    const applied: number[] = [];
    for (const m of sorted) {
      if (m.version <= current) continue;
      for (const statement of m.statements(db)) await apply(store, statement);
      await store.command(`INSERT INTO ${db}.schema_migrations (version, name) VALUES (${uint(m.version)}, ${str(m.name)})`);
      applied.push(m.version);
      current = m.version;
    }
    return { applied, current };
  });
}

/** ClickHouse's errors for a column that is already there: 18.16's ILLEGAL_COLUMN, later DUPLICATE_COLUMN. */
const COLUMN_EXISTS = new Set([44, 15]);
/** ClickHouse's errors for a column that is not there: 18.16's ILLEGAL_COLUMN, later NOT_FOUND_COLUMN_IN_BLOCK. */
const COLUMN_MISSING = new Set([44, 10]);

/**
 * 18.16 has no `ADD COLUMN IF NOT EXISTS` nor `DROP COLUMN IF EXISTS`: a re-run finding the column
 * there (added) or gone (dropped) finds this statement applied.
 */
async function apply(store: Store, statement: string): Promise<void> {
  try {
    await store.command(statement);
  } catch (err) {
    const code = err instanceof StoreError ? err.clickhouseCode : undefined;
    if (code !== undefined && COLUMN_EXISTS.has(code) && /\bADD COLUMN\b/.test(statement)) return;
    if (code !== undefined && COLUMN_MISSING.has(code) && /\bDROP COLUMN\b/.test(statement)) return;
    throw err;
  }
}
