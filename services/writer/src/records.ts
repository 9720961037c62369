import { bundleLines, type Topics } from '@tonstream/bus';
import {
  type AccountStateRecord,
  type BlockManifest,
  type BlockRecord,
  InvalidRecordError,
  isTransactionRow,
  MANIFEST_HEADER,
  MAX_RECORD_CHARS,
  type MessageRow,
  parseManifest,
  parseRecord,
  type RecordKind,
  transactionRow,
  type TransactionRow,
} from '@tonstream/records';
import type { Receipt, ReceiptKind, TraceReceipt } from '@tonstream/store';
import { type ActionRecord, parseActionRecord, parseTraceBatch, parseTraceRecord, TRACE_BATCH_HEADER, type TraceBatch, type TraceRecord } from '@tonstream/traces';

/** A decoded record as consumed from one of the decoder's topics, with the JSON text to store. */
export type Item =
  | { kind: 'transactions'; record: TransactionRow; json: string }
  | { kind: 'messages'; record: MessageRow; json: string }
  | { kind: 'accountStates'; record: AccountStateRecord; json: string }
  /** A block's meta; `seenAtMs` (header `seen_at_ms`) is when the fetcher first saw its masterchain block. */
  | { kind: 'blocks'; record: BlockRecord; json: string; seenAtMs: number | null; manifest: BlockManifest }
  /** The tracer's output: keyed by trace, not by block; their receipts count toward the traces watermark. */
  | { kind: 'traces'; record: TraceRecord; json: string }
  | { kind: 'actions'; record: ActionRecord; json: string }
  /** The tracer's mark of a batch: no row, only its receipt. */
  | { kind: 'traceBatches'; record: TraceBatch; json: string };

export type ItemKind = Item['kind'];

/** Where a consumed message sits in Kafka. Offsets are kafkajs strings (64-bit). */
export type Position = { topic: string; partition: number; offset: string };

/** A record (or a whole message) the writer refuses, for the dead-letter topic. */
export type DeadLetter = {
  key: Buffer | string | null;
  value: Buffer | string | null;
  reason: string;
  source: Position;
  /** The record's line in its bundle; null when the whole message is unusable. */
  line: number | null;
};

/** What a consumed message amounts to: records to store, records refused, and its receipt. */
export type Consumed = {
  items: Item[];
  dead: DeadLetter[];
  /** Null when the message names no block (not the decoder's): nothing to count toward the watermark. */
  receipt: Receipt | null;
  /** The receipt of a tracer message that names its batch (header `mc_seqno`), toward the traces watermark. */
  traceReceipt?: TraceReceipt;
};

export type ConsumedMessage = {
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
};

/** Which record each consumed topic carries. */
export function topicKinds(topics: Topics): Map<string, ItemKind> {
  return new Map<string, ItemKind>([
    [topics.transactions, 'transactions'],
    [topics.messages, 'messages'],
    [topics.accountStates, 'accountStates'],
    [topics.blockMeta, 'blocks'],
    [topics.traces, 'traces'],
    [topics.actions, 'actions'],
    [topics.traceBatches, 'traceBatches'],
  ]);
}

const RECEIPT_KIND: Record<RecordKind, ReceiptKind> = { transactions: 'transactions', messages: 'messages', accountStates: 'account_states', blocks: 'block' };
/** The decoder keys every message of a block by `blockKey()`. */
const BLOCK_KEY = /^-?[0-9]{1,10}:[0-9A-F]{16}:[0-9]{1,10}$/;

/**
 * Reads a consumed message: a bundle of records, one per line, each fully checked. A line that is
 * not a usable record becomes a dead letter without its neighbours; a message without a value is
 * one dead letter. Never throws on any input.
 */
export function readMessage(kind: ItemKind, message: ConsumedMessage, position: Position, maxRecordChars = MAX_RECORD_CHARS, nowMs = Date.now()): Consumed {
  const headers = message.headers ?? {};
  const key = message.key === null ? null : message.key.toString('utf8');
  const items: Item[] = [];
  const dead: DeadLetter[] = [];
  const refuse = (reason: string, value: Buffer | string | null, line: number | null) => dead.push({ key: message.key, value, reason, source: position, line });
  if (message.value === null) {
    refuse(`${kind} message has no value`, null, null);
  } else {
    bundleLines(message.value).forEach((line, i) => {
      try {
        items.push(item(kind, line, headers, maxRecordChars));
      } catch (err) {
        if (!(err instanceof InvalidRecordError)) throw err;
        refuse(err.message, line, i);
      }
    });
  }
  const traceReceipt = traceReceiptFor(kind, key, headers, items, dead.length, nowMs);
  return { items, dead, receipt: receiptFor(kind, key, position.partition, headers, items, dead.length, nowMs), ...(traceReceipt ? { traceReceipt } : {}) };
}

