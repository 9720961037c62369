/**
 * The hot tier (issue 27) answers what ClickHouse answers, on the real Redis and ClickHouse. Data: a
 * local chain's token traffic (Jetton and NFT mints, transfers, burns) decoded block by block as the
 * pipeline does, plus DNS items, multisig and sale contracts (contract-states.ts), each batch written
 * as the writer writes it (rows, then the tier, then receipts). Compared, at every masterchain seqno
 * of the chain as the watermark (so the tier also holds states above it, as when a writer was killed
 * after writing a batch and before its receipts): the reads the tier serves, then the API's answers
 * with and without it. The transaction slice the same way: transactions by hash, by account and by
 * masterchain block, their state summaries and trace ids (the tracer's traces written as the writer
 * writes them), first as the writer fills it (lists not known complete), then after a rebuild over the
 * whole index (every list complete). And the tier is not used when it cannot be trusted: a failed write
 * (a break), a Redis restarted since the build, Redis down (ClickHouse answers, no error).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLogger, createRegistry } from '@tonstream/runtime';
import {
  connectHotTier, createStore, hotGate, hotKeys, type HotTier, hotTierProblem, initHotTier, masterchainBlockIndexed, migrate, readAccountStates, readAccountStatesByHash, readAddressFacts,
  readCodeHashes, readDnsDomains, readHotStates, readMessages, readTokenAddresses, readTransactions, readTransactionTraceIds, rebuildHotTier, rebuildHotTierOnce, recordBatch, type RecordBatch,
  recordHotBreak, type ReadScope, saveWatermark, type Store, writeBatch, writeHotBatch,
} from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { dropDatabase } from '../support/clickhouse.js';
import { freePort } from '../support/processes.js';
import { raw } from '../support/ledger.js';
import { localnetData } from './chdb-localnet-data.js';
import { contractStates, dnsNamedWallet, dnsWallet, dnsWalletLater } from './contract-states.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const database = `tonstream_hot_${runId}`;
const prefix = `test:hot:${runId}:`;

let store: Store;
let tier: HotTier;
let seqnos: number[];
/** Every account with a state, the DNS wallets, and two strangers. */
let addresses: string[];
/** The chain's transactions: hash, account, masterchain seqno. */
let transactions: { hash: string; account: string; mc: number; lt: bigint }[];
/** The chain's message hashes, and the normalized hashes of its external-in messages. */
let messageHashes: string[];
const closing: (() => Promise<unknown>)[] = [];

const writeAsTheWriter = (batch: RecordBatch) => writeBatch(store, batch, (rows) => writeHotBatch(tier, batch, rows));
/** The chain's blocks are of 2023: a window of decades lets a rebuild load every transaction (the whole index). */
const TX_WINDOW_SECONDS = 30 * 365 * 24 * 3600;

beforeAll(async () => {
  store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
  tier = await connectHotTier(REDIS_URL, { prefix, database, ttlSeconds: 3600, txWindowSeconds: TX_WINDOW_SECONDS });
  closing.push(async () => {
    const keys = await tier.redis.keys(`${prefix}*`);
    if (keys.length > 0) await tier.redis.del(...keys);
    tier.redis.disconnect();
  });
  // The writer's start on an empty index: the tier is complete from the first block.
  expect(await initHotTier(tier, store)).toBe(true);
  const data = await localnetData('hot tier', 8, 2);
  seqnos = data.mcSeqnos;
  for (const batch of data.batches) await writeAsTheWriter(batch);
  await writeAsTheWriter(recordBatch({ traces: data.traces }));
  transactions = data.batches.flatMap((b) => b.transactions.map(({ record: t }) => ({ hash: t.hash, account: t.account, mc: t.mc_block_seqno ?? 0, lt: BigInt(t.lt) })));
  // Every external-in message by its hash and normalized hash, and the first 80 others.
  const messages = data.batches.flatMap((b) => b.messages.map(({ record: m }) => m));
  const normalized = messages.filter((m) => m.hash_norm).flatMap((m) => [m.hash, m.hash_norm as string]);
  messageHashes = [...new Set([...normalized, ...messages.map((m) => m.hash).slice(0, 80)])];
  // DNS items and other contracts at the third seqno, the DNS item's wallet moved at the last.
  await writeAsTheWriter(recordBatch({ accountStates: contractStates(seqnos[2], seqnos[seqnos.length - 1]) }));
  const states = data.batches.flatMap((b) => b.accountStates.map((s) => s.record.account));
  const stranger = (n: number) => `0:${String(n).repeat(64)}`;
  addresses = [...new Set([...states, ...contractStates(0, 0).map((s) => s.account), raw(dnsWallet), raw(dnsWalletLater), raw(dnsNamedWallet), stranger(7), stranger(9)])].sort();
}, 300_000);

