import { type AccountStateRecord, type BlockRecord, isTransactionRow, type MessageRow, transactionRow, type TransactionRow } from '@tonstream/block';
import { bundleLines, type Topics } from '@tonstream/bus';

/** A decoded record as consumed from one of the decoder's topics, with the JSON text to store. */
export type Item =
  | { kind: 'transactions'; record: TransactionRow; json: string }
  | { kind: 'messages'; record: MessageRow; json: string }
  | { kind: 'accountStates'; record: AccountStateRecord; json: string }
  /** A block's meta; `seenAtMs` (header `seen_at_ms`) is when the fetcher first saw its masterchain block. */
  | { kind: 'blocks'; record: BlockRecord; json: string; seenAtMs: number | null };

export type ItemKind = Item['kind'];

/** A message the writer cannot use (not JSON, or not the record its topic carries). */
export class InvalidRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRecordError';
  }
}

/** Which record each consumed topic carries. */
export function topicKinds(topics: Topics): Map<string, ItemKind> {
  return new Map<string, ItemKind>([
    [topics.transactions, 'transactions'],
    [topics.messages, 'messages'],
    [topics.accountStates, 'accountStates'],
    [topics.blockMeta, 'blocks'],
  ]);
}

/** The fields each record must have for the store to key it. */
const REQUIRED: Record<ItemKind, string[]> = {
  transactions: ['account', 'lt', 'hash', 'block_ref', 'description', 'out_msgs'],
  messages: ['hash', 'direction', 'tx_hash', 'tx_lt', 'message_content'],
  accountStates: ['account', 'last_trans_lt', 'balance', 'status'],
  blocks: ['workchain', 'shard', 'seqno', 'root_hash', 'gen_utime'],
};

type Headers = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

/**
 * Reads a consumed message: a bundle of records, one per line. A line that is not a usable record is
 * reported in `invalid` and skipped without its neighbours; a message without a value has no records.
 */
export function parseBundle(kind: ItemKind, value: Buffer | null, headers: Headers = {}): { items: Item[]; invalid: string[] } {
  if (value === null) return { items: [], invalid: [`${kind} message has no value`] };
  const items: Item[] = [];
  const invalid: string[] = [];
  for (const line of bundleLines(value)) {
    try {
      items.push(parseItem(kind, line, headers));
    } catch (err) {
      if (!(err instanceof InvalidRecordError)) throw err;
      invalid.push(err.message);
    }
  }
  return { items, invalid };
}

/** Reads one record: a line of a bundle, with its message's headers. */
export function parseItem(kind: ItemKind, json: string, headers: Headers = {}): Item {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json);
  } catch (err) {
    throw new InvalidRecordError(`${kind} message is not JSON: ${(err as Error).message}`);
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new InvalidRecordError(`${kind} message is not a JSON object`);
  const missing = REQUIRED[kind].filter((f) => record[f] === undefined);
  if (missing.length > 0) throw new InvalidRecordError(`${kind} record lacks ${missing.join(', ')}`);
  if (kind === 'transactions') {
    const t = record as TransactionRow;
    if (isTransactionRow(t)) return { kind, record: t, json };
    // Stored with its messages by hash: they have their own table (older decoders embedded them).
    const row = transactionRow(t);
    return { kind, record: row, json: JSON.stringify(row) };
  }
  if (kind === 'blocks') {
    const seen = Number(header(headers, 'seen_at_ms'));
    return { kind, record: record as BlockRecord, json, seenAtMs: Number.isFinite(seen) && seen > 0 ? seen : null };
  }
  return { kind, record, json } as Item;
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}
