/**
 * Upgrade in place (issue 26, item 5): an index written by the schema before issue 26 (migration 17 and
 * its writer) and then upgraded by the migrations answers every store-backed v3 endpoint and every
 * index-backed v2 method exactly as an index written by today's writer from the start. Both hold the
 * same records: the local chain's blocks with their states, token traffic, traces and actions, and the
 * recorded mainnet traces.
 */
import { randomBytes } from 'node:crypto';
import { createStore, migrate, MIGRATIONS, recordBatch, type RecordBatch, saveTracesWatermark, saveWatermark, str, type Store, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, getJson, type JsonAnswer, startApi } from './api-server.js';
import { localnetData, mainnetTraceData } from './chdb-localnet-data.js';
import { rpc } from './api-v2-stack.js';
import { V2_METHODS } from '../../services/api/src/v2/index.js';
import { V3_ENDPOINTS } from '../../services/api/src/v3/index.js';
import { writeSchema17Batch } from '../support/schema17-writer.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const ROUNDS = 8;
/** The release before issue 26 changed what is stored. */
const PREVIOUS_SCHEMA = 17;

/** Endpoints that do not read the index (node calls, the decoder, Redis), so no schema can change them. */
const NOT_STORE_BACKED = new Set(['/decode', '/estimateFee', '/runGetMethod', '/message', '/pendingTraces', '/pendingActions', '/pendingTransactions']);
/** Endpoints whose tables the local chain's traffic leaves empty here (their answers are still compared). */
const EMPTY_HERE = new Set(['/dns/records', '/multisig/wallets', '/multisig/orders', '/vesting', '/nft/sales', '/jetton/burns']);

let fresh: ApiUnderTest;
let upgraded: ApiUnderTest;

async function firstRow<T>(store: Store, sql: string): Promise<T> {
  const rows = await store.query<T>(sql);
  if (rows.length === 0) throw new Error(`no row for ${sql}`);
  return rows[0];
}

/** The basechain account with the most transactions (raw form). */
async function busiestAccount(store: Store): Promise<string> {
  const row = await firstRow<{ account: string }>(store, `SELECT account FROM ${store.database}.transactions WHERE workchain = 0 GROUP BY account ORDER BY count() DESC, account LIMIT 1`);
  return row.account;
}

