import type { IHeaders, Message } from 'kafkajs';

/**
 * What Kafka adds around each record's key, value and headers (lengths, attributes, offset and
 * timestamp deltas: a few varints per record and per header), rounded up generously...
 */
const RECORD_OVERHEAD_BYTES = 256;
/** ...and around a record batch (its header is 61 bytes). */
const BATCH_OVERHEAD_BYTES = 1024;
/** Header a cut dead letter carries: its value's size before the cut, in bytes. */
export const TRUNCATED_FROM_HEADER = 'truncated_from_bytes';

const bytes = (v: Buffer | string | null | undefined) => (v == null ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length);

function headerBytes(headers: IHeaders | undefined): number {
  let n = 0;
  for (const [k, v] of Object.entries(headers ?? {})) for (const one of Array.isArray(v) ? v : [v]) n += Buffer.byteLength(k) + bytes(one);
  return n;
}

/** A record's size as the broker counts it against `max.message.bytes`, rounded up. */
export function recordBytes(m: Message): number {
  return bytes(m.key) + bytes(m.value) + headerBytes(m.headers) + RECORD_OVERHEAD_BYTES;
}

/**
 * Dead letters as produce requests the broker accepts: each chunk's record batch stays within
 * `maxMessageBytes` (the topic's `max.message.bytes` limits a whole batch), and a dead letter too big
 * on its own (a raw block at the limit plus the reason headers) keeps its key and headers and the
 * start of its value, with TRUNCATED_FROM_HEADER saying how big it was. Refused, it would be retried
 * forever: the broker never takes it.
 */
export function deadLetterChunks(messages: Message[], maxMessageBytes: number): Message[][] {
  const budget = maxMessageBytes - BATCH_OVERHEAD_BYTES;
  const chunks: Message[][] = [];
  let chunk: Message[] = [];
  let used = 0;
  for (const original of messages) {
    const m = fit(original, budget);
    const size = recordBytes(m);
    if (chunk.length > 0 && used + size > budget) {
      chunks.push(chunk);
      chunk = [];
      used = 0;
    }
    chunk.push(m);
    used += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

function fit(m: Message, budget: number): Message {
  if (recordBytes(m) <= budget) return m;
  const value = typeof m.value === 'string' ? Buffer.from(m.value) : (m.value ?? Buffer.alloc(0));
  const headers = { ...m.headers, [TRUNCATED_FROM_HEADER]: String(value.length) };
  const room = budget - recordBytes({ ...m, value: null, headers });
  if (room < 0) throw new Error(`a dead letter's key and headers alone take more than ${budget} bytes`);
  return { ...m, value: value.subarray(0, room), headers };
}
