/**
 * `npm run --silent bench:api`: v3 API latency and throughput at scale. Prints one JSON line.
 *
 * Data: api-bench-data.ts (1,000,000 transactions over 100,000 accounts made of real mainnet records;
 * api-bench-tokens.ts adds 1,000,000 Jetton wallets and their accounts for the ranked lines,
 * kept in BENCH_API_DATABASE between runs). The API runs as its own process (services/api/dist/main.js)
 * over that database. Each endpoint gets BENCH_CONNECTIONS keep-alive connections for BENCH_SECONDS
 * (after BENCH_WARMUP_SECONDS not counted), every request with a random target: accounts are those of
 * random stored transactions (so busy accounts are asked for as often as they transact), masterchain
 * seqnos uniform over the indexed ones, message hashes those of random stored messages. Then the floor:
 * the same load straight at ClickHouse's HTTP interface with the endpoint's main store query (the SQL
 * the read layer sends for that request, captured from it), so the API's own cost is the difference.
 *
 * Before and after (issue 26): the release before issue 26 changed the schema (BEFORE_ISSUE_26) is
 * built beside this checkout (baseline-build.ts) and its API runs over the same dataset
 * written in its own schema (migrations up to 17, schema 17's writer) in `<database>_before`; every
 * endpoint is then loaded on both APIs back to back with the same targets, and each line reports
 * after/before ratios and ClickHouse queries per request (SelectQuery events over sequential requests).
 * BENCH_API_BEFORE=0 leaves the earlier release out; BENCH_API_BEFORE_FIRST=1 loads it first on each line.
 *
 * Hot tier (issue 27): the API under test reads it (HOT_TIER=on), built once for the dataset in the
 * dev Redis (`npm run hot:rebuild`'s work, ~100 s) and kept while it can answer; BENCH_API_HOT=0 runs
 * that API on ClickHouse alone. It runs BENCH_API_WORKERS processes (API_WORKERS; default one per core).
 */
import { availableParallelism, loadavg } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectHotTier, DEFAULT_HOT_TTL_SECONDS, hotTierProblem, masterchainInfo, MIGRATIONS, readAccountStates, readActions, readBlocks, readCodeHashes, readMessages, readTraces, readTransactions, rebuildHotTier, str, type QueryOptions, type ReadScope, type Store } from '@tonstream/store';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { writeSchema17Batch } from '../support/schema17-writer.js';
import { CHAIN, type DatasetSchema, ensureDataset } from './api-bench-data.js';
import { baselineBuild } from './baseline-build.js';
import { ensureTraces } from './api-bench-traces.js';
import { ensureTokens, tokenEndpoints } from './api-bench-tokens.js';
import { loadGenerator, type LoadOptions, type LoadRequest, type LoadResult, runLoad } from './http-load.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const DATABASE = process.env.BENCH_API_DATABASE || 'tonstream_bench_api';
const LOAD: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 64),
  seconds: Number(process.env.BENCH_SECONDS ?? 20),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
};
/** The issue's first targets, per endpoint. */
const TARGET = { p99_ms: 50, rps: 500 };
/** Random targets drawn from the dataset per kind. */
const SAMPLES = 20_000;
const ONLY = process.env.BENCH_ENDPOINTS?.split(',');
/** The last commit before issue 26 changed what is stored (schema 17). */
const BEFORE_ISSUE_26 = 'd89e2448570381c3463b19a1f647f40e4e333c05';
const WITH_BEFORE = process.env.BENCH_API_BEFORE !== '0';
/** Load the release before issue 26 first on every line (default: today's first), to see what the order costs. */
const BEFORE_FIRST = process.env.BENCH_API_BEFORE_FIRST === '1';
const SCHEMA_17: DatasetSchema = { migrations: MIGRATIONS.filter((m) => m.version <= 17), write: writeSchema17Batch };
/** Seconds of one connection's requests one after another, for the single-request latency (0: not measured). */
const SINGLE_SECONDS = Number(process.env.BENCH_SINGLE_SECONDS ?? 5);
/** The API under test reads the hot tier (built for the dataset once, kept in Redis); BENCH_API_HOT=0: ClickHouse alone. */
const HOT = process.env.BENCH_API_HOT !== '0';
/** API processes (API_WORKERS) of the API under test: one per core, as a Go server uses every core. */
const API_WORKERS = Number(process.env.BENCH_API_WORKERS ?? availableParallelism());
/** How npm start and compose run the API (services/api/README.md, "Processes"). */
const API_NODE_ARGS = ['--max-semi-space-size=64'];
/** The dataset's blocks are mainnet's (2020 on): a window of decades holds all of its transactions. */
const HOT_TX_WINDOW_SECONDS = 30 * 365 * 24 * 3600;
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** Sequential requests per endpoint and side over which ClickHouse queries are counted. */
const COUNTED_REQUESTS = 50;