/** Request paths per endpoint, their parameters drawn from the stored data. */
async function casesOf(store: Store, mcSeqno: number): Promise<Record<string, string[]>> {
  const db = store.database;
  const q = encodeURIComponent;
  const one = <T,>(sql: string) => firstRow<T>(store, sql);
  const account = await busiestAccount(store);
  const tx = await one<{ hash: string; in_msg_hash: string }>(`SELECT hash, in_msg_hash FROM ${db}.transactions WHERE account = ${str(account)} AND in_msg_hash != '' ORDER BY lt DESC LIMIT 1`);
  const message = await one<{ hash: string; body_hash: string; op: string }>(`SELECT hash, body_hash, concat('0x', lower(hex(toUInt32(opcode)))) AS op FROM ${db}.messages WHERE opcode > 0 ORDER BY created_lt DESC, hash LIMIT 1`);
  const master = await one<{ address: string }>(`SELECT address FROM ${db}.jetton_masters ORDER BY address LIMIT 1`);
  const wallet = await one<{ address: string; owner: string }>(`SELECT address, owner FROM ${db}.jetton_wallets WHERE jetton = ${str(master.address)} ORDER BY address LIMIT 1`);
  const collection = await one<{ address: string }>(`SELECT address FROM ${db}.nft_collections ORDER BY address LIMIT 1`);
  const action = await one<{ trace_id: string; action_id: string; tx: string }>(`SELECT trace_id, action_id, tx_hashes[1] AS tx FROM ${db}.actions WHERE type = 'jetton_transfer' ORDER BY trace_id, action_id LIMIT 1`);
  const a = q(account);
  return {
    '/masterchainInfo': [''],
    '/blocks': ['workchain=0&limit=30', `mc_seqno=${mcSeqno}`, 'sort=asc&limit=10'],
    '/masterchainBlockShardState': [`seqno=${mcSeqno}`],
    '/masterchainBlockShards': [`seqno=${mcSeqno}`],
    '/transactions': [`account=${a}&limit=100`, `hash=${q(tx.hash)}`, 'limit=200&sort=asc', `mc_seqno=${mcSeqno}`],
    '/transactionsByMasterchainBlock': [`seqno=${mcSeqno}&limit=100`],
    '/transactionsByMessage': [`msg_hash=${q(tx.in_msg_hash)}`, `body_hash=${q(message.body_hash)}`, `opcode=${message.op}&limit=50`],
    '/adjacentTransactions': [`hash=${q(tx.hash)}`],
    '/messages': [`msg_hash=${q(message.hash)}`, `body_hash=${q(message.body_hash)}`, `opcode=${message.op}&limit=50`, `source=${a}&limit=50`, `destination=${a}&limit=50`, 'limit=100'],
    '/accountStates': [`address=${a}`, `address=${q(wallet.address)}&include_boc=false`],
    '/walletStates': [`address=${q(wallet.owner)}`, `address=${a}`],
    '/addressBook': [`address=${a}&address=${q(wallet.address)}`],
    '/metadata': [`address=${q(master.address)}`],
    '/topAccountsByBalance': ['limit=50'],
    '/jetton/masters': ['limit=50', `address=${q(master.address)}`],
    '/jetton/wallets': [`jetton_address=${q(master.address)}&limit=100`, `owner_address=${q(wallet.owner)}`, `address=${q(wallet.address)}`],
    '/jetton/transfers': [`jetton_master=${q(master.address)}&limit=100`, `owner_address=${q(wallet.owner)}`, `jetton_wallet=${q(wallet.address)}`],
    '/jetton/burns': [`jetton_master=${q(master.address)}`, 'limit=50'],
    '/nft/collections': ['limit=50', `collection_address=${q(collection.address)}`],
    '/nft/items': [`collection_address=${q(collection.address)}&limit=100`],
    '/nft/transfers': [`collection_address=${q(collection.address)}&limit=100`],
    '/nft/sales': [`address=${a}`],
    '/dns/records': [`wallet=${a}`],
    '/multisig/wallets': [`address=${a}`],
    '/multisig/orders': [`address=${a}`],
    '/vesting': [`contract_address=${a}`],
    '/traces': [`account=${a}&limit=50`, `tx_hash=${q(action.tx)}`, `trace_id=${q(action.trace_id)}&include_actions=true`, `msg_hash=${q(tx.in_msg_hash)}`, 'limit=100'],
    '/events': [`account=${a}&limit=20`],
    '/actions': [`account=${a}&limit=100`, `tx_hash=${q(action.tx)}`, `trace_id=${q(action.trace_id)}`, `action_id=${q(action.action_id)}`, 'limit=200&action_type=jetton_transfer'],
    '/addressInformation': [`address=${a}`],
    '/account': [`address=${a}`],
    '/walletInformation': [`address=${q(wallet.owner)}`],
    '/wallet': [`address=${q(wallet.owner)}`],
  };
}

