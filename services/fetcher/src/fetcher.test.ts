import type { RawBlock } from '@tonstream/bus';
import { createLogger } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { type Checkpoint, CheckpointMismatchError } from './checkpoint.js';
import { createFetcher, type FetcherDeps } from './fetcher.js';
import type { BlockBus } from './kafka-bus.js';
import type { ChainHead, LiteApi } from './lite-api.js';
import type { McBundle, McPreparer } from './mc-bundle.js';
import type { FullBlockId } from './shard-walk.js';

const ZS = Buffer.alloc(32, 1).toString('base64');
const mcId = (seqno: number, fork = ''): FullBlockId => ({ workchain: -1, shard: '8000000000000000', seqno, root_hash: `root${fork}${seqno}`, file_hash: `file${seqno}` });

/** A chain whose head the test moves, and a bus that records what it got, in order. */
function harness(opts: { head: number; fork?: string; checkpoints?: [string, Checkpoint][]; prepareDelayMs?: (seqno: number) => number; failOnce?: number[] }) {
  let head = opts.head;
  const events: string[] = [];
  const checkpoints = new Map(opts.checkpoints ?? []);
  const failed = new Set<number>();
  const lite = {
    head: async (): Promise<ChainHead> => ({ last: mcId(head, opts.fork), lastUtime: 1000 + head, zeroState: ZS }),
    masterchainBlockId: async (seqno: number) => mcId(seqno, opts.fork),
    pool: { health: () => ({ servers: [], allFailing: false }), close: () => {} },
  } as unknown as LiteApi;
  const bus: BlockBus = {
    publish: async (blocks: readonly RawBlock[]) => {
      events.push(`publish ${blocks.map((b) => `${b.workchain}:${b.seqno}@${b.mc_seqno}`).join(',')}`);
    },
    readCheckpoint: async (key) => checkpoints.get(key),
    writeCheckpoint: async (key, c) => {
      events.push(`checkpoint ${c.mc_seqno}`);
      checkpoints.set(key, c);
    },
    close: async () => {},
  };
  const preparer: McPreparer = {
    knowId: () => {},
    forget: () => {},
    prepare: async (seqno, seenAtMs): Promise<McBundle> => {
      await new Promise((r) => setTimeout(r, opts.prepareDelayMs?.(seqno) ?? 0));
      if (opts.failOnce?.includes(seqno) && !failed.has(seqno)) {
        failed.add(seqno);
        throw new Error(`liteserver hiccup at ${seqno}`);
      }
      const block = (workchain: number, s: number): RawBlock => ({ workchain, shard: '8000000000000000', seqno: s, root_hash: 'r', file_hash: 'f', mc_seqno: seqno, seen_at_ms: seenAtMs, boc: new Uint8Array(10), account_states: [] });
      return { seqno, id: mcId(seqno, opts.fork), genUtime: 1000 + seqno, seenAtMs, blocks: [block(0, seqno + 100), block(-1, seqno)], blockBytes: new Map([[0, 10], [-1, 10]]), accountStates: 0, accountStateBytes: 0, missingStates: [] };
    },
  };
  const deps = (config: FetcherDeps['config']): FetcherDeps => ({
    lite,
    bus,
    preparer,
    logger: createLogger({ level: 'error', write: () => {} }),
    config: { pollIntervalMs: 5, backoff: { baseMs: 1, maxMs: 2 }, ...config },
  });
  return { deps, events, checkpoints, setHead: (h: number) => (head = h) };
}

