/**
 * The measurements behind the store's table design (migration 5 and the read queries): for each read
 * the v3 API does, candidate SQL straight at ClickHouse with BENCH_CONNECTIONS concurrent connections,
 * on the bench:api dataset copied at several index granularities. Run by hand (it takes a while):
 *
 *   npx tsc -b && node test/bench/dist/bench/api-table-design.js > design.json
 *
 * Each granularity G gets its own database `tonstream_design_g<G>` with every table of the dataset at
 * `index_granularity = G`, written in DESIGN_PARTS chronological inserts (by masterchain seqno, as the
 * writer writes) with merges stopped, so FINAL has the same parts to merge in every variant. Cases run
 * interleaved, DESIGN_ROUNDS rounds, so machine noise hits them alike; the report has every round.
 * Before timing, each case's answers for DESIGN_CHECKS targets must equal its group's reference
 * (the current query at granularity 8192), or the case is reported as wrong and not timed; a case
 * slower than DESIGN_SLOW_MS alone is reported with that time and not loaded.
 */
import { loadavg } from 'node:os';
import { createStore, str, type Store } from '@tonstream/store';
import { ensureDataset } from './api-bench-data.js';
import { loadGenerator, type LoadOptions, type LoadResult, runLoad } from './http-load.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const SOURCE = process.env.BENCH_API_DATABASE || 'tonstream_bench_api';
const GRANULARITIES = (process.env.DESIGN_GRANULARITIES ?? '8192,1024,256').split(',').map(Number);
const PARTS = Number(process.env.DESIGN_PARTS ?? 4);
const ROUNDS = Number(process.env.DESIGN_ROUNDS ?? 2);
const CHECKS = Number(process.env.DESIGN_CHECKS ?? 10);
/** A case whose answers alone take longer than this (median) is reported, not loaded. */
const SLOW_MS = Number(process.env.DESIGN_SLOW_MS ?? 300);
/** Under load, a query is stopped after this (seconds): a saturated case ends its run in time. */
const LOADED_QUERY_LIMIT_S = 5;
const LOAD: LoadOptions = { connections: Number(process.env.BENCH_CONNECTIONS ?? 64), seconds: Number(process.env.DESIGN_SECONDS ?? 5), warmupSeconds: 1 };
const ONLY_GROUPS = process.env.DESIGN_GROUPS?.split(',');
const TABLES = ['blocks', 'blocks_by_mc_seqno', 'transactions', 'transactions_by_hash', 'transactions_by_mc_seqno', 'messages', 'account_states_latest', 'account_states'];
const MC_SHARD = '9223372036854775808';
/** The masterchain seqno of a row, for tables without the column (the bench chain's lts are seqno x 10^6 + …). */
const CHUNK_BY: Record<string, string> = { transactions_by_hash: 'intDiv(lt, 1000000)' };

const log = (line: string) => process.stderr.write(`design: ${line}\n`);
const designDb = (g: number) => `tonstream_design_g${g}`;