/** Parameters per index-backed v2 method (as a GET query and as jsonRPC `params`), drawn from the stored data. */
async function v2CasesOf(store: Store, mcSeqno: number): Promise<Record<string, Record<string, string>[]>> {
  const db = store.database;
  const account = await busiestAccount(store);
  const history = await store.query<{ lt: string; hash: string }>(`SELECT toString(lt) AS lt, hash FROM ${db}.transactions WHERE account = ${str(account)} ORDER BY lt DESC`);
  if (history.length < 3) throw new Error(`${account} has ${history.length} transactions: too few to page`);
  const middle = history[Math.floor(history.length / 2)];
  // The basechain block with the most transactions, its shard as v2 takes it (signed int64).
  const block = await firstRow<{ shard: string; seqno: number; root_hash: string; file_hash: string; n: string }>(
    store,
    `SELECT toString(toInt64(t.shard)) AS shard, t.block_seqno AS seqno, any(b.root_hash) AS root_hash, any(b.file_hash) AS file_hash, count() AS n
     FROM ${db}.transactions AS t INNER JOIN ${db}.blocks AS b ON b.workchain = t.workchain AND b.shard = t.shard AND b.seqno = t.block_seqno
     WHERE t.workchain = 0 GROUP BY t.shard, t.block_seqno ORDER BY n DESC, seqno LIMIT 1`,
  );
  if (Number(block.n) < 3) throw new Error(`block (0,${block.shard},${block.seqno}) holds ${block.n} transactions: too few to page`);
  // The block's first transaction in v2's order (account id, then lt): the paging cursor.
  const first = await firstRow<{ account: string; lt: string }>(
    store,
    `SELECT account, toString(lt) AS lt FROM ${db}.transactions WHERE workchain = 0 AND toInt64(shard) = ${block.shard} AND block_seqno = ${block.seqno}
     ORDER BY lower(substring(account, position(account, ':') + 1)), lt LIMIT 1`,
  );
  const master = await firstRow<{ seqno: number }>(store, `SELECT seqno FROM ${db}.blocks WHERE workchain = -1 AND seqno >= ${mcSeqno} AND tx_count > 0 ORDER BY seqno LIMIT 1`);
  // An internal message between two indexed transactions: its sender's (out) and its receiver's (in).
  const message = await firstRow<{ source: string; destination: string; created_lt: string }>(
    store,
    `SELECT source, destination, toString(created_lt) AS created_lt FROM ${db}.messages WHERE source != '' AND destination != ''
     GROUP BY hash, source, destination, created_lt HAVING uniqExact(direction) = 2 ORDER BY created_lt DESC, hash LIMIT 1`,
  );
  const historyCases: Record<string, string>[] = [
    { address: account, limit: '10' },
    { address: account, limit: '1000' },
    { address: account, lt: middle.lt, hash: middle.hash, limit: '5' },
    { address: account, to_lt: middle.lt, limit: '50' },
  ];
  const shardBlock = { workchain: '0', shard: block.shard, seqno: String(block.seqno) };
  const blockCases: Record<string, string>[] = [
    shardBlock,
    { ...shardBlock, root_hash: block.root_hash, file_hash: block.file_hash, count: '2' },
    { ...shardBlock, after_lt: first.lt, after_hash: first.account.split(':')[1], count: '2' },
    { workchain: '-1', shard: '-9223372036854775808', seqno: String(master.seqno) },
  ];
  const locate = [message];
  return {
    getTransactions: historyCases,
    getTransactionsStd: historyCases,
    getBlockTransactions: blockCases,
    getBlockTransactionsExt: blockCases,
    tryLocateTx: locate,
    tryLocateResultTx: locate,
    tryLocateSourceTx: locate,
  };
}

/** A v2 result with data: a non-empty list, a block's non-empty transactions, or one transaction. */
function v2HoldsData(result: unknown): boolean {
  if (Array.isArray(result)) return result.length > 0;
  if (result === null || typeof result !== 'object') return false;
  const r = result as { transactions?: unknown[]; transaction_id?: unknown };
  return r.transactions ? r.transactions.length > 0 : r.transaction_id !== undefined;
}

/** Transactions in a v2 result whose raw BoC (`data`) is empty: the index did not hold it. */
function withoutBoc(result: unknown): string[] {
  if (Array.isArray(result)) return result.flatMap(withoutBoc);
  if (result === null || typeof result !== 'object') return [];
  const r = result as { data?: unknown; transaction_id?: { hash: string }; transactions?: unknown[] };
  if (r.transactions) return withoutBoc(r.transactions);
  return r.transaction_id && r.data === '' ? [r.transaction_id.hash] : [];
}

/** True when the answer holds some data: a non-empty list or object anywhere but the side objects. */
function holdsData(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0;
  if (body === null || typeof body !== 'object') return body !== undefined;
  return Object.entries(body).some(([k, v]) => k !== 'address_book' && k !== 'metadata' && (typeof v !== 'object' || holdsData(v)));
}

