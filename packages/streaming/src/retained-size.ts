/**
 * Estimated heap bytes V8 spends on a value, for the resume window's byte bound. Sizes are those of a
 * 64-bit V8 without pointer compression (how Node ships): 8-byte slots, a string's header, an object's
 * map/properties/elements words. Property names are shared by every object of a shape and not counted.
 */

const SLOT_BYTES = 8;
const STRING_HEADER_BYTES = 16;
const OBJECT_HEADER_BYTES = 3 * SLOT_BYTES;
/** A JSArray plus its elements store's header. */
const ARRAY_HEADER_BYTES = 4 * SLOT_BYTES + 2 * SLOT_BYTES;
/** A JSMap/JSSet and its hash table's header and buckets. */
const COLLECTION_HEADER_BYTES = 4 * SLOT_BYTES + 6 * SLOT_BYTES;
/** Key, value and chain slots of an ordered hash table entry (a set entry has no value: counted alike). */
const COLLECTION_ENTRY_BYTES = 3 * SLOT_BYTES + SLOT_BYTES;
const HEAP_NUMBER_BYTES = 2 * SLOT_BYTES;
/** V8 stores a string one byte per character while all are Latin-1, two bytes otherwise. */
const TWO_BYTE = /[\u0100-\uffff]/;

const align = (n: number) => Math.ceil(n / SLOT_BYTES) * SLOT_BYTES;

/** Bytes of one string's characters and header. */
export function stringBytes(s: string): number {
  return align(STRING_HEADER_BYTES + (TWO_BYTE.test(s) ? 2 * s.length : s.length));
}

/**
 * Bytes of everything reachable from `value` through plain objects, arrays, Maps and Sets; an object
 * reached twice is counted once. Numbers that fit a small integer live in their slot; others are boxed.
 */
export function retainedBytes(value: unknown): number {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  let bytes = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') bytes += stringBytes(v);
    else if (typeof v === 'number') bytes += Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? 0 : HEAP_NUMBER_BYTES;
    else if (typeof v === 'bigint') bytes += HEAP_NUMBER_BYTES + align(v.toString(16).length / 2);
    else if (typeof v === 'object' && v !== null && !seen.has(v)) {
      seen.add(v);
      if (Array.isArray(v)) {
        bytes += ARRAY_HEADER_BYTES + v.length * SLOT_BYTES;
        for (const x of v) stack.push(x);
      } else if (v instanceof Map) {
        bytes += COLLECTION_HEADER_BYTES + v.size * COLLECTION_ENTRY_BYTES;
        for (const [k, x] of v) stack.push(k, x);
      } else if (v instanceof Set) {
        bytes += COLLECTION_HEADER_BYTES + v.size * COLLECTION_ENTRY_BYTES;
        for (const x of v) stack.push(x);
      } else {
        const values = Object.values(v);
        bytes += OBJECT_HEADER_BYTES + values.length * SLOT_BYTES;
        for (const x of values) stack.push(x);
      }
    }
  }
  return bytes;
}
