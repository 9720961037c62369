import type { TransactionRow } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import type { PendingBatch } from './accumulator.js';
import type { Commit } from './offset-tracker.js';
import type { Item } from './records.js';
import { createSink, type SinkOptions } from './sink.js';

const consumed = (items: Item[]) => ({ items, dead: [], receipt: null });

type Deferred = { batch: PendingBatch; resolve: () => void; reject: (err: unknown) => void };

/** A store whose writes finish when the test says so, and a log of everything in order. */
function harness(overrides: Partial<SinkOptions> = {}) {
  const writes: Deferred[] = [];
  const events: string[] = [];
  const commits: Commit[][] = [];
  const fatal: unknown[] = [];
  const sink = createSink({
    batchRecords: 3,
    flushMs: 60_000,
    maxInFlight: 2,
    write: (batch) =>
      new Promise<void>((resolve, reject) => {
        events.push(`write ${batch.id}`);
        writes.push({
          batch,
          resolve: () => {
            events.push(`stored ${batch.id}`);
            resolve();
          },
          reject,
        });
      }),
    commit: async (c) => {
      events.push(`commit ${c.map((x) => `${x.topic}/${x.partition}@${x.offset}`).join(',')}`);
      commits.push(c);
    },
    onFatal: (err) => fatal.push(err),
    ...overrides,
  });
  return { sink, writes, events, commits, fatal };
}

const tx = (n: number): Item => ({ kind: 'transactions', record: { hash: `h${n}` } as TransactionRow, json: `{"hash":"h${n}"}` });
const at = (topic: string, partition: number, offset: number) => ({ topic, partition, offset: String(offset) });
const settle = () => new Promise((r) => setImmediate(r));