describe('an index written by the previous schema and upgraded in place', () => {
  let mcSeqno = 0;
  let cases: Record<string, string[]> = {};
  let v2Cases: Record<string, Record<string, string>[]> = {};

  beforeAll(async () => {
    const local = await localnetData('tonstream-upgrade', ROUNDS);
    const recorded = mainnetTraceData();
    const batches: RecordBatch[] = [...local.batches, recordBatch({ traces: [...local.traces, ...recorded.traces], actions: [...local.actions, ...recorded.actions] })];
    const last = Math.max(...local.mcSeqnos);
    const genUtime = Math.max(...local.batches.flatMap((b) => b.blocks.map((x) => Number(x.record.gen_utime))));

    fresh = await startApi(CLICKHOUSE_URL, `tonstream_fresh_${randomBytes(4).toString('hex')}`);
    for (const batch of batches) await writeBatch(fresh.store, batch);

    // The previous release: its schema, its writer; then today's API starts on it, which migrates.
    const database = `tonstream_upgraded_${randomBytes(4).toString('hex')}`;
    const previous = createStore({ url: CLICKHOUSE_URL, database });
    expect((await migrate(previous, MIGRATIONS.filter((m) => m.version <= PREVIOUS_SCHEMA))).current).toBe(PREVIOUS_SCHEMA);
    for (const batch of batches) await writeSchema17Batch(previous, batch);
    await previous.close();
    upgraded = await startApi(CLICKHOUSE_URL, database);

    for (const api of [fresh, upgraded]) {
      await saveWatermark(api.store, { mc_seqno: last, gen_utime: genUtime });
      await saveTracesWatermark(api.store, { mc_seqno: last });
    }
    mcSeqno = local.mcSeqnos[Math.floor(local.mcSeqnos.length / 2)];
    cases = await casesOf(fresh.store, mcSeqno);
    v2Cases = await v2CasesOf(fresh.store, mcSeqno);
  }, 600_000);

  afterAll(async () => {
    await fresh?.stop();
    await upgraded?.stop();
  });

  it('has cases for every store-backed v3 endpoint (a new endpoint fails here until it has some)', () => {
    const served = V3_ENDPOINTS.map((e) => e.path).filter((p) => !NOT_STORE_BACKED.has(p));
    expect(Object.keys(cases).sort()).toEqual([...new Set(served)].sort());
  });

  it('answers every case as the index written by today\'s writer does', async () => {
    const differing: string[] = [];
    const withData = new Set<string>();
    const refused: string[] = [];
    for (const [path, queries] of Object.entries(cases)) {
      for (const query of queries) {
        const url = `/api/v3${path}${query ? `?${query}` : ''}`;
        const [want, got]: JsonAnswer[] = await Promise.all([getJson(fresh.base, url), getJson(upgraded.base, url)]);
        if (want.status !== 200) refused.push(`${url}: ${want.status} ${JSON.stringify(want.body).slice(0, 300)}`);
        if (holdsData(want.body)) withData.add(path);
        if (got.status !== want.status || JSON.stringify(got.body) !== JSON.stringify(want.body)) {
          differing.push(`${url}: ${got.status} ${JSON.stringify(got.body).slice(0, 400)}\n  want ${want.status} ${JSON.stringify(want.body).slice(0, 400)}`);
        }
      }
    }
    expect(refused).toEqual([]);
    expect(differing).toEqual([]);
    // The comparison means something: every endpoint but those the local traffic leaves empty answered data.
    expect(Object.keys(cases).filter((p) => !withData.has(p) && !EMPTY_HERE.has(p))).toEqual([]);
  });

  it('has cases for every v2 method that reads the index (a new one fails here until it has some)', () => {
    const indexed = V2_METHODS.filter((m) => m.source === 'index' || m.source === 'index+liteserver').map((m) => m.name);
    expect(Object.keys(v2Cases).sort()).toEqual(indexed.sort());
  });

  it('answers every v2 case, over GET and jsonRPC, as the index written by today\'s writer does', async () => {
    // `@extra` is the answer's own time and duration; the rest of the envelope is the answer.
    const answerOf = ({ '@extra': _extra, ...rest }: Record<string, unknown>) => rest;
    const differing: string[] = [];
    const refused: string[] = [];
    const noBoc: string[] = [];
    for (const [method, list] of Object.entries(v2Cases)) {
      for (const params of list) {
        const url = `/api/v2/${method}?${new URLSearchParams(params).toString()}`;
        const asked = [
          { via: `GET ${url}`, run: (base: string) => getJson(base, url) },
          { via: `jsonRPC ${method} ${JSON.stringify(params)}`, run: (base: string) => rpc(base, method, params) },
        ];
        for (const { via, run } of asked) {
          const [want, got] = await Promise.all([run(fresh.base), run(upgraded.base)]);
          if (want.status !== 200 || want.body.ok !== true || !v2HoldsData(want.body.result)) refused.push(`${via}: ${want.status} ${JSON.stringify(want.body).slice(0, 300)}`);
          noBoc.push(...withoutBoc(want.body.result).map((hash) => `${via}: ${hash}`));
          const [w, g] = [JSON.stringify(answerOf(want.body)), JSON.stringify(answerOf(got.body))];
          if (got.status !== want.status || g !== w) differing.push(`${via}: ${got.status} ${g.slice(0, 400)}\n  want ${want.status} ${w.slice(0, 400)}`);
        }
      }
    }
    expect(refused).toEqual([]);
    // Every BoC came from the index: the API here has no liteserver to fill one in.
    expect(noBoc).toEqual([]);
    expect(differing).toEqual([]);
  });
});