const log = (line: string) => process.stderr.write(`bench:api: ${line}\n`);

/** The SQL a read function sends, without running it: a Store whose queries are recorded and answer nothing. */
/** The ClickHouse settings a captured query was sent with (the read layer's point-read settings), for its floor. */
const SETTINGS_OF = new Map<string, Readonly<Record<string, number>>>();
const settingsParams = (sql: string) => Object.entries(SETTINGS_OF.get(sql) ?? {}).map(([k, v]) => `&${k}=${v}`).join('');

/** Latency of one request at a time (one connection, nothing else asking): issue 27's single-request p50. */
async function singleRequest(origin: string, path: () => string) {
  if (SINGLE_SECONDS <= 0) return {};
  const r = await runLoad(origin, () => ({ path: path() }), { connections: 1, seconds: SINGLE_SECONDS, warmupSeconds: 1 });
  return { single_p50_ms: r.p50_ms, single_p99_ms: r.p99_ms };
}

async function capture(store: Store, read: (s: Store) => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const recorder: Store = {
    ...store,
    query: async <T>(sql: string, options?: QueryOptions) => {
      if (options?.settings) SETTINGS_OF.set(sql, options.settings);
      sent.push(sql);
      return [] as T[];
    },
  };
  await read(recorder);
  return sent;
}

type EndpointResult = {
  api: LoadResult & { queries_per_request: number };
  floor: LoadResult;
  floor_sql: string;
  api_over_floor: { p50: number; rps: number };
  before?: LoadResult & { queries_per_request: number };
  after_over_before?: { p50: number; p99: number; rps: number };
};

type Endpoint = {
  name: string;
  /** A request path under the API's origin. */
  path(): string;
  /** The endpoint's main store query for the same kind of target. */
  floor(): Promise<string>;
};

/**
 * Merges each table of the dataset into one part, as background merges leave a table at rest: a fresh
 * backfill (a migration's, the loaders') is in several parts, and a key lookup reads one granule per part.
 */
async function mergeParts(store: Store): Promise<void> {
  const tables = await store.query<{ table: string }>(`SELECT table FROM system.parts WHERE database = ${str(store.database)} AND active GROUP BY table HAVING count() > 1`);
  for (const { table } of tables) {
    log(`merging ${table}`);
    await store.command(`OPTIMIZE TABLE ${store.database}.${table} FINAL`);
  }
}

/** The dataset's hot tier: built when it cannot answer (not built, Redis restarted), else kept. */
async function ensureHotTier(store: Store) {
  const tier = await connectHotTier(REDIS_URL, { prefix: '', database: store.database, ttlSeconds: DEFAULT_HOT_TTL_SECONDS, txWindowSeconds: HOT_TX_WINDOW_SECONDS });
  try {
    const problem = await hotTierProblem(tier, store);
    const started = Date.now();
    if (problem !== null) {
      log(`hot tier: ${problem}; building it`);
      let shown = 0;
      await rebuildHotTier(store, tier, ({ accounts, transactions }) => {
        if (Date.now() - shown < 10_000) return;
        shown = Date.now();
        log(`hot tier: ${accounts} accounts, ${transactions} transactions`);
      });
    }
    const memory = /^used_memory:(\d+)/m.exec(await tier.redis.info('memory'))?.[1];
    return { built: problem !== null, seconds: (Date.now() - started) / 1000, redis_used_memory_bytes: Number(memory) };
  } finally {
    tier.redis.disconnect();
  }
}

/** The same dataset in schema 17, written by its writer, for the release before issue 26 to serve. */
async function beforeDataset(range: { first: number; last: number }): Promise<Store> {
  const data = await ensureDataset(CLICKHOUSE_URL, `${DATABASE}_before`, log, CHAIN, SCHEMA_17);
  await ensureTraces(data.store, range, log, SCHEMA_17.write);
  await ensureTokens(data.store, range, log);
  await mergeParts(data.store);
  return data.store;
}