describe('createSink()', () => {
  it('commits offsets only after the store acknowledged, in order, when batches complete out of order', async () => {
    const { sink, writes, events, commits } = harness();
    // Batch 1: p0@0..2; batch 2: p0@3, p1@0, p1@1. Both are cut at 3 records and written concurrently.
    [at('t', 0, 0), at('t', 0, 1), at('t', 0, 2), at('t', 0, 3), at('t', 1, 0), at('t', 1, 1)].forEach((p, i) => sink.add(consumed([tx(i)]), p));
    expect(writes.map((w) => w.batch.id)).toEqual([1, 2]);
    expect(sink.inFlight).toBe(2);

    writes[1].resolve(); // the later batch finishes first
    await settle();
    // Partition 1 lives only in batch 2; partition 0 must wait for batch 1.
    expect(commits).toEqual([[{ topic: 't', partition: 1, offset: '2' }]]);

    writes[0].resolve();
    await settle();
    expect(commits[1]).toEqual([{ topic: 't', partition: 0, offset: '4' }]);
    expect(events).toEqual(['write 1', 'write 2', 'stored 2', 'commit t/1@2', 'stored 1', 'commit t/0@4']);
  });

  it('never commits anything for a batch the store did not acknowledge, and reports the failure as fatal', async () => {
    const { sink, writes, commits, fatal } = harness();
    [0, 1, 2].forEach((i) => sink.add(consumed([tx(i)]), at('t', 0, i)));
    writes[0].reject(new Error('Code: 60. Table does not exist'));
    await settle();
    expect(commits).toEqual([]);
    expect(fatal).toHaveLength(1);
    expect(sink.failed).toBe(true);
    sink.add(consumed([tx(9)]), at('t', 0, 9)); // ignored once failed
    expect(writes).toHaveLength(1);
  });

  it('stops taking records while a full batch waits for a write slot, and heartbeats while waiting', async () => {
    const { sink, writes } = harness({ maxInFlight: 1 });
    [0, 1, 2].forEach((i) => sink.add(consumed([tx(i)]), at('t', 0, i))); // batch 1 in flight
    expect(sink.hasRoom()).toBe(true);
    [3, 4, 5].forEach((i) => sink.add(consumed([tx(i)]), at('t', 0, i))); // full, no slot
    expect(sink.hasRoom()).toBe(false);
    let beats = 0;
    const waiting = sink.waitForRoom(async () => {
      beats++;
    });
    await settle();
    writes[0].resolve();
    await waiting;
    expect(beats).toBeGreaterThanOrEqual(1);
    expect(writes.map((w) => w.batch.records)).toEqual([3, 3]);
    expect(sink.hasRoom()).toBe(true);
  });

  it('flushNow() cuts a partial batch at once, and does nothing without records', async () => {
    const { sink, writes } = harness(); // flushMs 60 s: only flushNow can cut this batch
    sink.flushNow();
    expect(writes).toHaveLength(0);
    sink.add(consumed([tx(0)]), at('t', 0, 0));
    sink.add(consumed([tx(1)]), at('t', 0, 1));
    sink.flushNow();
    expect(writes.map((w) => w.batch.records)).toEqual([2]);
    sink.add(consumed([tx(2)]), at('t', 0, 2)); // waits for size or flushMs again
    expect(writes).toHaveLength(1);
    writes[0].resolve();
    const drained = sink.drain();
    await new Promise((r) => setTimeout(r, 10));
    expect(writes.map((w) => w.batch.records)).toEqual([2, 1]);
    writes[1].resolve();
    await drained;
  });

  it('cuts a partial batch after flushMs and commits skipped messages with it', async () => {
    const { sink, writes, commits } = harness({ flushMs: 20 });
    sink.add(consumed([tx(0)]), at('t', 0, 0));
    sink.add(consumed([]), at('t', 0, 1)); // an unusable message: no record, but its offset is covered
    expect(writes).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(writes).toHaveLength(1);
    expect(writes[0].batch.records).toBe(1);
    writes[0].resolve();
    await settle();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '2' }]]);
  });

  it('keeps the records of one message (a bundle) in one batch, even past batchRecords', async () => {
    const { sink, writes, commits } = harness();
    sink.add(consumed([tx(0), tx(1)]), at('t', 0, 0));
    sink.add(consumed([tx(2), tx(3), tx(4)]), at('t', 0, 1));
    expect(writes.map((w) => w.batch.records)).toEqual([5]);
    sink.add(consumed([tx(5)]), at('t', 0, 2));
    writes[0].resolve();
    await settle();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '2' }]]);
  });

  it('drain() writes what is buffered and waits for the commits', async () => {
    const { sink, writes, commits } = harness();
    sink.add(consumed([tx(0)]), at('t', 3, 41));
    const drained = sink.drain();
    await settle();
    expect(writes).toHaveLength(1);
    writes[0].resolve();
    await drained;
    expect(commits).toEqual([[{ topic: 't', partition: 3, offset: '42' }]]);
  });

  it('commits again what a failed commit left owed, with nothing new consumed, and only the newest offset per partition', async () => {
    const attempts: Commit[][] = [];
    const acknowledged: Commit[][] = [];
    const errors: unknown[] = [];
    let kafkaUp = false;
    const { sink, writes } = harness({
      commitRetryMs: 5,
      commit: async (c) => {
        attempts.push(c);
        if (!kafkaUp) throw new Error('REBALANCE_IN_PROGRESS');
        acknowledged.push(c);
      },
      onCommitError: (err) => errors.push(err),
    });
    sink.add(consumed([tx(0), tx(1), tx(2)]), at('t', 0, 7));
    sink.add(consumed([tx(3), tx(4), tx(5)]), at('t', 0, 8));
    await settle();
    writes[0].resolve();
    writes[1].resolve();
    await new Promise((r) => setTimeout(r, 30));
    expect(errors.length).toBeGreaterThanOrEqual(2);
    kafkaUp = true;
    await new Promise((r) => setTimeout(r, 30));
    expect(acknowledged).toEqual([[{ topic: 't', partition: 0, offset: '9' }]]);
    const calls = attempts.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(attempts).toHaveLength(calls);
  });
});
