/**
 * Kafka's default key partitioning (Java client `Utils.murmur2`, `toPositive(hash) % partitions`, as
 * kafkajs's DefaultPartitioner does it) in 32-bit integer arithmetic. kafkajs computes the same hash
 * with 64-bit Long objects, a few microseconds per message; producers that send thousands of
 * records per request compute partitions with this and pass them explicitly.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** murmur2 of the first `length` bytes of `data`, as a signed 32-bit integer (what Kafka's Java client returns). */
export function murmur2(data: Uint8Array, length = data.length): number {
  let h = SEED ^ length;
  const tail = length & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The 1-3 trailing bytes (Java's switch with fall-through).
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2] << 16;
  if (rest >= 2) h ^= data[tail + 1] << 8;
  if (rest >= 1) h = Math.imul(h ^ data[tail], M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Keys are encoded here rather than into a new buffer each: the decoder partitions every record. */
let scratch = Buffer.allocUnsafe(256);

/** The partition Kafka's default partitioner picks for `key` (UTF-8) among `partitions`. */
export function partitionForKey(key: string | Uint8Array, partitions: number): number {
  if (typeof key !== 'string') return (murmur2(key) & 0x7fffffff) % partitions;
  // A UTF-16 code unit takes at most 3 UTF-8 bytes, so the key always fits whole.
  if (scratch.length < key.length * 3) scratch = Buffer.allocUnsafe(key.length * 3);
  const length = scratch.write(key, 0, 'utf8');
  return (murmur2(scratch, length) & 0x7fffffff) % partitions;
}
