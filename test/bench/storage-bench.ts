/**
 * `npm run --silent bench:storage`: bytes on disk per transaction, per table and in total, of merged
 * tables, for the schema at BASELINE_VERSION (before issue 26) and the newest one, in the same run.
 * Prints one JSON line.
 *
 * Data, written to both databases alike through the writer's own `writeBatch`:
 * - BENCH_STORAGE_TXS transactions (default 1,000,000) of api-bench-chain.ts: real mainnet transactions,
 *   messages and bodies of test/fixtures/mainnet/blocks and real account states, with ids, lts and
 *   addresses rewritten, one state per touched account per block (bench:api's chain, scaled);
 * - traces and actions over them (api-bench-traces.ts: real classified mainnet actions);
 * - the local chain's own blocks (test/integration/chdb-localnet-data.ts: Jetton and NFT traffic on
 *   @tonstream/localnet, decoded, with its states, traces and actions).
 * Then every table is merged (`OPTIMIZE TABLE … FINAL`, until one part per partition) as background
 * merges leave a table at rest, and its active parts are read from system.parts. Both databases are
 * dropped at the end unless BENCH_KEEP=1; a run always writes them anew.
 */
import { loadavg } from 'node:os';
import { createStore, MIGRATIONS, migrate, type Migration, type RecordBatch, recordBatch, str, type Store, StoreError, writeBatch } from '@tonstream/store';
import { retryWhileRetriable } from '@tonstream/writer-service';
import { eventually } from '../support/processes.js';
import { localnetData } from '../integration/chdb-localnet-data.js';
import { type ChainOptions, generateChain, loadTemplates } from './api-bench-chain.js';
import { CHAIN } from './api-bench-data.js';
import { ensureTraces } from './api-bench-traces.js';
import { writeSchema17Batch } from '../support/schema17-writer.js';
import { type SchemaStorage, storageRatio, storageReport, type TableParts } from './storage-report.js';

/**
 * The schema this issue starts from (issue 26): the `before` database stops at this migration, so that
 * once migrations after it land the bench still measures the old schema beside the new one.
 */
const BASELINE_VERSION = 17;

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const DATABASE = process.env.BENCH_STORAGE_DATABASE || 'tonstream_bench_storage';
const TRANSACTIONS = Number(process.env.BENCH_STORAGE_TXS ?? 1_000_000);
const KEEP = process.env.BENCH_KEEP === '1';
/** Rounds of localnet token traffic (about 30 transactions each). */
const LOCALNET_ROUNDS = 12;
const MC_TXS = 3;

const log = (line: string) => process.stderr.write(`bench:storage: ${line}\n`);
const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

type Side = {
  name: 'before' | 'after';
  migrations: Migration[];
  /** The writer's batch write for this schema: schema 17's for `before`, the writer's own for `after`. */
  write: (store: Store, batch: RecordBatch) => Promise<unknown>;
  store: Store;
  writeSeconds: number;
};

/** bench:api's chain scaled to `transactions` (200 per masterchain block, one account per ten). */
function chainOf(transactions: number): ChainOptions {
  const mcBlocks = Math.max(1, Math.ceil(transactions / (CHAIN.shardTxPerMc + MC_TXS)));
  return { ...CHAIN, mcBlocks, accounts: Math.max(1_000, Math.round((CHAIN.accounts * mcBlocks) / CHAIN.mcBlocks)) };
}

async function openSide(name: Side['name'], migrations: Migration[]): Promise<Side> {
  const database = `${DATABASE}_${name}`;
  // Merges of a million-row table take minutes on a loaded machine.
  const store = createStore({ url: CLICKHOUSE_URL, database, requestTimeoutMs: 3_600_000 });
  await store.command(`DROP DATABASE IF EXISTS ${database}`);
  const { current } = await migrate(store, migrations);
  log(`${database}: schema version ${current}`);
  return { name, migrations, write: name === 'before' ? writeSchema17Batch : writeBatch, store, writeSeconds: 0 };
}

async function writeBoth(sides: Side[], batch: RecordBatch): Promise<void> {
  for (const side of sides) {
    const started = performance.now();
    // As the writer: a retriable failure (a dropped connection, a busy server) is retried; a batch lands each fact once.
    await retryWhileRetriable(() => side.write(side.store, batch), {
      isRetriable: (err) => err instanceof StoreError && err.retriable,
      onRetry: (err, attempt) => log(`${side.store.database}: write failed (${(err as Error).message}), attempt ${attempt + 1}`),
    });
    side.writeSeconds += (performance.now() - started) / 1000;
  }
}

