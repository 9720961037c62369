/**
 * v2 methods answered from the liteserver, over HTTP (GET, POST and jsonRPC) on the API's own router,
 * against a local chain served by the real liteserver in this process. Oracles: the chain's own state
 * (account states, queued messages) and its blocks decoded with @tonstream/block; toncenter's published
 * schema (toncenter-v2.json: RunGetMethodResult, OutMsgQueueSizes) for the field sets. No Kafka,
 * ClickHouse or index: these methods do not read it.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Address } from '@ton/core';
import { decodeBlock } from '@tonstream/block';
import { createLiteServer, ed25519KeyPairFromSeed, ErrorCode, type LiteServer, LiteErrorAnswer, type LiteServerHandlers } from '@tonstream/liteserver-emulator';
import { type Chain, createChain, createTraffic, type TrafficWallet } from '@tonstream/localnet';
import { createLogger } from '@tonstream/runtime';
import type { Store } from '@tonstream/store';
import express from 'express';
import { LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiteserver, type Liteserver } from '../../services/api/src/chain/liteserver.js';
import { createV2Router } from '../../services/api/src/v2/index.js';
import { createLiteHandlers } from '../../services/localnet/src/lite-handlers.js';

const SEED = 'api-v2-localnet';
type Envelope = { ok: boolean; result?: Record<string, unknown>; error?: string; code?: number; id?: unknown };

/** A liteserver over `chain` with these handlers, and the API's v2 router on it; both on ephemeral ports. */
async function startApi(chain: Chain, handlers: LiteServerHandlers = createLiteHandlers(chain)) {
  const server: LiteServer = await createLiteServer({ port: 0, keyPair: ed25519KeyPairFromSeed(Buffer.alloc(32, 3)), handlers, getMasterchainSeqno: () => chain.head().seqno, logger: createLogger({ write: () => {} }) });
  const engine = new LiteSingleEngine({ host: `tcp://${server.address}:${server.port}`, publicKey: server.publicKey });
  await once(engine, 'connect');
  const lite: Liteserver = createLiteserver(engine);
  const app = express();
  const index = { watermark: async () => null, traces: async () => null, floor: async () => null };
  app.use('/api/v2', createV2Router({ store: {} as Store, index, lite, testnet: false, logger: createLogger({ write: () => {} }) }));
  const http = app.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api/v2`;
  return {
    get: async (method: string, query: Record<string, string> = {}) => {
      const res = await fetch(`${base}/${method}?${new URLSearchParams(query)}`);
      return { status: res.status, body: (await res.json()) as Envelope };
    },
    post: async (path: string, body: unknown) => {
      const res = await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Envelope };
    },
    async stop() {
      engine.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await server.close();
    },
  };
}

let chain: Chain;
let wallets: TrafficWallet[];
let api: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
  chain = await createChain({ seed: SEED, roundMs: 1000, shards: 2 });
  const traffic = await createTraffic(chain, { seed: SEED, ratePerRound: 10 });
  for (let i = 0; i < 4; i++) await traffic.step();
  traffic.stop();
  wallets = traffic.wallets();
  api = await startApi(chain);
}, 120_000);

afterAll(async () => {
  await api?.stop();
});

const b64hex = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

describe('runGetMethod: last_transaction_id of the state the method ran on', () => {
  it("is the account's last transaction as the chain holds it, with toncenter's field set", async () => {
    const head = chain.getBlock(chain.head())!;
    const wallet = wallets.find((w) => w.deployed)!.address.toRawString();
    const state = await chain.getAccountState(wallet);
    expect(state.status).toBe('active');
    const { status, body } = await api.post('runGetMethod', { address: wallet, method: 'seqno', stack: [] });
    expect(status, JSON.stringify(body)).toBe(200);
    const r = body.result!;
    expect(Object.keys(r).sort()).toEqual(['@type', 'block_id', 'exit_code', 'gas_used', 'last_transaction_id', 'stack']);
    expect(r.last_transaction_id).toEqual({ '@type': 'internal.transactionId', lt: state.lastTxLt.toString(), hash: b64hex(state.lastTxHash) });
    expect(state.lastTxLt).toBeGreaterThan(0n);
    expect((r.block_id as { seqno: number }).seqno).toBe(head.id.seqno);

    // The same through jsonRPC, and at an older block: the last transaction of that state.
    const rpc = await api.post('jsonRPC', { id: 1, jsonrpc: '2.0', method: 'runGetMethod', params: { address: wallet, method: 'seqno', stack: [] } });
    expect(rpc.body.result?.last_transaction_id).toEqual(r.last_transaction_id);
    const seqno = head.id.seqno - 2;
    const older = await chain.getAccountState(wallet, { workchain: -1, shard: head.id.shard, seqno });
    const then = await api.post('runGetMethod', { address: wallet, method: 'seqno', stack: [], seqno });
    expect(then.body.result?.last_transaction_id).toEqual({ '@type': 'internal.transactionId', lt: older.lastTxLt.toString(), hash: b64hex(older.lastTxHash) });
  });

  it('is lt 0 and a zero hash for an account that does not exist', async () => {
    const nobody = new Address(0, Buffer.alloc(32, 0x5a)).toRawString();
    expect((await chain.getAccountState(nobody)).status).toBe('nonexist');
    const { status, body } = await api.post('runGetMethod', { address: nobody, method: 'seqno', stack: [] });
    expect(status).toBe(200);
    expect(body.result?.last_transaction_id).toEqual({ '@type': 'internal.transactionId', lt: '0', hash: Buffer.alloc(32).toString('base64') });
  });
});

describe('getOutMsgQueueSize', () => {
  it('answers blocks.outMsgQueueSizes over GET, POST and jsonRPC: the newest blocks with the messages each sent that wait for delivery', async () => {
    const head = chain.getBlock(chain.head())!;
    const blocks = [head, ...chain.shardsAt(head.id.seqno)!];
    const viaGet = await api.get('getOutMsgQueueSize');
    expect(viaGet.status, JSON.stringify(viaGet.body)).toBe(200);
    const r = viaGet.body.result as { '@type': string; shards: { '@type': string; id: Record<string, unknown>; size: number }[]; ext_msg_queue_size_limit: number };
    expect(Object.keys(r).sort()).toEqual(['@type', 'ext_msg_queue_size_limit', 'shards']);
    expect(r['@type']).toBe('blocks.outMsgQueueSizes');
    expect(r.ext_msg_queue_size_limit).toBe(8000);
    expect(r.shards.map((s) => s.id)).toEqual(
      blocks.map((b) => ({ '@type': 'ton.blockIdExt', workchain: b.id.workchain, shard: BigInt.asIntN(64, b.id.shard).toString(), seqno: b.id.seqno, root_hash: b64hex(b.id.rootHash), file_hash: b64hex(b.id.fileHash) })),
    );
    blocks.forEach((b, i) => {
      expect(Object.keys(r.shards[i]).sort()).toEqual(['@type', 'id', 'size']);
      expect(r.shards[i]['@type']).toBe('blocks.outMsgQueueSize');
      const sent = decodeBlock(b.boc, { mcSeqno: b.mcSeqno }).transactions.reduce((n, t) => n + t.out_msgs.filter((m) => m.destination).length, 0);
      expect(r.shards[i].size).toBe(sent);
    });
    expect(chain.pending().internal).toBeGreaterThan(0);
    expect(r.shards.reduce((n, s) => n + s.size, 0)).toBe(chain.pending().internal);

    expect((await api.post('getOutMsgQueueSize', {})).body.result).toEqual(r);
    const rpc = await api.post('jsonRPC', { id: 'q', jsonrpc: '2.0', method: 'getOutMsgQueueSize', params: {} });
    expect(rpc.status).toBe(200);
    expect(rpc.body).toMatchObject({ ok: true, id: 'q', result: r });
  });

  it('answers 501 naming the method, not a 500, from a liteserver without liteServer.getOutMsgQueueSizes', async () => {
    const { 'liteServer.getOutMsgQueueSizes': _, ...older } = createLiteHandlers(chain);
    // Ours without the handler ("… is not implemented"), and upstream before the method (its TL parser's words).
    const upstream = () => {
      throw new LiteErrorAnswer(ErrorCode.protoviolation, 'Unknown constructor found 0x7bc19c36');
    };
    for (const handlers of [older, { ...older, 'liteServer.getOutMsgQueueSizes': upstream }]) {
      const old = await startApi(chain, handlers);
      try {
        const { status, body } = await old.get('getOutMsgQueueSize');
        expect(status).toBe(501);
        expect(body).toMatchObject({ ok: false, code: 501 });
        expect(body.error).toMatch(/^LITE_SERVER_NOTIMPLEMENTED: getOutMsgQueueSizes is not supported by this liteserver/);
        expect((await old.get('getMasterchainInfo')).status).toBe(200);
      } finally {
        await old.stop();
      }
    }
  });
});
