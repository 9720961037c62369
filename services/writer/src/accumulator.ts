import { emptyBatch, type RecordBatch } from '@tonstream/store';
import type { Consumed, DeadLetter, Position } from './records.js';

/** The offset to commit for a partition once a batch is stored: one past its last message. */
export type PartitionEnd = { topic: string; partition: number; next: bigint };

/** A block meta in a batch: what freshness and lag are computed from. */
export type BlockMark = { mcSeqno: number; seenAtMs: number | null };

/** Records taken out of the accumulator to be written together. */
export type PendingBatch = {
  /** Increasing per accumulator: the order batches were cut, which is the order offsets commit in. */
  id: number;
  batch: RecordBatch;
  /** Records (not table rows) in the batch. */
  records: number;
  /** Refused records, for the dead-letter topic before the batch is stored. */
  dead: DeadLetter[];
  /** Per partition, one past the last message the batch covers (skipped messages included). */
  ends: PartitionEnd[];
  blocks: BlockMark[];
  /** When the first record of the batch arrived (ms, from the clock given to the accumulator). */
  firstAtMs: number;
};

export type Accumulator = {
  /**
   * Adds what one Kafka message (a bundle) holds, all into the same batch so its offset is committed
   * only once all of it is stored or dead-lettered.
   */
  add(consumed: Consumed, position: Position): void;
  readonly records: number;
  /** Messages added since the last take (records plus skipped messages). */
  readonly messages: number;
  readonly firstAtMs: number | undefined;
  /** Block metas waiting in the accumulator. */
  readonly blocks: readonly BlockMark[];
  /** Cuts a batch of everything added so far; undefined when nothing was added. */
  take(): PendingBatch | undefined;
};

export function createAccumulator(now: () => number = Date.now): Accumulator {
  let nextId = 1;
  let batch = emptyBatch();
  let records = 0;
  let dead: DeadLetter[] = [];
  let messages = 0;
  let firstAtMs: number | undefined;
  let ends = new Map<string, PartitionEnd>();
  let blocks: BlockMark[] = [];

  return {
    add({ items, dead: refused, receipt, traceReceipt }, position) {
      if (messages === 0) firstAtMs = now();
      messages++;
      const key = `${position.topic}\u0000${position.partition}`;
      const next = BigInt(position.offset) + 1n;
      const end = ends.get(key);
      if (!end) ends.set(key, { topic: position.topic, partition: position.partition, next });
      else if (next > end.next) end.next = next;
      records += items.length;
      for (const d of refused) dead.push(d);
      if (receipt) batch.receipts.push(receipt);
      if (traceReceipt) batch.traceReceipts.push(traceReceipt);
      for (const item of items) {
        switch (item.kind) {
          case 'transactions':
            batch.transactions.push(item);
            break;
          case 'messages':
            batch.messages.push(item);
            break;
          case 'accountStates':
            batch.accountStates.push(item);
            break;
          case 'traces':
            batch.traces.push(item);
            break;
          case 'actions':
            batch.actions.push(item);
            break;
          case 'traceBatches':
            break;
          case 'blocks':
            batch.blocks.push(item);
            blocks.push({ mcSeqno: item.record.mc_block_seqno ?? 0, seenAtMs: item.seenAtMs });
            break;
        }
      }
    },
    get records() {
      return records;
    },
    get messages() {
      return messages;
    },
    get firstAtMs() {
      return firstAtMs;
    },
    get blocks() {
      return blocks;
    },
    take() {
      if (messages === 0) return undefined;
      const taken: PendingBatch = { id: nextId++, batch, records, dead, ends: [...ends.values()], blocks, firstAtMs: firstAtMs ?? now() };
      batch = emptyBatch();
      records = 0;
      dead = [];
      messages = 0;
      firstAtMs = undefined;
      ends = new Map();
      blocks = [];
      return taken;
    },
  };
}