/** Tables of the database that hold rows on disk (views without storage are left out). */
async function storedTables(store: Store): Promise<string[]> {
  const rows = await store.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${str(store.database)} AND engine LIKE '%MergeTree' ORDER BY name`);
  return rows.map((r) => r.name);
}

/** A table name as system.tables gives it (`.inner.` ones included), quoted for SQL. */
function quotedTable(name: string): string {
  if (!/^[.A-Za-z0-9_]+$/.test(name)) throw new Error(`unexpected table name ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

async function partsOf(store: Store): Promise<TableParts[]> {
  const rows = await store.query<Record<keyof TableParts, string>>(
    `SELECT table, sum(bytes_on_disk) AS bytes_on_disk, sum(data_compressed_bytes) AS data_compressed_bytes, sum(data_uncompressed_bytes) AS data_uncompressed_bytes, sum(rows) AS rows, count() AS parts FROM system.parts WHERE database = ${str(store.database)} AND active GROUP BY table`,
  );
  return rows.map((r) => ({ table: r.table, bytes_on_disk: Number(r.bytes_on_disk), data_compressed_bytes: Number(r.data_compressed_bytes), data_uncompressed_bytes: Number(r.data_uncompressed_bytes), rows: Number(r.rows), parts: Number(r.parts) }));
}

/**
 * Merges every table to one part per partition. OPTIMIZE does nothing while a background merge holds
 * some of the parts, so it is repeated once that merge is over, until the parts are one per partition.
 */
async function mergeAll(store: Store, tables: string[]): Promise<void> {
  const db = store.database;
  for (const table of tables) {
    const most = async () => Number((await store.query<{ n: string }>(`SELECT max(c) AS n FROM (SELECT count() AS c FROM system.parts WHERE database = ${str(db)} AND table = ${str(table)} AND active GROUP BY partition_id)`))[0]?.n ?? 0);
    const merging = async () => Number((await store.query<{ n: string }>(`SELECT count() AS n FROM system.merges WHERE database = ${str(db)} AND table = ${str(table)}`))[0]?.n ?? 0);
    if ((await most()) === 0) continue;
    await store.command(`OPTIMIZE TABLE ${db}.${quotedTable(table)} FINAL`);
    await eventually(`${db}.${table} merged to one part per partition`, async () => {
      if ((await most()) <= 1) return true;
      if ((await merging()) === 0) await store.command(`OPTIMIZE TABLE ${db}.${quotedTable(table)} FINAL`);
      return undefined;
    }, 3_600_000, 500);
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(TRANSACTIONS) || TRANSACTIONS < MC_TXS) throw new Error(`BENCH_STORAGE_TXS must be an integer of at least ${MC_TXS}, not ${process.env.BENCH_STORAGE_TXS}`);
  const baseline = MIGRATIONS.filter((m) => m.version <= BASELINE_VERSION);
  const sides = [await openSide('before', baseline), await openSide('after', MIGRATIONS)];

  let transactions = 0;
  let messages = 0;
  const accounts = new Set<string>();
  const count = (batch: RecordBatch) => {
    transactions += batch.transactions.length;
    messages += batch.messages.length;
    for (const s of batch.accountStates) accounts.add(s.record.account);
  };

  const started = performance.now();
  const chain = chainOf(TRANSACTIONS);
  for (const batch of generateChain(loadTemplates(), chain)) {
    count(batch);
    await writeBoth(sides, batch);
    if (transactions % 50_000 < batch.transactions.length) log(`${transactions} transactions written to both, ${seconds(started)} s`);
  }
  // Traces are made from the stored transactions of each database (the same rows, the same seed: the same traces).
  for (const side of sides) {
    const t = performance.now();
    const traces = await ensureTraces(side.store, { first: chain.firstMcSeqno, last: chain.firstMcSeqno + chain.mcBlocks - 1 }, log, side.write);
    side.writeSeconds += (performance.now() - t) / 1000;
    log(`${side.store.database}: ${traces.traces} traces, ${traces.actions} actions`);
  }
  const local = await localnetData('tonstream-bench-storage', LOCALNET_ROUNDS);
  for (const batch of [...local.batches, recordBatch({ traces: local.traces, actions: local.actions })]) {
    count(batch);
    await writeBoth(sides, batch);
  }
  log(`written: ${transactions} transactions, ${messages} message rows, ${accounts.size} accounts in ${seconds(started)} s`);

  const report: Record<string, SchemaStorage & { schema_version: number; write_seconds: number; merge_seconds: number }> = {};
  for (const side of sides) {
    const tables = await storedTables(side.store);
    const t = performance.now();
    await mergeAll(side.store, tables);
    const mergeSeconds = seconds(t);
    const storage = storageReport(tables, await partsOf(side.store), transactions);
    const stored = storage.tables.transactions?.rows;
    if (stored !== undefined && stored !== transactions) throw new Error(`${side.store.database}: ${stored} rows in transactions after merging, ${transactions} written`);
    log(`${side.store.database}: merged in ${mergeSeconds} s, ${storage.bytes_per_tx} bytes per transaction`);
    report[side.name] = { schema_version: Math.max(...side.migrations.map((m) => m.version)), write_seconds: Math.round(side.writeSeconds * 10) / 10, merge_seconds: mergeSeconds, ...storage };
  }

  for (const side of sides) {
    if (!KEEP) await side.store.command(`DROP DATABASE IF EXISTS ${side.store.database}`);
    await side.store.close();
  }
  process.stdout.write(
    JSON.stringify({
      bench: 'storage',
      transactions,
      messages,
      accounts: accounts.size,
      before: report.before,
      after: report.after,
      ratio: storageRatio(report.before, report.after),
      kept: KEEP ? sides.map((s) => s.store.database) : [],
      loadavg_1m: Math.round(loadavg()[0] * 100) / 100,
    }) + '\n',
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
