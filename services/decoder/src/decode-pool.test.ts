import { encodeRawBlock } from '@tonstream/bus';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { decodeMessage } from './decode-message.js';
import { createDecodePool, replyFor, unpackBlock, type WorkerReply } from './decode-pool.js';
import { fixtureRawBlocks } from './test-support/raw-blocks.js';

const withState = fixtureRawBlocks({ withAccountState: true }).find((f) => f.raw.account_states.length > 0)!;
const PARTITIONS = { transactions: 4, messages: 4, accountStates: 2 };
const text = (r: { key: string; value: Buffer; partition?: number; headers?: Record<string, string> }) => ({ key: r.key, value: r.value.toString(), partition: r.partition, headers: r.headers });

describe('decode pool packing', () => {
  it('a block crosses threads as one buffer and unpacks to the same records', () => {
    const bytes = new Uint8Array(encodeRawBlock(withState.raw));
    const { reply, transfer } = replyFor({ id: 7, value: bytes, key: null, partitions: PARTITIONS });
    if (!reply.ok) throw new Error(reply.message);
    expect(transfer).toEqual([reply.packed.blob]);
    const direct = decodeMessage(Buffer.from(bytes), null, PARTITIONS);
    if (!direct.ok) throw direct.error;
    const back = unpackBlock(structuredClone(reply.packed));
    for (const topic of ['transactions', 'messages', 'accountStates'] as const) expect(back[topic].map(text)).toEqual(direct.decoded[topic].map(text));
    expect(text(back.meta)).toEqual(text(direct.decoded.meta));
    expect(back.accountStates).toHaveLength(1);
    expect(back.block).toEqual(direct.decoded.block);
    expect(back.txCount).toBe(withState.records.transactions.length);
  });

  it('sends failures back with their kind, name and block key', () => {
    const bad = new Uint8Array(encodeRawBlock({ ...withState.raw, boc: Buffer.from('nope') }));
    const { reply } = replyFor({ id: 1, value: bad, key: 'k', partitions: PARTITIONS });
    expect(reply).toMatchObject({ id: 1, ok: false, kind: 'boc', name: 'BocError', key: `${withState.raw.workchain}:${withState.raw.shard}:${withState.raw.seqno}` } satisfies Partial<WorkerReply>);
  });

  it('decodes on the calling thread with 0 workers', async () => {
    const pool = createDecodePool(0);
    const out = await pool.decode(encodeRawBlock(withState.raw), null, PARTITIONS);
    expect(out.ok && out.decoded.txCount).toBe(withState.records.transactions.length);
    await pool.close();
  });

  it('decodes again, alone, each block a dying worker took with it, and fails only the one that kills a worker alone', async () => {
    // A stand-in worker: answers every request, except that a value starting with "OOM" makes it
    // allocate until V8 kills it for its heap limit (a real out-of-memory death, not a simulated one).
    const source = `
      const { parentPort } = require('node:worker_threads');
      const keep = [];
      parentPort.on('message', (req) => {
        const text = Buffer.from(req.value).toString();
        if (text.startsWith('OOM')) for (;;) keep.push(new Array(1e5).fill(text));
        setTimeout(() => parentPort.postMessage({ id: req.id, ok: false, kind: 'codec', key: req.key, name: 'Echo', message: text }), 20);
      });`;
    let spawned = 0;
    const pool = createDecodePool(1, () => {
      spawned++;
      return new Worker(source, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    });
    const results = await Promise.all(['a', 'OOM', 'b', 'c'].map((v) => pool.decode(Buffer.from(v), `key-${v}`, PARTITIONS)));
    await pool.close();
    const summary = results.map((r) => (r.ok ? 'ok' : `${r.kind}: ${r.key}: ${r.error.message}`));
    expect(summary[1]).toMatch(/^worker: key-OOM: a decode worker died decoding this block alone: .*(memory|heap)/i);
    for (const [i, v] of [[0, 'a'], [2, 'b'], [3, 'c']] as const) expect(summary[i]).toBe(`codec: key-${v}: ${v}`);
    // The pool's worker, its replacement, and one per block decoded alone (at least the OOM one).
    expect(spawned).toBeGreaterThanOrEqual(3);
  });
});
