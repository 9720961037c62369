import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Address, beginCell, external, internal, SendMode, storeMessage, storeShardAccount } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { Blockchain, createShardAccount, Executor } from '@ton/sandbox';
import { WalletContractV4 } from '@ton/ton';
import { classifyTrace } from '@tonstream/actions';
import { classifyPending, type ChainState, createTraceEmulator, pendingTrace, type PendingTraceResult, type PendingAction } from '@tonstream/emulation';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { removeConfirmedTraces } from '@tonstream/emulator-service';
import { deletePendingTrace, hasPendingTrace, putPendingTrace, recordBatch, saveTracesWatermark, saveWatermark, sweepExpiredTraces, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { connectPendingRedis } from '../../services/api/src/pending-redis.js';
import { type ApiUnderTest, getJson, okJson, startApi } from './api-server.js';
import { raw } from '../support/ledger.js';

/**
 * The pending endpoints over the Redis layout, with a trace the emulator made of a real wallet v4
 * transfer (sandbox state) and the classifier's actions: what each endpoint finds by account, by
 * normalized and raw hash, the atomic delete, the emulator removing confirmed traces, expiry, and Redis down (503).
 */
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const NOW = Math.floor(Date.now() / 1000);
let api: ApiUnderTest;
let emulated: PendingTraceResult;
let actions: PendingAction[];
let wallet: Address;
let receiver: Address;
let externalHash: string;


async function scanKeys(prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await api.pending.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, `tonstream_pending_${randomBytes(4).toString('hex')}`);
  const bc = await Blockchain.create();
  bc.now = NOW;
  const keys = keyPairFromSeed(randomBytes(32));
  const w = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  await bc.setShardAccount(w.address, createShardAccount({ address: w.address, code: w.init.code, data: w.init.data, balance: 50n * 10n ** 9n, workchain: 0 }));
  wallet = w.address;
  receiver = Address.parseRaw(`0:${randomBytes(32).toString('hex')}`);
  const body = w.createTransfer({ seqno: 0, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages: [internal({ to: receiver, value: 2n * 10n ** 9n, bounce: false, body: 'hello' })] });
  const boc = beginCell().store(storeMessage(external({ to: w.address, body }))).endCell().toBoc();
  const state: ChainState = {
    head: async () => ({ seqno: 50, shard: '8000000000000000', rootHash: '', fileHash: '', utime: NOW - 1 }),
    account: async (_h, a) => ({ shardAccount: beginCell().store(storeShardAccount((await bc.getContract(Address.parseRaw(a))).account)).endCell().toBoc().toString('base64'), shardBlock: { workchain: 0, shard: '8000000000000000', seqno: 9 } }),
    config: async () => bc.configBase64,
    libraries: async () => new Map(),
  };
  const outcome = await createTraceEmulator({ state, executor: await Executor.create() }).emulate(boc);
  if (outcome.kind !== 'emulated') throw new Error(`rejected: ${outcome.reason}`);
  externalHash = outcome.external.hash;
  emulated = pendingTrace(outcome);
  actions = classifyPending(emulated, (t, lookup) => classifyTrace(t, lookup));
  await putPendingTrace(api.pending.redis, api.pending.keys, { ...emulated, actions }, 60_000);
}, 60_000);

afterAll(async () => {
  for (const k of await scanKeys(api.pending.keys.prefix)) await api.pending.redis.del(k);
  await api.stop();
});