afterAll(async () => {
  for (const close of closing.reverse()) await close().catch(() => {});
  await store?.close();
  await dropDatabase(CLICKHOUSE_URL, database);
});

/** The four reads the tier serves and what the address book builds of them, as plain data. */
async function reads(scope: ReadScope) {
  const plain = <V>(m: Map<string, V>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));
  return {
    states: plain(await readAccountStates(store, scope, addresses)),
    codeHashes: plain(await readCodeHashes(store, scope, addresses)),
    tokens: await readTokenAddresses(store, scope, addresses),
    domains: plain(await readDnsDomains(store, scope, addresses)),
    facts: plain(await readAddressFacts(store, scope, addresses)),
  };
}

/** Several hundred independent reads, a few at a time (one after another they took most of the suite's time), keyed as asked. */
async function readAll(asked: [string, () => Promise<unknown>][], atOnce = 8): Promise<Record<string, unknown>> {
  const values: unknown[] = new Array(asked.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < asked.length; i = next++) values[i] = await asked[i][1]();
  };
  await Promise.all(Array.from({ length: atOnce }, lane));
  return Object.fromEntries(asked.map(([key], i) => [key, values[i]]));
}

/**
 * The transaction reads the tier serves, as plain data: by hash (all, in pages), each account's pages
 * both ways, each masterchain block's pages both ways, and what a page joins (state summaries, trace ids).
 */
async function transactionReads(scope: ReadScope) {
  const page = (limit: number, offset: number, sort: 'asc' | 'desc') => ({ limit, offset, sort, order: 'lt' as const });
  const accounts = [...new Set(transactions.map((t) => t.account))].sort();
  const mcSeqnos = [...new Set(transactions.map((t) => t.mc))].sort((a, b) => a - b);
  const hashes = transactions.map((t) => t.hash);
  const asked: [string, () => Promise<unknown>][] = [];
  const ask = (key: string, read: () => Promise<unknown>) => asked.push([key, read]);
  for (const sort of ['asc', 'desc'] as const) {
    ask(`hashes ${sort}`, () => readTransactions(store, scope, { hashes: [...hashes, 'A'.repeat(43) + '='] }, page(1000, 0, sort)));
    ask(`hashes ${sort} page`, () => readTransactions(store, scope, { hashes }, page(7, 3, sort)));
    for (const account of accounts) {
      for (const [limit, offset] of [[3, 0], [3, 2], [1000, 0]]) ask(`${account} ${limit} ${offset} ${sort}`, () => readTransactions(store, scope, { accounts: [account] }, page(limit, offset, sort)));
      // As v2 getTransactions pages: from an lt back, down to a lower bound.
      const lts = transactions.filter((t) => t.account === account).map((t) => t.lt).sort((a, b) => (a < b ? -1 : 1));
      const [endLt, startLt] = [lts[Math.floor(lts.length / 2)], lts[0] + 1n];
      ask(`${account} to ${endLt} ${sort}`, () => readTransactions(store, scope, { accounts: [account], endLt }, page(2, 0, sort)));
      ask(`${account} ${startLt}..${endLt} ${sort}`, () => readTransactions(store, scope, { accounts: [account], startLt, endLt }, page(20, 0, sort)));
    }
    for (const mcSeqno of [...mcSeqnos, mcSeqnos[mcSeqnos.length - 1] + 1]) {
      for (const [limit, offset] of [[2, 0], [3, 1], [1000, 0]]) ask(`mc ${mcSeqno} ${limit} ${offset} ${sort}`, () => readTransactions(store, scope, { mcSeqno }, page(limit, offset, sort)));
      ask(`mc ${mcSeqno} indexed`, () => masterchainBlockIndexed(store, scope, mcSeqno));
    }
  }
  for (const hash of messageHashes) ask(`message ${hash}`, () => readMessages(store, scope, { hashes: [hash] }, { ...page(10, 0, 'desc'), order: 'lt' }));
  ask('messagePage', () => readMessages(store, scope, { hashes: messageHashes.slice(0, 30) }, { ...page(7, 2, 'asc'), order: 'lt' }));
  const out = await readAll(asked);
  const rows = await readTransactions(store, scope, { hashes }, page(1000, 0, 'asc'));
  const wanted = rows.flatMap((t) => [
    { account: t.account, hash: t.account_state_hash_before, lt: t.prev_trans_lt, tx: t.prev_trans_hash },
    { account: t.account, hash: t.account_state_hash_after, lt: t.lt, tx: t.hash },
  ]);
  const plain = <V>(m: Map<string, V>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));
  out.summaries = plain(await readAccountStatesByHash(store, scope, wanted));
  out.traceIds = plain(await readTransactionTraceIds(store, scope, hashes));
  return out;
}