/** Copies the dataset into one database per granularity (kept: a copy with the same row counts is reused). */
async function prepare(store: Store, g: number): Promise<void> {
  const db = designDb(g);
  const rows = async (database: string, table: string) =>
    Number((await store.query<{ n: string }>(`SELECT sum(rows) AS n FROM system.parts WHERE database = ${str(database)} AND table = ${str(table)} AND active`))[0]?.n ?? 0);
  await store.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
  const [{ lo, hi }] = await store.query<{ lo: string; hi: string }>(`SELECT min(mc_block_seqno) AS lo, max(mc_block_seqno) + 1 AS hi FROM ${SOURCE}.blocks`);
  for (const table of TABLES) {
    const want = await rows(SOURCE, table);
    if ((await rows(db, table)) === want) continue;
    await store.command(`DROP TABLE IF EXISTS ${db}.${table}`);
    const [{ q }] = await store.query<{ q: string }>(`SELECT create_table_query AS q FROM system.tables WHERE database = ${str(SOURCE)} AND name = ${str(table)}`);
    await store.command(q.replace(`${SOURCE}.${table}`, `${db}.${table}`).replace(/index_granularity = \d+/, `index_granularity = ${g}`));
    await store.command(`SYSTEM STOP MERGES ${db}.${table}`);
    const step = Math.ceil((Number(hi) - Number(lo)) / PARTS);
    for (let p = 0; p < PARTS; p++) {
      const from = Number(lo) + p * step;
      const seqno = CHUNK_BY[table] ?? 'mc_block_seqno';
      await store.command(`INSERT INTO ${db}.${table} SELECT * FROM ${SOURCE}.${table} WHERE ${seqno} >= ${from} AND ${seqno} < ${from + step}`);
    }
    log(`${db}.${table}: ${await rows(db, table)} rows`);
  }
  // A candidate lookup table: external-in messages by their normalized hash.
  const normRows = Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${SOURCE}.messages WHERE hash_norm != ''`))[0].n);
  if ((await rows(db, 'messages_by_hash_norm')) !== normRows) {
    await store.command(`DROP TABLE IF EXISTS ${db}.messages_by_hash_norm`);
    await store.command(`CREATE TABLE ${db}.messages_by_hash_norm (hash_norm String, hash String) ENGINE = ReplacingMergeTree ORDER BY hash_norm SETTINGS index_granularity = ${g}`);
    await store.command(`INSERT INTO ${db}.messages_by_hash_norm SELECT hash_norm, hash FROM ${SOURCE}.messages WHERE hash_norm != ''`);
  }
}

type Targets = { accounts: string[]; accountSets: string[][]; mcSeqnos: number[]; messageHashes: string[]; txMessages: { hashes: string[]; txs: string[] }[] };

async function sampleTargets(store: Store, watermark: number): Promise<Targets> {
  const db = SOURCE;
  const accounts = (await store.query<{ a: string }>(`SELECT account AS a FROM ${db}.transactions_by_hash WHERE account LIKE '0:%' ORDER BY rand() LIMIT 5000`)).map((r) => r.a);
  const messageHashes = (await store.query<{ h: string }>(`SELECT hash AS h FROM ${db}.messages ORDER BY rand() LIMIT 5000`)).map((r) => r.h);
  const [{ lo, hi }] = await store.query<{ lo: number; hi: number }>(`SELECT min(seqno) AS lo, max(seqno) AS hi FROM ${db}.blocks WHERE workchain = -1`);
  const mcSeqnos = Array.from({ length: 5000 }, () => Number(lo) + Math.floor(Math.random() * (Number(hi) - Number(lo) + 1)));
  // The messages of a /transactions page (10 transactions of one account), as readTransactionMessages asks for them.
  const txMessages: Targets['txMessages'] = [];
  for (const a of accounts.slice(0, 300)) {
    const txs = await store.query<{ hash: string; in_msg_hash: string }>(
      `SELECT hash, in_msg_hash FROM ${db}.transactions WHERE account = ${str(a)} AND mc_block_seqno <= ${watermark} ORDER BY lt DESC LIMIT 1 BY lt LIMIT 10`,
    );
    const outs = await store.query<{ hash: string }>(`SELECT hash FROM ${db}.messages_by_account WHERE account = ${str(a)} AND direction = 'out' AND tx_hash IN ${list(txs.map((t) => t.hash))}`);
    txMessages.push({ hashes: [...new Set([...txs.map((t) => t.in_msg_hash).filter(Boolean), ...outs.map((o) => o.hash)])], txs: txs.map((t) => t.hash) });
  }
  const accountSets = Array.from({ length: 1000 }, () => Array.from({ length: 20 }, () => accounts[Math.floor(Math.random() * accounts.length)]));
  return { accounts, accountSets, mcSeqnos, messageHashes, txMessages };
}

type Case = { group: string; name: string; g: number; sql: (t: Targets) => string; ordered: boolean };
const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
const list = (values: string[]) => `(${values.map(str).join(', ')})`;

/** Every candidate of every read, at every granularity; `reference` is the store's query before this work. */
function cases(w: number): Case[] {
  const out: Case[] = [];
  const add = (group: string, name: string, ordered: boolean, sql: (db: string, t: Targets) => string, gs = GRANULARITIES) => {
    for (const g of gs) out.push({ group, name, g, ordered, sql: (t) => sql(designDb(g), t) });
  };
  const txOrder = 'ORDER BY lt DESC, account ASC';
  // /transactions?account=…&limit=10
  add('tx_by_account', 'reference: FINAL, ORDER BY LIMIT', true, (db, t) => `SELECT record FROM ${db}.transactions FINAL WHERE mc_block_seqno <= ${w} AND account IN ${list([pick(t.accounts)])} ${txOrder} LIMIT 0, 10`);
  const txKeys = (db: string, a: string) => `SELECT account, lt FROM ${db}.transactions WHERE mc_block_seqno <= ${w} AND account IN ${list([a])} ${txOrder} LIMIT 1 BY account, lt LIMIT 0, 10`;
  add('tx_by_account', 'keys first, then records FINAL', true, (db, t) => `SELECT record FROM ${db}.transactions FINAL WHERE (account, lt) IN (${txKeys(db, pick(t.accounts))}) ${txOrder}`);
  add('tx_by_account', 'keys first, then records LIMIT 1 BY', true, (db, t) => `SELECT record FROM ${db}.transactions WHERE (account, lt) IN (${txKeys(db, pick(t.accounts))}) ${txOrder} LIMIT 1 BY account, lt`);
  add('tx_by_account', 'keys first, then records any() GROUP BY', true, (db, t) => `SELECT any(record) AS record FROM ${db}.transactions WHERE (account, lt) IN (${txKeys(db, pick(t.accounts))}) GROUP BY account, lt ${txOrder}`);
  // /transactionsByMasterchainBlock?seqno=…
  add('tx_by_mc_seqno', 'reference: FINAL, keys IN lookup', true, (db, t) => `SELECT record FROM ${db}.transactions FINAL WHERE mc_block_seqno <= ${w} AND (account, lt) IN (SELECT account, lt FROM ${db}.transactions_by_mc_seqno WHERE mc_block_seqno = ${pick(t.mcSeqnos)}) ${txOrder} LIMIT 0, 10`);
  const mcKeys = (db: string, n: number) => `SELECT account, lt FROM ${db}.transactions_by_mc_seqno WHERE mc_block_seqno = ${n} AND mc_block_seqno <= ${w} ${txOrder} LIMIT 1 BY account, lt LIMIT 0, 10`;
  add('tx_by_mc_seqno', 'page keys from lookup, then records FINAL', true, (db, t) => `SELECT record FROM ${db}.transactions FINAL WHERE (account, lt) IN (${mcKeys(db, pick(t.mcSeqnos))}) ${txOrder}`);
  add('tx_by_mc_seqno', 'page keys from lookup, then records LIMIT 1 BY', true, (db, t) => `SELECT record FROM ${db}.transactions WHERE (account, lt) IN (${mcKeys(db, pick(t.mcSeqnos))}) ${txOrder} LIMIT 1 BY account, lt`);
  // The messages of a page of transactions (readTransactionMessages).
  add('tx_messages', 'reference: FINAL', false, (db, t) => {
    const m = pick(t.txMessages);
    return `SELECT record FROM ${db}.messages FINAL WHERE hash IN ${list(m.hashes)} AND tx_hash IN ${list(m.txs)}`;
  });
  add('tx_messages', 'LIMIT 1 BY', false, (db, t) => {
    const m = pick(t.txMessages);
    return `SELECT record FROM ${db}.messages WHERE hash IN ${list(m.hashes)} AND tx_hash IN ${list(m.txs)} LIMIT 1 BY hash, direction, tx_hash`;
  });
  // /messages?msg_hash=…
  const msgSelect = `SELECT hash, any(record) AS record, anyIf(tx_hash, direction = 'in') AS in_tx, anyIf(tx_hash, direction = 'out') AS out_tx, any(created_lt) AS m_lt, any(created_at) AS m_at`;
  const msgOrder = 'GROUP BY hash ORDER BY m_lt = 0 DESC, m_lt DESC, hash DESC LIMIT 0, 10';
  add('msg_by_hash', 'reference: FINAL, hash OR hash_norm', false, (db, t) => {
    const h = list([pick(t.messageHashes)]);
    return `${msgSelect} FROM ${db}.messages FINAL WHERE mc_block_seqno <= ${w} AND (hash IN ${h} OR hash_norm IN ${h}) ${msgOrder}`;
  });
  add('msg_by_hash', 'no FINAL, hash OR hash_norm', false, (db, t) => {
    const h = list([pick(t.messageHashes)]);
    return `${msgSelect} FROM ${db}.messages WHERE mc_block_seqno <= ${w} AND (hash IN ${h} OR hash_norm IN ${h}) ${msgOrder}`;
  });
  add('msg_by_hash', 'no FINAL, hash IN hashes OR hash IN (hash of hash_norm, a scan)', false, (db, t) => {
    const h = list([pick(t.messageHashes)]);
    return `${msgSelect} FROM ${db}.messages WHERE mc_block_seqno <= ${w} AND (hash IN ${h} OR hash IN (SELECT hash FROM ${db}.messages WHERE hash_norm IN ${h})) ${msgOrder}`;
  });
  add('msg_by_hash', 'no FINAL, hash IN hashes OR hash IN (hash of hash_norm, a lookup table)', false, (db, t) => {
    const h = list([pick(t.messageHashes)]);
    return `${msgSelect} FROM ${db}.messages WHERE mc_block_seqno <= ${w} AND (hash IN ${h} OR hash IN (SELECT hash FROM ${db}.messages_by_hash_norm WHERE hash_norm IN ${h})) ${msgOrder}`;
  });
  // /accountStates?address=…
  add('account_states', 'reference: history + latest, LIMIT 1 BY', false, (db, t) => {
    const where = `account IN ${list([pick(t.accounts)])} AND mc_block_seqno <= ${w}`;
    return `SELECT record FROM (SELECT account, last_trans_lt, record FROM ${db}.account_states WHERE ${where} UNION ALL SELECT account, last_trans_lt, record FROM ${db}.account_states_latest WHERE ${where}) ORDER BY account ASC, last_trans_lt DESC LIMIT 1 BY account`;
  });
  add('account_states', 'latest lt first, then records', false, (db, t) => {
    const where = `account IN ${list([pick(t.accounts)])} AND mc_block_seqno <= ${w}`;
    const keys = (table: string) => `(account, last_trans_lt) IN (SELECT account, max(last_trans_lt) FROM ${db}.${table} WHERE ${where} GROUP BY account)`;
    return `SELECT record FROM (SELECT account, last_trans_lt, record FROM ${db}.account_states WHERE ${keys('account_states')} UNION ALL SELECT account, last_trans_lt, record FROM ${db}.account_states_latest WHERE ${keys('account_states_latest')}) ORDER BY account ASC, last_trans_lt DESC LIMIT 1 BY account`;
  });
  // address_book of a page: code hashes of 20 accounts (readCodeHashes).
  add('code_hashes', 'reference: argMax GROUP BY', false, (db, t) => `SELECT account, argMax(code_hash, last_trans_lt) AS code_hash FROM ${db}.account_states_latest WHERE account IN ${list(pick(t.accountSets))} GROUP BY account`);
  // /topAccountsByBalance (a scan: granularity hardly matters, so 8192 only).
  const topTail = (db: string) =>
    `SELECT account, argMax(balance, last_trans_lt) AS amount FROM ${db}.account_states WHERE mc_block_seqno <= ${w} AND account IN (SELECT account FROM ${db}.account_states_latest FINAL WHERE mc_block_seqno > ${w}) GROUP BY account`;
  const topOuter = (inner: string) => `SELECT account, toString(amount) AS balance FROM (${inner}) ORDER BY amount DESC, account ASC LIMIT 0, 10`;
  add('top_balances', 'reference: FINAL', true, (db) => topOuter(`SELECT account, balance AS amount FROM ${db}.account_states_latest FINAL WHERE mc_block_seqno <= ${w} UNION ALL ${topTail(db)}`), [8192]);
  add(
    'top_balances',
    'argMax GROUP BY',
    true,
    (db) =>
      topOuter(
        `SELECT account, amount FROM (SELECT account, argMax(balance, last_trans_lt) AS amount, argMax(mc_block_seqno, last_trans_lt) AS m FROM ${db}.account_states_latest GROUP BY account) WHERE m <= ${w} UNION ALL ${topTail(db)}`,
      ),
    [8192],
  );
  add(
    'top_balances',
    'ORDER BY LIMIT 1 BY',
    true,
    (db) =>
      topOuter(
        `SELECT account, amount FROM (SELECT account, balance AS amount, mc_block_seqno AS m FROM ${db}.account_states_latest ORDER BY account, last_trans_lt DESC LIMIT 1 BY account) WHERE m <= ${w} UNION ALL ${topTail(db)}`,
      ),
    [8192],
  );
  // /blocks?workchain=0&limit=10
  const blockOrder = 'ORDER BY gen_utime DESC, workchain DESC, shard DESC, seqno DESC';
  add('blocks_wc0', 'reference: FINAL, ORDER BY LIMIT', true, (db) => `SELECT record FROM ${db}.blocks FINAL WHERE mc_block_seqno <= ${w} AND workchain = 0 ${blockOrder} LIMIT 0, 10`);
  const blockKeys = (db: string) => `SELECT workchain, shard, seqno FROM ${db}.blocks WHERE mc_block_seqno <= ${w} AND workchain = 0 ${blockOrder} LIMIT 1 BY workchain, shard, seqno LIMIT 0, 10`;
  add('blocks_wc0', 'keys first, then records LIMIT 1 BY', true, (db) => `SELECT record FROM ${db}.blocks WHERE (workchain, shard, seqno) IN (${blockKeys(db)}) ${blockOrder} LIMIT 1 BY workchain, shard, seqno`);
  add('blocks_wc0', 'keys first, then records FINAL', true, (db) => `SELECT record FROM ${db}.blocks FINAL WHERE (workchain, shard, seqno) IN (${blockKeys(db)}) ${blockOrder}`);
  // /masterchainInfo: the oldest indexed masterchain block (the costlier of its two queries).
  add('mc_first', 'reference: FINAL, ORDER BY seqno LIMIT 1', true, (db) => `SELECT record FROM ${db}.blocks FINAL WHERE workchain = -1 AND seqno <= ${w} ORDER BY seqno ASC LIMIT 1`);
  add(
    'mc_first',
    'min(seqno) first, then the record by full key',
    true,
    (db) =>
      `SELECT record FROM ${db}.blocks WHERE workchain = -1 AND shard = ${MC_SHARD} AND seqno = (SELECT min(seqno) FROM ${db}.blocks WHERE workchain = -1 AND shard = ${MC_SHARD} AND seqno <= ${w}) LIMIT 1`,
  );
  return out.filter((c) => !ONLY_GROUPS || ONLY_GROUPS.includes(c.group));
}

/** Fields of a message row that tell its side (in/out) apart: /messages serves neither. */
const SIDE_FIELDS = ['direction', 'tx_hash', 'tx_lt', 'mc_block_seqno'];

/**
 * Answers of one SQL as comparable text (sorted unless the order is part of the answer). A message
 * record is compared without its side's fields: /messages takes any side's record of a hash.
 */
async function answer(store: Store, sql: string, ordered: boolean): Promise<string> {
  const rows = (await store.query<Record<string, unknown>>(sql)).map((r) => {
    if (!('in_tx' in r) || typeof r.record !== 'string') return JSON.stringify(r);
    const record = JSON.parse(r.record) as Record<string, unknown>;
    for (const f of SIDE_FIELDS) delete record[f];
    return JSON.stringify({ ...r, record });
  });
  return JSON.stringify(ordered ? rows : rows.sort());
}

async function main(): Promise<void> {
  const data = await ensureDataset(CLICKHOUSE_URL, SOURCE, log);
  const store = createStore({ url: CLICKHOUSE_URL, database: SOURCE, requestTimeoutMs: 3_600_000 });
  for (const g of GRANULARITIES) await prepare(store, g);
  const targets = await sampleTargets(store, data.watermark);
  const all = cases(data.watermark);

  // Correctness: same answers as the group's reference for the same targets. The time of each answer
  // (one query alone) is kept: a case far slower than SLOW_MS is not put under load, where it would
  // only queue up on the shared server.
  const wrong = new Set<Case>();
  const alone = new Map<Case, number[]>();
  const timed = async (c: Case, t: Targets) => {
    const t0 = performance.now();
    const a = await answer(store, c.sql(t), c.ordered);
    alone.set(c, [...(alone.get(c) ?? []), performance.now() - t0]);
    return a;
  };
  for (let i = 0; i < CHECKS; i++) {
    const t: Targets = {
      accounts: [pick(targets.accounts)],
      accountSets: [pick(targets.accountSets)],
      mcSeqnos: [pick(targets.mcSeqnos)],
      messageHashes: [pick(targets.messageHashes)],
      txMessages: [pick(targets.txMessages)],
    };
    for (const group of new Set(all.map((c) => c.group))) {
      const inGroup = all.filter((c) => c.group === group);
      const expected = await timed(inGroup[0], t);
      for (const c of inGroup.slice(1)) if ((await timed(c, t)) !== expected) wrong.add(c);
    }
  }
  for (const c of wrong) log(`WRONG: ${c.group} / ${c.name} @${c.g}`);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // The slowest answer, not the median: a few busy accounts are what saturates the server.
  const tooSlow = (c: Case) => Math.max(...(alone.get(c) ?? [0])) > SLOW_MS;

  const url = new URL(CLICKHOUSE_URL);
  const path = `${url.pathname.replace(/\/$/, '')}/?wait_end_of_query=1&max_execution_time=${LOADED_QUERY_LIMIT_S}&output_format_json_quote_64bit_integers=1`;
  const results = new Map<Case, LoadResult[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of all) {
      if (wrong.has(c) || tooSlow(c)) continue;
      const sqls = Array.from({ length: 1000 }, () => `${c.sql(targets)} FORMAT JSONEachRow`);
      const r = await runLoad(url.origin, () => ({ path, method: 'POST', body: pick(sqls) }), LOAD);
      results.set(c, [...(results.get(c) ?? []), r]);
      log(`round ${round} ${c.group} / ${c.name} @${c.g}: ${r.rps} rps, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms${r.non_2xx + r.errors > 0 ? `, FAILED ${r.first_failure}` : ''}`);
    }
  }
  const report = all.map((c) => {
    const rs = results.get(c) ?? [];
    return {
      group: c.group,
      name: c.name,
      granularity: c.g,
      correct: !wrong.has(c),
      alone_p50_ms: Math.round(median(alone.get(c) ?? [NaN]) * 10) / 10,
      alone_max_ms: Math.round(Math.max(...(alone.get(c) ?? [NaN])) * 10) / 10,
      loaded: !wrong.has(c) && !tooSlow(c),
      rps: median(rs.map((r) => r.rps)),
      p50_ms: median(rs.map((r) => r.p50_ms)),
      p99_ms: median(rs.map((r) => r.p99_ms)),
      rounds: rs.map((r) => ({ rps: r.rps, p50_ms: r.p50_ms, p99_ms: r.p99_ms, failed: r.non_2xx + r.errors })),
    };
  });
  process.stdout.write(JSON.stringify({ bench: 'api-table-design', load_generator: loadGenerator(), connections: LOAD.connections, seconds: LOAD.seconds, rounds: ROUNDS, parts: PARTS, cases: report, loadavg_1m: loadavg()[0] }) + '\n');
  await store.close();
  await data.store.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
