/**
 * createLiteServer() against the unmodified ton-lite-client over real TCP on 127.0.0.1, plus the
 * node:crypto raw client for what ton-lite-client cannot send (pings, corrupt frames, raw TL).
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { Functions } from 'ton-lite-client/dist/schema.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame } from './frame.js';
import { ErrorCode, LiteErrorAnswer } from './errors.js';
import { writeGlobalConfig } from './global-config.js';
import { listBlockTransactionsExt } from './list-block-transactions-ext.js';
import { getOutMsgQueueSizes } from './out-msg-queue-sizes.js';
import { createLiteServer, type LiteServer } from './server.js';
import type { LiteServerHandlers } from './dispatch.js';
import { ID } from './schema.js';
import { connectRawClient, type RawClient } from './test-support/raw-client.js';
import { MC_SHARD, blockBytes, blockIdExt, hash32, masterchainInfo, recordingLogger } from './test-support/fixtures.js';
import { TlReader, TlWriter } from './tl-buffer.js';

const BLOCK_BYTES = 4096;
let mcSeqno = 100;

const handlers: LiteServerHandlers = {
  'liteServer.getMasterchainInfo': () => masterchainInfo(mcSeqno),
  'liteServer.getTime': () => ({ kind: 'liteServer.currentTime', now: 1_700_000_000 }),
  'liteServer.getVersion': () => ({ kind: 'liteServer.version', mode: 0, version: 0x101, capabilities: '7', now: 1_700_000_001 }),
  'liteServer.lookupBlock': (p) => ({ kind: 'liteServer.blockHeader', id: blockIdExt(p.id.workchain, p.id.shard, p.id.seqno), mode: p.mode, headerProof: Buffer.from('proof') }),
  'liteServer.getBlockHeader': (p) => ({ kind: 'liteServer.blockHeader', id: p.id, mode: p.mode, headerProof: Buffer.from(`header:${p.id.seqno}`) }),
  'liteServer.getBlock': async (p) => {
    // Random delays make answers leave in a different order than the queries came.
    await new Promise((r) => setTimeout(r, Math.random() * 5));
    return { kind: 'liteServer.blockData', id: p.id, data: blockBytes(p.id.seqno, BLOCK_BYTES) };
  },
  'liteServer.getShardInfo': () => {
    throw new LiteErrorAnswer(ErrorCode.notready, 'shard not ready');
  },
  'liteServer.getConfigAll': () => {
    throw new Error('database exploded');
  },
  'liteServer.getAllShardsInfo': () => masterchainInfo(1) as never, // wrong result type on purpose
  'liteServer.listBlockTransactionsExt': (p) => ({
    kind: 'liteServer.blockTransactionsExt',
    id: p.id,
    reqCount: p.count,
    incomplete: p.after === null,
    transactions: Buffer.from(`txs:${p.mode}:${p.after?.lt ?? 'start'}:${p.reverseOrder}:${p.wantProof}`),
    proof: Buffer.alloc(0),
  }),
  'liteServer.getOutMsgQueueSizes': (p) => ({
    kind: 'liteServer.outMsgQueueSizes',
    shards: [
      { kind: 'liteServer.outMsgQueueSize', id: blockIdExt(-1, MC_SHARD, 100), size: p.mode },
      { kind: 'liteServer.outMsgQueueSize', id: blockIdExt(p.wc ?? 0, p.shard ?? MC_SHARD, 90), size: 70_000 },
    ],
    extMsgQueueSizeLimit: 8000,
  }),
};

const logger = recordingLogger();
let server: LiteServer;
let dir: string;
let configPath: string;
const engines: LiteSingleEngine[] = [];
const rawClients: RawClient[] = [];

beforeAll(async () => {
  server = await createLiteServer({ handlers, logger, getMasterchainSeqno: () => mcSeqno });
  dir = mkdtempSync(join(tmpdir(), 'liteserver-test-'));
  configPath = join(dir, 'global.config.json');
  writeGlobalConfig(configPath, [{ host: server.address, port: server.port, publicKey: server.publicKey }]);
});

afterEach(() => {
  for (const e of engines.splice(0)) e.close();
  for (const c of rawClients.splice(0)) c.close();
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a ton-lite-client user does with a global config file. */
async function clientFromConfig(): Promise<{ client: LiteClient; engine: LiteSingleEngine }> {
  const config = JSON.parse(readFileSync(configPath, 'utf-8'));
  const ls = config.liteservers[0];
  const ip = [24, 16, 8, 0].map((s) => ((ls.ip >>> 0) >>> s) & 0xff).join('.');
  const engine = new LiteSingleEngine({ host: `tcp://${ip}:${ls.port}`, publicKey: Buffer.from(ls.id.key, 'base64') });
  engines.push(engine);
  await once(engine, 'connect');
  return { client: new LiteClient({ engine }), engine };
}

async function rawClient(): Promise<RawClient> {
  const c = await connectRawClient(server.address, server.port, server.publicKey);
  rawClients.push(c);
  return c;
}