describe('pending endpoints over Redis', () => {
  it('/pendingTraces finds the trace by account, by normalized hash and by raw hash', async () => {
    const byAccount = await okJson<{ traces: Record<string, unknown>[] }>(api.base, `/api/v3/pendingTraces?account=${raw(receiver)}`);
    const byNorm = await okJson<{ traces: Record<string, unknown>[] }>(api.base, `/api/v3/pendingTraces?ext_msg_hash=${encodeURIComponent(emulated.trace.external_hash_norm)}`);
    const byRaw = await okJson<{ traces: Record<string, unknown>[] }>(api.base, `/api/v3/pendingTraces?ext_msg_hash=${encodeURIComponent(externalHash)}`);
    for (const body of [byAccount, byNorm, byRaw]) {
      expect(body.traces).toHaveLength(1);
      const t = body.traces[0] as { trace_id: null; external_hash: string; trace_info: { trace_state: string; transactions: number }; transactions: Record<string, { emulated: boolean; finality: string; account: string }>; actions: { type: string; finality: string; trace_external_hash_norm: string }[]; trace: { children: unknown[] } };
      expect(t.trace_id).toBeNull();
      expect(t.external_hash).toBe(externalHash);
      expect(t.trace_info).toMatchObject({ trace_state: 'pending', transactions: 2 });
      expect(Object.values(t.transactions).map((x) => [x.account, x.emulated, x.finality])).toEqual([
        [raw(wallet), true, 'pending'],
        [raw(receiver), true, 'pending'],
      ]);
      expect(t.trace.children).toHaveLength(1);
      // The classifier sees a TON transfer with a comment.
      expect(t.actions.map((a) => [a.type, a.finality, a.trace_external_hash_norm])).toEqual([['ton_transfer', 'pending', emulated.trace.external_hash_norm]]);
    }
  });

  it('/pendingActions by account lists the transfer with its parties and amount; /pendingTransactions the emulated transactions', async () => {
    const body = await okJson<{ actions: { type: string; details: Record<string, unknown>; accounts: string[]; trace_id: null }[] }>(api.base, `/api/v3/pendingActions?account=${raw(wallet)}&include_transactions=true`);
    expect(body.actions).toHaveLength(1);
    expect(body.actions[0]).toMatchObject({ type: 'ton_transfer', trace_id: null, details: { source: raw(wallet), destination: raw(receiver), value: '2000000000', comment: 'hello' } });
    const txs = await okJson<{ transactions: { hash: string; in_msg: { hash: string } }[] }>(api.base, `/api/v3/pendingTransactions?account=${raw(wallet)}`);
    expect(txs.transactions.map((t) => t.in_msg.hash)).toEqual([externalHash]);
    expect((await getJson(api.base, `/api/v3/pendingTransactions?account=0:${'12'.repeat(32)}`)).status).toBe(404);
  });

  it('answers 422 naming what is missing', async () => {
    const r = await getJson(api.base, '/api/v3/pendingTraces');
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/account or ext_msg_hash/);
    expect((await getJson(api.base, '/api/v3/pendingTransactions')).status).toBe(422);
    expect((await getJson(api.base, '/api/v3/pendingActions?ext_msg_hash=zz')).status).toBe(422);
  });

  it('answers 503 with a clear error while Redis is unreachable', async () => {
    const store = api.store;
    const pending = connectPendingRedis('redis://127.0.0.1:1', 'x:');
    const server = createApiServer(createApp({ store, registry: createRegistry('api'), logger: createLogger({ level: 'error' }), pending, checkResponses: 'reject' })).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of [`/api/v3/pendingTraces?account=${raw(wallet)}`, `/api/v3/pendingActions?account=${raw(wallet)}`, `/api/v3/pendingTransactions?account=${raw(wallet)}`]) {
        const r = await getJson(base, path);
        expect(r.status, path).toBe(503);
        expect(r.body.error).toMatch(/pending traces unavailable: Redis unreachable/);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      pending.redis.disconnect();
    }
  });

  it('deletePendingTrace() removes the trace and every index entry at once; the endpoints then find nothing', async () => {
    const keysBefore = await scanKeys(api.pending.keys.prefix);
    expect(keysBefore.length).toBeGreaterThan(4);
    // The tracer knows the confirmed trace's raw external hash at least: that suffices.
    expect(await deletePendingTrace(api.pending.redis, api.pending.keys, externalHash)).toBe(true);
    expect(await scanKeys(api.pending.keys.prefix)).toEqual([]);
    const body = await okJson<{ traces: unknown[] }>(api.base, `/api/v3/pendingTraces?account=${raw(wallet)}`);
    expect(body.traces).toEqual([]);
    expect(await deletePendingTrace(api.pending.redis, api.pending.keys, emulated.trace.external_hash_norm)).toBe(false);
  });

  it('sweepExpiredTraces() removes only traces past their expiry and names them', async () => {
    const t0 = Date.now();
    await putPendingTrace(api.pending.redis, api.pending.keys, { ...emulated, actions }, 5_000, t0);
    expect(await sweepExpiredTraces(api.pending.redis, api.pending.keys, t0 + 4_999)).toEqual([]);
    expect(await sweepExpiredTraces(api.pending.redis, api.pending.keys, t0 + 5_000)).toEqual([emulated.trace.external_hash_norm]);
    expect(await scanKeys(api.pending.keys.prefix)).toEqual([]);
  });

  it('hides a pending trace once the index holds its confirmed trace complete; the emulator then removes it', async () => {
    await putPendingTrace(api.pending.redis, api.pending.keys, { ...emulated, actions }, 60_000);
    const path = `/api/v3/pendingTraces?account=${raw(wallet)}`;
    expect((await okJson<{ traces: unknown[] }>(api.base, path)).traces).toHaveLength(1);
    // The chain's version of the root transaction, as the pipeline stores it: same external, a trace of its own.
    const { trace_id: _t, trace_external_hash: _h, trace_external_hash_norm: _n, emulated: _e, finality: _f, ...root } = emulated.transactions[0];
    const tx = { ...root, mc_block_seqno: 1 };
    const node = { tx_hash: tx.hash, account: tx.account, lt: tx.lt, in_msg_hash: externalHash, parent: null, out_msgs: tx.out_msgs.length };
    const trace = {
      trace_id: tx.hash, external_hash: externalHash, external_hash_norm: emulated.trace.external_hash_norm, mc_seqno_start: 1, mc_seqno_end: 1,
      start_lt: tx.lt, start_utime: tx.now, end_lt: tx.lt, end_utime: tx.now, is_incomplete: false, nodes: [node],
      trace_info: { trace_state: 'complete' as const, messages: 1, transactions: 1, pending_messages: 0, classification_state: 'ok' as const },
    };
    // Not confirmed yet: the emulator's pass leaves it.
    expect(await removeConfirmedTraces(api.pending.redis, api.pending.keys, api.store)).toEqual([]);
    await writeBatch(api.store, recordBatch({ transactions: [tx], messages: [{ ...tx.in_msg!, direction: 'in', tx_hash: tx.hash, tx_lt: tx.lt, mc_block_seqno: 1 }], traces: [trace] }));
    await saveWatermark(api.store, { mc_seqno: 1, gen_utime: tx.now });
    await saveTracesWatermark(api.store, { mc_seqno: 1 });
    // The API reads the watermark at most every 250 ms.
    await new Promise((r) => setTimeout(r, 600));
    expect((await okJson<{ traces: unknown[] }>(api.base, path)).traces).toEqual([]);
    expect((await okJson<{ actions: unknown[] }>(api.base, `/api/v3/pendingActions?account=${raw(wallet)}`)).actions).toEqual([]);
    expect((await getJson(api.base, `/api/v3/pendingTransactions?account=${raw(wallet)}`)).status).toBe(404);
    expect(await hasPendingTrace(api.pending.redis, api.pending.keys, emulated.trace.external_hash_norm)).toBe(true);
    // The emulator's pass removes it now that the index serves the confirmed trace, so the TTL sweep never counts it.
    expect(await removeConfirmedTraces(api.pending.redis, api.pending.keys, api.store)).toEqual([emulated.trace.external_hash_norm]);
    expect(await hasPendingTrace(api.pending.redis, api.pending.keys, emulated.trace.external_hash_norm)).toBe(false);
    expect(await scanKeys(api.pending.keys.prefix)).toEqual([]);
  });
});
