import { describe, expect, it } from 'vitest';
import type { LitePool } from './pool.js';
import { createLiteReads } from './reads.js';

type Call = { method: string; req: Record<string, unknown> };

/** A pool that records what is asked and answers `answer(method)`; a throwing answer rejects. */
function fakePool(answer: (method: string, n: number) => unknown = () => ({})) {
  const calls: Call[] = [];
  const pool: LitePool = {
    query: (async (method: string, _f: unknown, req: Record<string, unknown>, check?: (res: unknown) => unknown) => {
      calls.push({ method, req });
      const res = answer(method, calls.length);
      return check ? check(res) : res;
    }) as LitePool['query'],
    health: () => ({ servers: [], allFailing: false }),
    close: () => calls.push({ method: 'close', req: {} }),
  };
  return { pool, calls };
}

describe('createLiteReads()', () => {
  it('builds the lite_api requests with their modes and names each method for the observer', async () => {
    const { pool, calls } = fakePool();
    const reads = createLiteReads(pool);
    await reads.lookupBlock(-1, 1n << 63n, { seqno: 7 });
    await reads.lookupBlock(0, 0x4000000000000000n, { lt: 123n });
    await reads.lookupBlock(0, 1n << 63n, { utime: 99 });
    await reads.runMethod({} as never, { workchain: 0, hash: Buffer.alloc(32, 1) }, 85143n, Buffer.alloc(0));
    await reads.state({ workchain: 0 } as never);
    expect(calls.map((c) => [c.method, c.req.mode])).toEqual([
      ['lookupBlock', 1],
      ['lookupBlock', 2],
      ['lookupBlock', 4],
      ['runSmcMethod', 5],
      ['getState', undefined],
    ]);
    expect(calls[4].req).toEqual({ kind: 'liteServer.getState', id: { workchain: 0 } });
    // Shards go out as TL's signed 64-bit decimal strings.
    expect(calls[0].req).toMatchObject({ id: { workchain: -1, shard: '-9223372036854775808', seqno: 7 }, lt: null, utime: null });
    expect(calls[1].req).toMatchObject({ id: { shard: '4611686018427387904', seqno: 0 }, lt: '123', utime: null });
    expect(calls[3].req).toMatchObject({ methodId: '85143', account: { kind: 'liteServer.accountId', workchain: 0, id: Buffer.alloc(32, 1) } });
  });

  it('passes a check through, so the pool can send a bad answer on to the next server', async () => {
    const { pool } = fakePool(() => ({ data: Buffer.from('boc') }));
    const reads = createLiteReads(pool);
    await expect(reads.block({} as never, (res) => res.data.toString())).resolves.toBe('boc');
    await expect(reads.sendMessage(Buffer.alloc(1))).resolves.toBeUndefined(); // the fake has no status
  });

  it('reuses the newest masterchain block for masterchainInfoMaxAgeMs, never a failure, and asks every time by default', async () => {
    let t = 0;
    let fail = false;
    const { pool, calls } = fakePool((_m, n) => {
      if (fail) throw new Error('down');
      return { last: { seqno: n } };
    });
    const cached = createLiteReads(pool, { masterchainInfoMaxAgeMs: 250, now: () => t });
    const a = await cached.masterchainInfo();
    t = 250;
    expect(await cached.masterchainInfo()).toBe(a);
    t = 251;
    fail = true;
    await expect(cached.masterchainInfo()).rejects.toThrow('down');
    fail = false;
    expect((await cached.masterchainInfo()).last.seqno).toBe(3);
    const uncached = createLiteReads(pool);
    await uncached.masterchainInfo();
    await uncached.masterchainInfo();
    expect(calls.filter((c) => c.method === 'getMasterchainInfoExt')).toHaveLength(5);
  });

  it('close() closes the pool', () => {
    const { pool, calls } = fakePool();
    createLiteReads(pool).close();
    expect(calls.map((c) => c.method)).toEqual(['close']);
  });
});
