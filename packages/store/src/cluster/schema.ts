/**
 * The store's schema on a ClickHouse cluster, made from the single-node schema (`schema.sql`, what
 * every migration makes, printed by 18.16). Each table `t` becomes:
 *
 * - sharded (history, lookups): `t_local`, a ReplicatedReplacingMergeTree on every node (its replicas
 *   share `/clickhouse/tables/tonstream/<db>/{shard}/t`), and `t`, a Distributed table over the shards,
 *   sharded by a hash of the table's leading key: a replayed row lands on the shard that already holds
 *   it, so ReplacingMergeTree still collapses it. Queries and inserts keep naming `t`.
 * - replicated whole to every node (the control tables: receipts, watermarks, migrations): read on
 *   the node where they were written, as a single node's.
 *
 * Materialized views live on the local tables (`FROM s_local` `TO t_local`): a row feeds its lookup
 * rows on the shard it landed on, so a lookup row is on the same shard at every replay too.
 */
import { ident } from '../sql.js';

/** Small tables every node holds whole: written and read where the writer and the API run. */
export const CONTROL_TABLES: ReadonlySet<string> = new Set(['schema_migrations', 'index_receipts', 'index_watermark', 'trace_receipts', 'trace_watermark', 'hot_tier_breaks', 'index_floor', 'history_ranges', 'bootstrap_progress']);

/** Sharding expressions other than the leading key (blocks: the workchain alone would make two shards at most). */
const SHARDING: Readonly<Record<string, string>> = { blocks: 'workchain, shard, seqno' };

export type ClusterTable = { name: string; kind: 'sharded' | 'control' | 'view'; statements: string[] };

const TABLE = /^CREATE TABLE \{database\}\.(\w+) \(([\s\S]*)\) ENGINE = ReplacingMergeTree(?:\((\w+)\))? ([\s\S]*)$/;
const VIEW = /^CREATE MATERIALIZED VIEW \{database\}\.(\w+) TO \{database\}\.(\w+) \([\s\S]*?\) AS (SELECT [\s\S]*)$/;

/** The statements of `schema.sql` (`;` ends each, `--` lines are comments). */
export function snapshotStatements(schemaSql: string): string[] {
  return schemaSql
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .split(/;\n/)
    .map((s) => s.replace(/;\s*$/, '').trim())
    .filter((s) => s.length > 0);
}

/** The first element of an ORDER BY clause (`(a, b)` -> `a`, `a` -> `a`), null for `tuple()`. */
export function leadingKey(rest: string): string | null {
  const m = /ORDER BY (\((.*?)\)|tuple\(\)|\w+)/.exec(rest);
  if (!m) throw new Error(`no ORDER BY in "${rest}"`);
  if (m[1] === 'tuple()') return null;
  return (m[2] ?? m[1]).split(',')[0].trim();
}

/**
 * The cluster DDL of every table and view of `schemaSql`, in an order that can be applied (local
 * tables before the Distributed tables over them, every table before the views that read or fill it).
 * Every statement is `IF NOT EXISTS` and `ON CLUSTER`: applying them again changes nothing.
 */
export function clusterSchema(schemaSql: string, database: string, cluster: string): ClusterTable[] {
  const db = ident(database);
  const on = `ON CLUSTER ${ident(cluster)}`;
  const tables: ClusterTable[] = [];
  const views: ClusterTable[] = [];
  const sharded = new Set<string>();
  for (const statement of snapshotStatements(schemaSql)) {
    const table = TABLE.exec(statement);
    if (table) {
      const [, name, columns, version, rest] = table;
      const versionArg = version ? `, ${version}` : '';
      if (CONTROL_TABLES.has(name)) {
        const engine = `ReplicatedReplacingMergeTree('/clickhouse/tables/tonstream/${db}/all/${name}', '{replica}'${versionArg})`;
        tables.push({ name, kind: 'control', statements: [`CREATE TABLE IF NOT EXISTS ${db}.${name} ${on} (${columns}) ENGINE = ${engine} ${rest}`] });
        continue;
      }
      const key = SHARDING[name] ?? leadingKey(rest);
      if (key === null) throw new Error(`table ${name} has no key to shard by: name it a control table or give it a sharding expression`);
      const engine = `ReplicatedReplacingMergeTree('/clickhouse/tables/tonstream/${db}/{shard}/${name}', '{replica}'${versionArg})`;
      sharded.add(name);
      tables.push({
        name,
        kind: 'sharded',
        statements: [
          `CREATE TABLE IF NOT EXISTS ${db}.${name}_local ${on} (${columns}) ENGINE = ${engine} ${rest}`,
          `CREATE TABLE IF NOT EXISTS ${db}.${name} ${on} AS ${db}.${name}_local ENGINE = Distributed(${ident(cluster)}, ${db}, ${name}_local, cityHash64(${key}))`,
        ],
      });
      continue;
    }
    const view = VIEW.exec(statement);
    if (view) {
      const [, name, target, select] = view;
      views.push({ name, kind: 'view', statements: [`CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${name} ${on} TO ${db}.${target}_local AS ${select.replaceAll('{database}.', `${db}.`)}`] });
      continue;
    }
    throw new Error(`schema.sql: a statement the cluster schema does not know how to make: ${statement.slice(0, 120)}`);
  }
  // A view reads and fills the shard's local tables.
  for (const v of views) {
    v.statements = v.statements.map((s) => s.replace(/\bFROM (\w+)\.(\w+)/g, (whole, d: string, t: string) => (d === db && sharded.has(t) ? `FROM ${d}.${t}_local` : whole)));
    const target = /TO \w+\.(\w+)_local/.exec(v.statements[0])![1];
    if (!sharded.has(target)) throw new Error(`view ${v.name} fills ${target}, which is not a sharded table`);
  }
  return [...tables, ...views];
}
