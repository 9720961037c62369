import type { AccountStateRecord, BlockRecord, MessageRow, TransactionRow } from '@tonstream/block';
import type { Topics } from '@tonstream/bus';

/** A decoded record as consumed from one of the decoder's topics. */
export type Item =
  | { kind: 'transactions'; record: TransactionRow }
  | { kind: 'messages'; record: MessageRow }
  | { kind: 'accountStates'; record: AccountStateRecord }
  /** A block's meta; `seenAtMs` (header `seen_at_ms`) is when the fetcher first saw its masterchain block. */
  | { kind: 'blocks'; record: BlockRecord; seenAtMs: number | null };

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

/** Reads one record: a line of a bundle (`bundleLines`), with its message's headers. */
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
  if (kind === 'transactions') return { kind, record: withMessageHashesOnly(record as TransactionRow) };
  if (kind === 'blocks') {
    const seen = Number(header(headers, 'seen_at_ms'));
    return { kind, record: record as BlockRecord, seenAtMs: Number.isFinite(seen) && seen > 0 ? seen : null };
  }
  return { kind, record } as Item;
}

/**
 * The store keeps a transaction's messages in the messages table (from the messages topic) and only
 * their hashes with the transaction. The decoder publishes them so; records from older decoders that
 * embedded whole messages are cut down here, keeping batches that wait for ClickHouse small.
 */
function withMessageHashesOnly(t: TransactionRow): TransactionRow {
  const hashOnly = (m: { hash: string }) => ({ hash: m.hash });
  return { ...t, in_msg: t.in_msg ? hashOnly(t.in_msg) : null, out_msgs: t.out_msgs.map(hashOnly) };
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}