/** How many of the transaction reads the tier answered alone: the same reads, ClickHouse unreachable. */
async function answeredByTheTier(scope: ReadScope): Promise<number> {
  const unreachable = createStore({ url: `http://127.0.0.1:${await freePort()}`, database, requestTimeoutMs: 500 });
  let answered = 0;
  const page = { limit: 3, offset: 0, sort: 'desc' as const, order: 'lt' as const };
  const tries = [
    ...transactions.map((t) => ({ hashes: [t.hash] })),
    ...[...new Set(transactions.map((t) => t.account))].map((account) => ({ accounts: [account] })),
    ...[...new Set(transactions.map((t) => t.mc))].map((mcSeqno) => ({ mcSeqno })),
  ];
  for (const filter of tries) {
    if (await readTransactions(unreachable, scope, filter, page).then(() => true, () => false)) answered++;
  }
  for (const hash of messageHashes) {
    if (await readMessages(unreachable, scope, { hashes: [hash] }, { ...page, order: 'lt' }).then(() => true, () => false)) answered++;
  }
  await unreachable.close();
  return answered;
}

describe('the hot tier', () => {
  it('answers every read as ClickHouse does, at every watermark, also holding states above it', async () => {
    expect(await hotTierProblem(tier, store)).toBeNull();
    for (const watermark of [seqnos[0] - 1, ...seqnos]) {
      const fromClickHouse = await reads({ watermark });
      expect(await reads({ watermark, hot: tier }), `watermark ${watermark}`).toEqual(fromClickHouse);
    }
    // Not vacuous: at the last watermark the tier itself holds every state, there are tokens, domains, and a later DNS wallet.
    const last = seqnos[seqnos.length - 1];
    const { found, missing } = await readHotStates(tier, addresses, last);
    const ch = await reads({ watermark: last });
    expect(found.size).toBe(Object.keys(ch.states).length);
    expect(missing.length).toBe(addresses.length - found.size);
    expect(ch.tokens.length).toBeGreaterThan(5);
    // The address-book rule names a wallet only where the DNS item's owner is that wallet too.
    expect(ch.domains).toEqual({ [raw(dnsNamedWallet)]: 'named.ton' });
    expect((await reads({ watermark: seqnos[1], hot: tier })).domains).toEqual({});
  });

  it('answers the transaction reads as ClickHouse does, at every watermark, as the writer fills it and after a rebuild', async () => {
    const gate = hotGate(tier, store);
    const last = seqnos[seqnos.length - 1];
    expect(transactions.length).toBeGreaterThan(50);
    const compare = async (label: string) => {
      for (const watermark of [seqnos[0] - 1, seqnos[Math.floor(seqnos.length / 2)], last - 1, last]) {
        const hot = await gate.at(watermark);
        expect(hot?.txSince, label).toBeDefined();
        expect(await transactionReads({ watermark, hot }), `${label}, watermark ${watermark}`).toEqual(await transactionReads({ watermark }));
      }
    };
    await compare('as the writer fills it');
    // Not vacuous: by hash, the accounts' newest pages and the blocks' pages came from the tier.
    const filled = await answeredByTheTier({ watermark: last, hot: await gate.at(last) });
    expect(filled).toBeGreaterThan(transactions.length + messageHashes.length / 2);
    const data = await transactionReads({ watermark: last });
    expect(Object.keys(data.traceIds as object).length).toBeGreaterThan(10);
    expect(Object.keys(data.summaries as object).length).toBeGreaterThan(10);
    await rebuildHotTier(store, tier);
    await compare('after a rebuild over the whole index');
    // Every list is complete now: each account's and each block's first page too.
    expect(await answeredByTheTier({ watermark: last, hot: await gate.at(last + 1) })).toBeGreaterThan(filled);
    // Trimmed as a busy account's list is (the oldest go), its oldest transaction expired: what the tier
    // no longer holds is ClickHouse's (that transaction, and the state before the next one).
    const keys = hotKeys(prefix);
    for (const account of new Set(transactions.map((t) => t.account))) {
      await tier.redis.zremrangebyrank(keys.accountTxs(account), 0, 1);
      const [oldest] = transactions.filter((t) => t.account === account).sort((a, b) => (a.lt < b.lt ? -1 : 1));
      await tier.redis.del(keys.tx(oldest.hash));
    }
    expect(await transactionReads({ watermark: last, hot: await gate.at(last + 2) })).toEqual(await transactionReads({ watermark: last }));
  });

  it('gives the API the same answers as ClickHouse alone', async () => {
    const last = seqnos[seqnos.length - 1];
    // One block above the watermark: its transactions are in the tier, not to be served.
    const watermark = seqnos[seqnos.length - 2];
    await saveWatermark(store, { mc_seqno: watermark, gen_utime: 1_690_000_000 });
    const serve = async (hot: boolean) => {
      const app = createApp({ store, registry: createRegistry('api'), logger: createLogger({ level: 'error' }), checkResponses: 'reject', hot: hot ? hotGate(tier, store) : undefined });
      const server = createApiServer(app).listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      closing.push(() => new Promise<void>((r) => server.close(() => r())));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
    };
    const [withTier, without] = await Promise.all([serve(true), serve(false)]);
    const some = (n: number, from: number) => addresses.slice(from, from + n).map((a) => `address=${encodeURIComponent(a)}`).join('&');
    const paths = [
      ...[0, 5, 10, 15].flatMap((i) => [`/accountStates?${some(5, i)}`, `/walletStates?${some(5, i)}`, `/addressBook?${some(5, i)}`, `/metadata?${some(5, i)}`]),
      `/accountStates?${some(3, 0)}&include_boc=false`,
      ...addresses.slice(0, 6).map((a) => `/transactions?account=${encodeURIComponent(a)}&limit=5`),
      ...transactions.slice(0, 40).map((t) => `/transactions?hash=${encodeURIComponent(t.hash)}`),
      ...[...new Set(transactions.map((t) => t.account))].map((a) => `/transactions?account=${encodeURIComponent(a)}&limit=2&offset=1`),
      ...seqnos.map((s) => `/transactionsByMasterchainBlock?seqno=${s}&limit=4&offset=1`),
      ...messageHashes.slice(0, 40).map((h) => `/messages?msg_hash=${encodeURIComponent(h)}`),
      // v2's index-backed history, its first page and the next from an lt.
      ...[...new Set(transactions.map((t) => t.account))].flatMap((a) => {
        const newest = transactions.filter((t) => t.account === a && t.mc <= watermark).sort((x, y) => (x.lt < y.lt ? 1 : -1))[1];
        const from = newest ? `&lt=${newest.lt}&hash=${encodeURIComponent(newest.hash)}` : '';
        return [`/../v2/getTransactions?address=${encodeURIComponent(a)}&limit=3`, `/../v2/getTransactions?address=${encodeURIComponent(a)}&limit=2${from}`];
      }),
      '/jetton/wallets?limit=20',
      '/jetton/masters?limit=5',
      '/nft/items?limit=20',
      '/messages?limit=20',
    ];
    let tierAnswered = 0;
    for (const path of paths) {
      const [a, b] = await Promise.all([withTier, without].map(async (base) => {
        const res = await fetch(new URL(`${base}${path}`));
        // v2's `@extra` is the request's own (its time and duration).
        return { status: res.status, body: (await res.text()).replace(/"@extra":"[^"]*"/, '"@extra":""') };
      }));
      expect(a, path).toEqual(b);
      // The block above the watermark is not indexed yet, from either.
      expect(a.status, path).toBe(path.includes(`seqno=${last}&`) ? 404 : 200);
      if (a.body.includes('"user_friendly"')) tierAnswered++;
    }
    expect(tierAnswered).toBeGreaterThan(paths.length / 2);
  });

  it('is not used after a failed write until it is rebuilt, nor after a Redis restart', async () => {
    const gate = hotGate(tier, store);
    const w = seqnos[seqnos.length - 1];
    expect((await gate.at(w))?.redis).toBe(tier.redis);
    await recordHotBreak(store, tier, 'test: Redis refused the batch');
    expect(await hotTierProblem(tier, store)).toMatch(/failed/);
    // A new watermark is checked again (the same one is rechecked after a few seconds).
    expect(await gate.at(w + 1)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 5)); // a rebuild starts after the break
    // One rebuild at a time (a writer's at start, `npm run hot:rebuild`): a claimed one is left alone.
    await tier.redis.set(`${prefix}rebuilding`, 'another writer', 'PX', 60_000);
    expect(await rebuildHotTierOnce(store, tier)).toBeNull();
    expect(await hotTierProblem(tier, store)).toMatch(/failed/);
    await tier.redis.del(`${prefix}rebuilding`);
    expect(await rebuildHotTierOnce(store, tier)).not.toBeNull();
    expect(await tier.redis.exists(`${prefix}rebuilding`)).toBe(0);
    expect(await hotTierProblem(tier, store)).toBeNull();
    expect((await gate.at(w + 2))?.redis).toBe(tier.redis);
    expect(await reads({ watermark: w, hot: tier })).toEqual(await reads({ watermark: w }));
    // Another run id: what Redis holds may be an older copy of the tier.
    await tier.redis.hset(`${prefix}meta`, 'run_id', 'an earlier run');
    expect(await hotTierProblem(tier, store)).toMatch(/restarted/);
    expect(await gate.at(w + 3)).toBeUndefined();
    await rebuildHotTier(store, tier);
    expect((await gate.at(w + 4))?.redis).toBe(tier.redis);
  });

  it('with Redis down, ClickHouse answers: the same, and no error', async () => {
    const down = await connectHotTier(`redis://127.0.0.1:${await freePort()}`, { prefix, database, ttlSeconds: 3600, txWindowSeconds: TX_WINDOW_SECONDS });
    closing.push(async () => down.redis.disconnect());
    const w = seqnos[seqnos.length - 1];
    expect(await reads({ watermark: w, hot: down })).toEqual(await reads({ watermark: w }));
    expect(await transactionReads({ watermark: w, hot: { ...down, txSince: 0 } })).toEqual(await transactionReads({ watermark: w }));
    expect(await hotGate(down, store).at(w)).toBeUndefined();
  });
});