function item(kind: ItemKind, json: string, headers: ConsumedMessage['headers'] & object, maxChars: number): Item {
  switch (kind) {
    case 'transactions': {
      const record = parseRecord(kind, json, maxChars);
      // Stored with its messages by hash: they have their own table (older decoders embedded them).
      if (isTransactionRow(record)) return { kind, record, json };
      const row = transactionRow(record);
      return { kind, record: row, json: JSON.stringify(row) };
    }
    case 'messages':
      return { kind, record: parseRecord(kind, json, maxChars), json };
    case 'accountStates':
      return { kind, record: parseRecord(kind, json, maxChars), json };
    case 'traces':
      return { kind, record: parseTraceRecord(json, maxChars), json };
    case 'actions':
      return { kind, record: parseActionRecord(json, maxChars), json };
    case 'traceBatches':
      return { kind, record: parseTraceBatch(json), json };
    case 'blocks': {
      const record = parseRecord(kind, json, maxChars);
      // A meta without its manifest cannot tell when the block is stored: refused with the reason.
      const manifest = parseManifest(header(headers, MANIFEST_HEADER));
      if ('problem' in manifest) throw new InvalidRecordError(manifest.problem);
      const seen = Number(header(headers, 'seen_at_ms'));
      return { kind, record, json, seenAtMs: Number.isFinite(seen) && seen > 0 ? seen : null, manifest: manifest.manifest };
    }
  }
}

/** The receipt of a message of a block: what it stored, what it refused, and the block's manifest. */
function receiptFor(kind: ItemKind, key: string | null, part: number, headers: ConsumedMessage['headers'] & object, items: Item[], dead: number, nowMs: number): Receipt | null {
  if (kind === 'traces' || kind === 'actions' || kind === 'traceBatches' || key === null || !BLOCK_KEY.test(key)) return null;
  const first = items[0];
  const mcSeqno = Number(header(headers, 'mc_seqno') ?? (first && 'mc_block_seqno' in first.record ? first.record.mc_block_seqno : undefined));
  if (!Number.isInteger(mcSeqno) || mcSeqno < 0 || mcSeqno > 0xffff_ffff) return null;
  const receipt: Receipt = {
    mc_seqno: mcSeqno,
    block: key,
    kind: RECEIPT_KIND[kind],
    part,
    records: items.length,
    dead,
    expect_transactions: 0,
    expect_messages: 0,
    expect_account_states: 0,
    mc_blocks: 0,
    index_from: 0,
    gen_utime: 0,
    written_ms: nowMs,
  };
  const meta = items[0];
  if (meta?.kind === 'blocks') {
    receipt.expect_transactions = meta.manifest.transactions;
    receipt.expect_messages = meta.manifest.messages;
    receipt.expect_account_states = meta.manifest.account_states;
    receipt.mc_blocks = meta.manifest.mc_blocks ?? 0;
    receipt.index_from = meta.manifest.index_from ?? 0;
    receipt.gen_utime = Number(meta.record.gen_utime);
  }
  return receipt;
}

/**
 * The receipt of a tracer message (trace-progress.ts): a trace's record or its actions, keyed by the
 * trace so a replay collapses onto it, or a batch's mark. None for a message without its batch's
 * seqno (a tracer older than the marks) or without a trace key.
 */
function traceReceiptFor(kind: ItemKind, key: string | null, headers: ConsumedMessage['headers'] & object, items: Item[], dead: number, nowMs: number): TraceReceipt | undefined {
  const receipt = { records: items.length, dead, first_mc_seqno: 0, expect_traces: 0, expect_actions: 0, written_ms: nowMs };
  if (kind === 'traceBatches') {
    const mark = items[0];
    if (mark?.kind !== 'traceBatches') return undefined;
    return { ...receipt, mc_seqno: mark.record.mc_seqno, kind: 'batch', trace_id: '', first_mc_seqno: mark.record.first_mc_seqno, expect_traces: mark.record.traces, expect_actions: mark.record.actions };
  }
  if (kind !== 'traces' && kind !== 'actions') return undefined;
  const mcSeqno = Number(header(headers, TRACE_BATCH_HEADER));
  if (key === null || key.length > 64 || !Number.isInteger(mcSeqno) || mcSeqno < 0 || mcSeqno > 0xffff_ffff) return undefined;
  return { ...receipt, mc_seqno: mcSeqno, kind, trace_id: key };
}

function header(headers: ConsumedMessage['headers'] & object, name: string): string | undefined {
  const v = headers[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}