async function until(probe: () => boolean) {
  for (let i = 0; i < 500 && !probe(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(probe()).toBe(true);
}

describe('createFetcher()', () => {
  it('publishes in seqno order although later blocks are ready first, checkpointing after each', async () => {
    // Block 3 takes longest: 4..6 are prepared meanwhile but must wait for it.
    const h = harness({ head: 6, prepareDelayMs: (s) => (s === 3 ? 40 : 1) });
    const f = createFetcher(h.deps({ startSeqno: 2, backfill: { from: 2, to: 6 }, concurrency: 4 }));
    await f.run();
    expect(h.events).toEqual([
      'publish 0:102@2,-1:2@2',
      'checkpoint 2',
      'publish 0:103@3,-1:3@3',
      'checkpoint 3',
      'publish 0:104@4,-1:4@4',
      'checkpoint 4',
      'publish 0:105@5,-1:5@5',
      'checkpoint 5',
      'publish 0:106@6,-1:6@6',
      'checkpoint 6',
    ]);
    expect(f.status()).toMatchObject({ phase: 'done', publishedSeqno: 6, checkpointSeqno: 6, plan: { from: 2, to: 6, reason: 'backfill' } });
    expect([...h.checkpoints.keys()]).toEqual([`fetcher:${'01'.repeat(32)}:backfill:2-6`]);
  });

  it('starts at the head, follows it, and resumes after its checkpoint', async () => {
    const h = harness({ head: 10 });
    const f = createFetcher(h.deps({}));
    const run = f.run();
    await until(() => f.status().publishedSeqno === 10);
    expect(f.status().plan).toEqual({ from: 10, to: undefined, reason: 'head' });
    h.setHead(13);
    await until(() => f.status().checkpointSeqno === 13);
    expect(f.health()).toEqual({ status: 'ok', reasons: [] });
    await f.stop();
    await run;
    expect(f.status().phase).toBe('stopped');

    h.setHead(20);
    const g = createFetcher(h.deps({}));
    const run2 = g.run();
    await until(() => g.status().publishedSeqno === 20);
    expect(g.status().plan).toEqual({ from: 14, to: undefined, reason: 'checkpoint' });
    await g.stop();
    await run2;
    const published = h.events.filter((e) => e.startsWith('checkpoint')).map((e) => Number(e.split(' ')[1]));
    expect(published).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });

  it('retries a masterchain block that failed to prepare and skips nothing', async () => {
    const h = harness({ head: 5, failOnce: [3] });
    const f = createFetcher(h.deps({ backfill: { from: 1, to: 5 }, concurrency: 2 }));
    await f.run();
    expect(h.events.filter((e) => e.startsWith('checkpoint'))).toEqual(['checkpoint 1', 'checkpoint 2', 'checkpoint 3', 'checkpoint 4', 'checkpoint 5']);
  });

  const key = `fetcher:${'01'.repeat(32)}`;
  const cpAt = (mc_seqno: number): [string, Checkpoint] => [key, { mc_seqno, root_hash: `root${mc_seqno}`, zero_state: ZS, written_at_ms: 0 }];

  it('stops, publishing nothing, at a checkpoint whose block has another root hash on a real network', async () => {
    const h = harness({ head: 50, fork: 'new', checkpoints: [cpAt(40)] });
    const f = createFetcher(h.deps({ startSeqno: 45 }));
    const err = await f.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointMismatchError);
    expect((err as Error).message).toMatch(/seqno 40 with root hash root40, but the liteservers' chain has root hash rootnew40/);
    expect(h.events).toEqual([]);
    expect(f.status().phase).toBe('stopped');
    expect(f.status().plan).toBeUndefined();
  });

  it('starts from FETCHER_START_SEQNO with --reset, and from the new genesis when the local network was reset', async () => {
    for (const [config, reason] of [[{ reset: true }, 'reset'], [{ localnet: true }, 'localnet_reset']] as const) {
      const h = harness({ head: 50, fork: 'new', checkpoints: [cpAt(40)] });
      const f = createFetcher(h.deps({ startSeqno: 45, ...config }));
      const run = f.run();
      await until(() => f.status().checkpointSeqno === 50);
      expect(f.status().plan).toEqual({ from: 45, to: undefined, reason });
      expect(h.checkpoints.get(key)).toMatchObject({ mc_seqno: 50, root_hash: 'rootnew50' });
      await f.stop();
      await run;
    }
  });

  it('waits, degraded, while a real network\'s head is below the checkpoint, then resumes after it', async () => {
    const h = harness({ head: 50, checkpoints: [cpAt(60)] });
    const f = createFetcher(h.deps({}));
    const run = f.run();
    await until(() => f.health().reasons.some((r) => r.includes("above the liteservers' head 50")));
    await new Promise((r) => setTimeout(r, 30));
    expect(h.events).toEqual([]);
    expect(f.status().plan).toBeUndefined();
    h.setHead(63);
    await until(() => f.status().checkpointSeqno === 63);
    expect(f.status().plan).toEqual({ from: 61, to: undefined, reason: 'checkpoint' });
    expect(f.health()).toEqual({ status: 'ok', reasons: [] });
    await f.stop();
    await run;
  });

  it('is degraded before it knows the head and while lagging too far behind it; stop() does not wait for work in flight', async () => {
    const h = harness({ head: 100, prepareDelayMs: (s) => (s === 1 ? 0 : 60_000) });
    const f = createFetcher(h.deps({ startSeqno: 1, lagDegradedBlocks: 10 }));
    expect(f.health()).toEqual({ status: 'degraded', reasons: ['no masterchain head yet'] });
    const run = f.run();
    await until(() => f.status().publishedSeqno === 1);
    expect(f.health()).toEqual({ status: 'degraded', reasons: ['lagging 99 masterchain blocks behind the head (limit 10)'] });
    const t0 = Date.now();
    await f.stop();
    await run;
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