/** Resolves with the API's origin once it answers /healthcheck; fails when its process exits first. */
async function apiReady(api: ServiceProcess, port: number, label: string): Promise<string> {
  const origin = `http://127.0.0.1:${port}`;
  await eventually(
    `${label} to answer /healthcheck`,
    async () => ((await fetch(`${origin}/healthcheck`)).ok ? true : undefined),
    120_000,
    200,
    () => {
      if (api.child.exitCode !== null) throw new Error(`${label} exited:\n${api.output().slice(-2000)}`);
    },
  );
  return origin;
}

/**
 * ClickHouse queries per request: SELECT queries the server counted over COUNTED_REQUESTS sequential
 * requests (nothing else queries it meanwhile), less the counter reads themselves. Requests answered
 * other than 2xx (a timeout under this load) count all the same: the load results report them.
 */
async function queriesPerRequest(store: Store, origin: string, path: () => string): Promise<number> {
  const selects = async () => Number((await store.query<{ n: string }>(`SELECT value AS n FROM system.events WHERE event = 'SelectQuery'`))[0]?.n ?? 0);
  const start = await selects();
  for (let i = 0; i < COUNTED_REQUESTS; i++) await (await fetch(`${origin}${path()}`)).arrayBuffer();
  return Math.round(((await selects()) - start - 1) / COUNTED_REQUESTS * 10) / 10;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

async function main(): Promise<void> {
  const baseline = WITH_BEFORE ? baselineBuild(BEFORE_ISSUE_26, log) : undefined;
  const data = await ensureDataset(CLICKHOUSE_URL, DATABASE, log);
  const { store, watermark } = data;
  const db = store.database;
  const range = { first: CHAIN.firstMcSeqno, last: watermark };
  const traceData = await ensureTraces(store, range, log);
  const tokenData = await ensureTokens(store, range, log);
  await mergeParts(store);
  const hotTier = HOT ? await ensureHotTier(store) : undefined;
  const beforeStore = baseline ? await beforeDataset(range) : undefined;
  const [accounts, messageHashes, mcInfo, actionAccounts, traceIds, actionTypes, txHashes] = await Promise.all([
    store.query<{ account: string }>(`SELECT account FROM ${db}.transactions_by_hash WHERE account LIKE '0:%' ORDER BY rand() LIMIT ${SAMPLES}`),
    store.query<{ hash: string }>(`SELECT hash FROM ${db}.messages ORDER BY rand() LIMIT ${SAMPLES}`),
    store.query<{ lo: number; hi: number; utime: number }>(`SELECT min(seqno) AS lo, max(seqno) AS hi, max(gen_utime) AS utime FROM ${db}.blocks WHERE workchain = -1`),
    // An action's accounts, so accounts with many actions are asked for as often as they act.
    store.query<{ account: string }>(`SELECT account FROM ${db}.action_accounts ORDER BY rand() LIMIT ${SAMPLES}`),
    store.query<{ trace_id: string }>(`SELECT trace_id FROM ${db}.traces ORDER BY rand() LIMIT ${SAMPLES}`),
    store.query<{ type: string }>(`SELECT DISTINCT type FROM ${db}.actions`),
    store.query<{ hash: string }>(`SELECT hash FROM ${db}.transactions_by_hash ORDER BY rand() LIMIT ${SAMPLES}`),
  ]);
  const txHash = () => pick(txHashes).hash;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const account = () => pick(accounts).account;
  const messageHash = () => pick(messageHashes).hash;
  const actionAccount = () => pick(actionAccounts).account;
  const traceId = () => pick(traceIds).trace_id;
  // The floor filters on the dataset's types (the API sends its whole supported set: same plan).
  const types = { types: actionTypes.map((t) => t.type), supported: actionTypes.map((t) => t.type) };
  const mcSeqno = () => Number(mcInfo[0].lo) + Math.floor(Math.random() * (Number(mcInfo[0].hi) - Number(mcInfo[0].lo) + 1));
  const scope: ReadScope = { watermark, traces: watermark };
  const page = { limit: 10, offset: 0, sort: 'desc' as const };
  const one = async (read: (s: Store) => Promise<unknown>, which: 'first' | 'last' = 'first') => {
    const sent = await capture(store, read);
    return which === 'first' ? sent[0] : sent[sent.length - 1];
  };
  const q = encodeURIComponent;

  const endpoints: Endpoint[] = [
    {
      name: 'transactions_by_account',
      path: () => `/api/v3/transactions?account=${q(account())}&limit=10`,
      floor: () => one((s) => readTransactions(s, scope, { accounts: [account()] }, { ...page, order: 'lt' })),
    },
    {
      // An explorer's front page: the newest transactions of the whole chain (migration 7's key range).
      name: 'transactions_latest',
      path: () => '/api/v3/transactions?limit=10',
      floor: () => one((s) => readTransactions(s, scope, {}, { ...page, order: 'lt' })),
    },
    {
      name: 'transactions_by_hash',
      path: () => `/api/v3/transactions?hash=${q(txHash())}`,
      floor: () => one((s) => readTransactions(s, scope, { hashes: [txHash()] }, { ...page, order: 'lt' })),
    },
    {
      name: 'transactionsByMasterchainBlock',
      path: () => `/api/v3/transactionsByMasterchainBlock?seqno=${mcSeqno()}`,
      floor: () => one((s) => readTransactions(s, scope, { mcSeqno: mcSeqno() }, { ...page, order: 'lt' })),
    },
    {
      name: 'messages_by_hash',
      path: () => `/api/v3/messages?msg_hash=${q(messageHash())}`,
      floor: () => one((s) => readMessages(s, scope, { hashes: [messageHash()] }, { ...page, order: 'lt' })),
    },
    {
      // v2's index-backed history (TonClient.getTransactions): the page and its BoCs from the index.
      name: 'v2_getTransactions',
      path: () => `/api/v2/getTransactions?address=${q(account())}&limit=10`,
      floor: () => one((s) => readTransactions(s, scope, { accounts: [account()] }, { ...page, order: 'lt' })),
    },
    {
      name: 'accountStates',
      path: () => `/api/v3/accountStates?address=${q(account())}`,
      floor: () => one((s) => readAccountStates(s, scope, [account()])),
    },
    {
      name: 'walletStates',
      path: () => `/api/v3/walletStates?address=${q(account())}`,
      floor: () => one((s) => readAccountStates(s, scope, [account()])),
    },
    {
      name: 'addressBook',
      path: () => `/api/v3/addressBook?address=${q(account())}`,
      floor: () => one((s) => readCodeHashes(s, scope, [account()])),
    },
    {
      name: 'blocks_workchain_0',
      path: () => '/api/v3/blocks?workchain=0&limit=10',
      floor: () => one((s) => readBlocks(s, scope, { workchain: 0 }, { ...page, order: 'gen_utime' })),
    },
    {
      name: 'masterchainInfo',
      path: () => '/api/v3/masterchainInfo',
      // Two queries run side by side; the floor is the costlier one (the oldest block).
      floor: () => one((s) => masterchainInfo(s, { mc_seqno: watermark, gen_utime: Number(mcInfo[0].utime) }, null), 'last'),
    },
    {
      name: 'actions_by_account',
      path: () => `/api/v3/actions?account=${q(actionAccount())}&limit=10`,
      floor: () => one((s) => readActions(s, scope, { account: actionAccount(), ...types }, { ...page, order: 'lt' })),
    },
    {
      // The floor is the trace's own read; the API then also reads its transactions by hash and builds the tree.
      name: 'traces_by_trace_id',
      path: () => `/api/v3/traces?trace_id=${q(traceId())}`,
      floor: () => one((s) => readTraces(s, scope, { traceIds: [traceId()] }, { ...page, order: 'lt' })),
    },
    // Jetton holders by balance and the top accounts (issue 14), over api-bench-tokens.ts's rows.
    ...tokenEndpoints(store, scope, tokenData),
  ].filter((e) => !ONLY || ONLY.includes(e.name));

  const logs = mkdtempSync(join(tmpdir(), 'tonstream-bench-api-'));
  const apiEnv = async (database: string) => ({ CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, API_HOST: '127.0.0.1', API_PORT: String(await freePort()), LOG_LEVEL: 'warn' });
  const afterEnv = { ...(await apiEnv(DATABASE)), HOT_TIER: HOT ? 'on' : 'off', HOT_TIER_TX_WINDOW_SECONDS: String(HOT_TX_WINDOW_SECONDS), API_WORKERS: String(API_WORKERS) };
  const beforeEnv = beforeStore ? await apiEnv(beforeStore.database) : undefined;
  const apis = [startService('api', afterEnv, logs, [], API_NODE_ARGS), ...(baseline && beforeEnv ? [startService('api', beforeEnv, join(logs, 'before-issue-26'), [], [], baseline.root)] : [])];
  const results: Record<string, EndpointResult> = {};
  try {
    const apiOrigin = await apiReady(apis[0], Number(afterEnv.API_PORT), 'the API');
    const beforeOrigin = beforeEnv ? await apiReady(apis[1], Number(beforeEnv.API_PORT), 'the API before issue 26') : undefined;
    const chUrl = new URL(CLICKHOUSE_URL);
    // The settings the store sends with every query (client.ts).
    const floorPath = `${chUrl.pathname.replace(/\/$/, '')}/?wait_end_of_query=1&max_execution_time=30&output_format_json_quote_64bit_integers=1`;
    for (const e of endpoints) {
      // The floor's SQL is made ahead: its own cost is not ClickHouse's.
      const floorSql = await Promise.all(Array.from({ length: 2_000 }, () => e.floor()));
      const loadApi = async (origin: string, side: string) => {
        log(`${e.name}: API${side}`);
        return runLoad(origin, (): LoadRequest => ({ path: e.path() }), LOAD);
      };
      const loadBefore = async () => (beforeOrigin ? { ...(await loadApi(beforeOrigin, ' before issue 26')), queries_per_request: await queriesPerRequest(store, beforeOrigin, e.path) } : undefined);
      let before = BEFORE_FIRST ? await loadBefore() : undefined;
      const apiResult = await loadApi(apiOrigin, '');
      if (!BEFORE_FIRST) before = await loadBefore();
      log(`${e.name}: ClickHouse floor`);
      const floor = await runLoad(chUrl.origin, (): LoadRequest => {
        const sql = pick(floorSql);
        return { path: `${floorPath}${settingsParams(sql)}`, method: 'POST', body: `${sql} FORMAT JSONEachRow` };
      }, LOAD);
      results[e.name] = {
        api: { ...apiResult, queries_per_request: await queriesPerRequest(store, apiOrigin, e.path), ...(await singleRequest(apiOrigin, e.path)) },
        floor,
        floor_sql: floorSql[0].replace(/\s+/g, ' '),
        api_over_floor: { p50: ratio(apiResult.p50_ms, floor.p50_ms), rps: ratio(apiResult.rps, floor.rps) },
        ...(before ? { before, after_over_before: { p50: ratio(apiResult.p50_ms, before.p50_ms), p99: ratio(apiResult.p99_ms, before.p99_ms), rps: ratio(apiResult.rps, before.rps) } } : {}),
      };
      log(`${e.name}: api ${apiResult.rps} rps p50 ${apiResult.p50_ms} p99 ${apiResult.p99_ms}; ${before ? `before ${before.rps} rps p50 ${before.p50_ms} p99 ${before.p99_ms}; ` : ''}floor ${floor.rps} rps p50 ${floor.p50_ms} p99 ${floor.p99_ms}`);
    }
  } finally {
    for (const api of apis) await api.stop();
  }
  const parts = await store.query<{ table: string; parts: string; rows: string }>(
    `SELECT table, count() AS parts, sum(rows) AS rows FROM system.parts WHERE database = '${db}' AND active GROUP BY table ORDER BY table`,
  );
  const meetsTarget = Object.values(results).every((r) => r.api.p99_ms < TARGET.p99_ms && r.api.rps >= TARGET.rps && r.api.non_2xx === 0 && r.api.errors === 0);
  // At least as fast as before: no line serves fewer requests per second at the same concurrency.
  const slowerThanBefore = Object.entries(results).filter(([, r]) => r.after_over_before && r.after_over_before.rps < 1).map(([name]) => name);
  process.stdout.write(
    JSON.stringify({
      bench: 'api',
      load_generator: loadGenerator(),
      connections: LOAD.connections,
      api_workers: API_WORKERS,
      seconds: LOAD.seconds,
      warmup_seconds: LOAD.warmupSeconds,
      dataset: {
        database: DATABASE, ...data.counts, traces: traceData.traces, actions: traceData.actions, watermark,
        load_seconds: Math.round(data.loadSeconds), reused: data.loadSeconds === 0, traces_seconds: Math.round(traceData.seconds), traces_reused: traceData.seconds === 0,
        tokens: tokenData.counts, tokens_seconds: Math.round(tokenData.seconds), tokens_reused: tokenData.seconds === 0,
        hot_tier: hotTier ?? 'off',
      },
      endpoints: results,
      target: TARGET,
      meets_target: meetsTarget,
      ...(baseline ? { before: { commit: baseline.sha, database: beforeStore?.database, schema_version: 17 }, slower_than_before: slowerThanBefore } : {}),
      parts: Object.fromEntries(parts.map((p) => [p.table, { parts: Number(p.parts), rows: Number(p.rows) }])),
      loadavg_1m: Math.round(loadavg()[0] * 100) / 100,
    }) + '\n',
  );
  await store.close();
  await beforeStore?.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
