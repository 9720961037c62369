/**
 * The bench:api dataset in ClickHouse: the synthetic chain of api-bench-chain.ts written with the
 * store's own `writeBatch` (so every table and lookup table holds what the writer would write), then
 * the watermark at its last masterchain block. The database is kept between runs: when its
 * `bench_dataset` row names the same chain and the row counts match, loading is skipped.
 */
import { createStore, migrate, type Migration, MIGRATIONS, type RecordBatch, saveTracesWatermark, saveWatermark, str, type Store, writeBatch } from '@tonstream/store';
import { type ChainOptions, generateChain, loadTemplates } from './api-bench-chain.js';

/** Bump when the generator changes what it writes: an older dataset is then loaded again. */
const GENERATOR_VERSION = 2;

/** 5,000 masterchain blocks x (197 basechain + 3 masterchain) = 1,000,000 transactions. */
export const CHAIN: ChainOptions = {
  seed: 20_251_124,
  mcBlocks: 5_000,
  shardTxPerMc: 197,
  accounts: 100_000,
  zipfExponent: 1,
  firstMcSeqno: 45_000_001,
  firstUtime: 1_750_000_000,
  mcBlocksPerBatch: 50,
};
const MC_TXS = 3;

export type Dataset = {
  database: string;
  store: Store;
  watermark: number;
  /** Seconds spent loading in this run; 0 when the kept database was reused. */
  loadSeconds: number;
  counts: { transactions: number; messages: number; accounts: number; blocks: number; account_states: number };
};

const spec = (o: ChainOptions) => JSON.stringify({ generator: GENERATOR_VERSION, ...o });

async function count(store: Store, sql: string): Promise<number> {
  const [row] = await store.query<{ n: string }>(sql);
  return Number(row?.n ?? 0);
}

/** Distinct facts per table (replays and unmerged parts do not count twice). */
export async function countFacts(store: Store): Promise<Dataset['counts']> {
  const db = store.database;
  const [transactions, messages, accounts, blocks, account_states] = await Promise.all([
    count(store, `SELECT uniqExact(hash) AS n FROM ${db}.transactions_by_hash`),
    count(store, `SELECT uniqExact(hash, direction, tx_hash) AS n FROM ${db}.messages`),
    count(store, `SELECT uniqExact(account) AS n FROM ${db}.account_states_latest WHERE account LIKE '0:%'`),
    count(store, `SELECT uniqExact(workchain, shard, seqno) AS n FROM ${db}.blocks_by_mc_seqno`),
    count(store, `SELECT uniqExact(account, last_trans_lt) AS n FROM ${db}.account_states`),
  ]);
  return { transactions, messages, accounts, blocks, account_states };
}

async function recorded(store: Store): Promise<{ spec: string; counts: string } | undefined> {
  const db = store.database;
  const exists = await count(store, `SELECT count() AS n FROM system.tables WHERE database = ${str(db)} AND name = 'bench_dataset'`);
  if (exists === 0) return undefined;
  const [row] = await store.query<{ spec: string; counts: string }>(`SELECT spec, counts FROM ${db}.bench_dataset ORDER BY loaded_at DESC LIMIT 1`);
  return row;
}

/** The schema a dataset is written in: its migrations and the writer's batch write for them. */
export type DatasetSchema = { migrations: Migration[]; write: (store: Store, batch: RecordBatch) => Promise<unknown> };

const TODAYS_SCHEMA: DatasetSchema = { migrations: MIGRATIONS, write: writeBatch };

/**
 * The dataset in `database`, loaded unless a complete one of the same chain is already there.
 * `log` gets progress lines (stderr: stdout is the bench's JSON line). `schema`: an earlier release's,
 * for a database its own API reads.
 */
export async function ensureDataset(clickhouseUrl: string, database: string, log: (line: string) => void, chain: ChainOptions = CHAIN, schema: DatasetSchema = TODAYS_SCHEMA): Promise<Dataset> {
  let store = createStore({ url: clickhouseUrl, database, requestTimeoutMs: 600_000 });
  const watermark = chain.firstMcSeqno + chain.mcBlocks - 1;
  const done = await recorded(store).catch(() => undefined);
  if (done && done.spec === spec(chain)) {
    await migrate(store, schema.migrations);
    const counts = await countFacts(store);
    if (JSON.stringify(counts) === done.counts) {
      log(`dataset ${database}: kept (${counts.transactions} transactions, ${counts.accounts} accounts)`);
      return { database, store, watermark, loadSeconds: 0, counts };
    }
    log(`dataset ${database}: counts ${JSON.stringify(counts)} differ from the recorded ${done.counts}; loading again`);
  }
  await store.command(`DROP DATABASE IF EXISTS ${store.database}`);
  await store.close();
  store = createStore({ url: clickhouseUrl, database, requestTimeoutMs: 600_000 });
  await migrate(store, schema.migrations);

  const started = performance.now();
  const templates = loadTemplates();
  let transactions = 0;
  let lastUtime = 0;
  for (const batch of generateChain(templates, chain)) {
    await schema.write(store, batch);
    transactions += batch.transactions.length;
    for (const b of batch.blocks) if (b.record.workchain === -1 && b.record.seqno === watermark) lastUtime = Number(b.record.gen_utime);
    if (transactions % 100_000 < batch.transactions.length) log(`dataset ${database}: ${transactions} transactions written, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await saveWatermark(store, { mc_seqno: watermark, gen_utime: lastUtime });
  // The tracer's batches count as stored (api-bench-traces.ts writes the traces and actions directly).
  await saveTracesWatermark(store, { mc_seqno: watermark });
  const loadSeconds = (performance.now() - started) / 1000;
  const counts = await countFacts(store);
  const expected = chain.mcBlocks * (chain.shardTxPerMc + MC_TXS);
  if (counts.transactions !== expected || counts.accounts < chain.accounts) {
    throw new Error(`dataset ${database}: loaded ${JSON.stringify(counts)}, expected ${expected} transactions and ${chain.accounts} accounts`);
  }
  await store.command(
    `CREATE TABLE IF NOT EXISTS ${store.database}.bench_dataset (spec String, counts String, load_seconds Float64, loaded_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY loaded_at`,
  );
  await store.command(`INSERT INTO ${store.database}.bench_dataset (spec, counts, load_seconds) VALUES (${str(spec(chain))}, ${str(JSON.stringify(counts))}, ${loadSeconds.toFixed(1)})`);
  log(`dataset ${database}: loaded in ${loadSeconds.toFixed(0)} s: ${JSON.stringify(counts)}`);
  return { database, store, watermark, loadSeconds, counts };
}