describe('createLiteServer() with ton-lite-client', () => {
  it('answers getMasterchainInfo, getCurrentTime and getVersion', async () => {
    const { client } = await clientFromConfig();
    const info = await client.getMasterchainInfo();
    expect(info.last).toEqual(blockIdExt(-1, MC_SHARD, 100));
    expect(info.stateRootHash).toEqual(hash32('state:100'));
    expect(info.init.rootHash).toEqual(hash32('zero-root'));
    expect(await client.getCurrentTime()).toBe(1_700_000_000);
    expect(await client.getVersion()).toEqual({ kind: 'liteServer.version', mode: 0, version: 0x101, capabilities: '7', now: 1_700_000_001 });
  });

  it('answers lookupBlockByID and getBlockHeader with the stub ids', async () => {
    const { client } = await clientFromConfig();
    const found = await client.lookupBlockByID({ workchain: 0, shard: '-9223372036854775808', seqno: 77 });
    expect(found.id).toEqual(blockIdExt(0, MC_SHARD, 77));
    expect(found.headerProof.toString()).toBe('proof');
    const header = await client.getBlockHeader(found.id);
    expect(header.id).toEqual(found.id);
    expect(header.headerProof.toString()).toBe('header:77');
  });

  it('returns getBlock bytes through engine.query(Functions.liteServer_getBlock)', async () => {
    const { engine } = await clientFromConfig();
    const id = blockIdExt(-1, MC_SHARD, 5);
    const res = await engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id });
    expect(res.id).toEqual(id);
    expect(res.data.equals(blockBytes(5, BLOCK_BYTES))).toBe(true);
  });

  it('answers a method without a handler with liteServer.error and keeps the connection', async () => {
    const { client, engine } = await clientFromConfig();
    await expect(engine.query(Functions.liteServer_getState, { kind: 'liteServer.getState', id: blockIdExt(-1, MC_SHARD, 1) })).rejects.toThrow(
      'liteServer.getState is not implemented by this liteserver',
    );
    expect((await client.getMasterchainInfo()).last.seqno).toBe(100);
  });

  it('turns LiteErrorAnswer, other exceptions and wrong result types into liteServer.error', async () => {
    const { client, engine } = await clientFromConfig();
    const id = blockIdExt(-1, MC_SHARD, 1);
    await expect(engine.query(Functions.liteServer_getShardInfo, { kind: 'liteServer.getShardInfo', id, workchain: 0, shard: MC_SHARD, exact: true })).rejects.toThrow(
      /^shard not ready$/,
    );
    await expect(engine.query(Functions.liteServer_getConfigAll, { kind: 'liteServer.getConfigAll', mode: 0, id })).rejects.toThrow(
      'liteServer.getConfigAll: database exploded',
    );
    await expect(engine.query(Functions.liteServer_getAllShardsInfo, { kind: 'liteServer.getAllShardsInfo', id })).rejects.toThrow(
      /^liteServer.getAllShardsInfo returned liteServer.masterchainInfo, expected liteServer.allShardsInfo$/,
    );
    expect(await client.getCurrentTime()).toBe(1_700_000_000);
    expect(logger.records.some((r) => r.level === 'warn' && r.fields.error === 'database exploded')).toBe(true);
  });

  it('matches 300 concurrent queries on one connection to their answers', async () => {
    const { client, engine } = await clientFromConfig();
    const seqnos = Array.from({ length: 200 }, (_, i) => 1000 + i);
    const [blocks, infos] = await Promise.all([
      Promise.all(seqnos.map((seqno) => engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id: blockIdExt(0, MC_SHARD, seqno) }))),
      Promise.all(Array.from({ length: 100 }, () => client.getMasterchainInfo())),
    ]);
    for (const [i, b] of blocks.entries()) {
      expect(b.id.seqno).toBe(seqnos[i]);
      expect(b.data.equals(blockBytes(seqnos[i], BLOCK_BYTES))).toBe(true);
    }
    expect(infos.every((info) => info.last.seqno === 100)).toBe(true);
  });

  it('serves two clients at once', async () => {
    const [a, b] = await Promise.all([clientFromConfig(), clientFromConfig()]);
    const [ta, tb, ia, ib] = await Promise.all([a.client.getCurrentTime(), b.client.getCurrentTime(), a.client.getMasterchainInfo(), b.client.getMasterchainInfo()]);
    expect([ta, tb]).toEqual([1_700_000_000, 1_700_000_000]);
    expect(ia.last.seqno).toBe(100);
    expect(ib.last.seqno).toBe(100);
  });

  it('answers listBlockTransactionsExt through engine.query with our function definition', async () => {
    const { engine } = await clientFromConfig();
    const id = blockIdExt(0, MC_SHARD, 9);
    const first = await engine.query(listBlockTransactionsExt, {
      kind: 'liteServer.listBlockTransactionsExt', id, mode: 7 | 64, count: 16, after: null, reverseOrder: true, wantProof: null,
    });
    expect(first).toEqual({ kind: 'liteServer.blockTransactionsExt', id, reqCount: 16, incomplete: true, transactions: Buffer.from('txs:71:start:true:null'), proof: Buffer.alloc(0) });
    const after = { kind: 'liteServer.transactionId3' as const, account: hash32('acct'), lt: '123456789' };
    const next = await engine.query(listBlockTransactionsExt, {
      kind: 'liteServer.listBlockTransactionsExt', id, mode: 7 | 128, count: 16, after, reverseOrder: null, wantProof: null,
    });
    expect(next.transactions.toString()).toBe('txs:135:123456789:null:null');
    expect(next.incomplete).toBe(false);
  });

  it('answers getOutMsgQueueSizes through engine.query with our function definition, with and without a shard', async () => {
    const { engine } = await clientFromConfig();
    const all = await engine.query(getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 0, wc: null, shard: null });
    expect(all).toEqual({
      kind: 'liteServer.outMsgQueueSizes',
      shards: [
        { kind: 'liteServer.outMsgQueueSize', id: blockIdExt(-1, MC_SHARD, 100), size: 0 },
        { kind: 'liteServer.outMsgQueueSize', id: blockIdExt(0, MC_SHARD, 90), size: 70_000 },
      ],
      extMsgQueueSizeLimit: 8000,
    });
    const one = await engine.query(getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 1, wc: 0, shard: '-4611686018427387904' });
    expect(one.shards.map((s) => [s.id.workchain, s.id.shard, s.size])).toEqual([[-1, MC_SHARD, 1], [0, '-4611686018427387904', 70_000]]);
  });

  it('holds a query with waitMasterchainSeqno until getMasterchainSeqno reaches it', async () => {
    const { engine } = await clientFromConfig();
    const started = Date.now();
    const bump = setTimeout(() => (mcSeqno = 101), 150);
    try {
      const info = await engine.query(Functions.liteServer_getMasterchainInfo, { kind: 'liteServer.getMasterchainInfo' }, { awaitSeqno: 101, timeout: 3000 });
      expect(info.last.seqno).toBe(101);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    } finally {
      clearTimeout(bump);
      mcSeqno = 100;
    }
  });
});

describe('createLiteServer() protocol edges (raw client)', () => {
  it('answers tcp.ping with tcp.pong carrying the same random_id', async () => {
    const c = await rawClient();
    expect(await c.ping(-1234567890123n)).toBe(-1234567890123n);
  });

  it('answers a waitMasterchainSeqno that times out with error 652', async () => {
    const c = await rawClient();
    const w = new TlWriter();
    w.writeInt32(ID.liteServerWaitMasterchainSeqno);
    w.writeInt32(mcSeqno + 50);
    w.writeInt32(100);
    w.writeInt32(0x16ad5a34); // liteServer.getTime
    const r = new TlReader(await c.query(w.build()));
    expect(r.readInt32()).toBe(ID.liteServerError);
    expect(r.readInt32()).toBe(ErrorCode.timeout);
    expect(r.readString()).toMatch(/masterchain seqno 150 not reached within 100 ms/);
  });

  it('answers an unknown function id and a truncated call with liteServer.error', async () => {
    const c = await rawClient();
    const unknown = new TlReader(await c.query(Buffer.from([1, 2, 3, 4])));
    expect([unknown.readInt32(), unknown.readInt32(), unknown.readString()]).toEqual([ID.liteServerError, 502, 'unknown function 0x04030201']);
    const truncated = Buffer.alloc(8);
    truncated.writeInt32LE(0x6377cf0d, 0); // liteServer.getBlock with 4 of its 80 argument bytes
    const bad = new TlReader(await c.query(truncated));
    expect([bad.readInt32(), bad.readInt32()]).toEqual([ID.liteServerError, 502]);
    expect(bad.readString()).toMatch(/^cannot parse liteServer.getBlock: TL input ends/);
  });

  it('drops only the connection that sends a bad checksum, and logs why', async () => {
    const { client } = await clientFromConfig();
    const victim = await rawClient();
    const frame = encodeFrame(Buffer.from([0x9a, 0x2b, 0x08, 0x4d, 1, 2, 3, 4, 5, 6, 7, 8]));
    frame[frame.length - 1] ^= 1;
    victim.sendPlain(frame);
    await victim.closed;
    expect(logger.records.some((r) => r.msg === 'liteserver dropped connection' && /checksum mismatch/.test(String(r.fields.reason)))).toBe(true);
    expect((await client.getMasterchainInfo()).last.seqno).toBe(100);
  });

  it('drops a connection announcing an impossible frame size', async () => {
    const victim = await rawClient();
    const frame = Buffer.alloc(8);
    frame.writeUInt32LE(10, 0);
    victim.sendPlain(frame);
    await victim.closed;
    expect(logger.records.some((r) => /frame size 10 outside/.test(String(r.fields.reason)))).toBe(true);
  });

  it('drops a handshake for another key id', async () => {
    const socket = connect(server.port, server.address);
    await once(socket, 'connect');
    socket.write(Buffer.alloc(256, 7));
    await once(socket, 'close');
    expect(logger.records.some((r) => /handshake for key id 0707/.test(String(r.fields.reason)))).toBe(true);
  });
});
