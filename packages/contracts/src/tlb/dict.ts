import type { DictionaryValue } from '@ton/core';
import { TlbMismatch } from './codec.js';

/**
 * Most entries a dictionary is read with. @ton/core's loader enumerates a dictionary once per path
 * to each leaf, and the forks of a hostile one can point twice to the same child: n cells, 2^n
 * entries (2^32 for a HashmapE 32, 2^256 for 256-bit keys), enough to hold a process for good.
 * Counting the leaves as they are read bounds the work, as a binary tree of k leaves has k - 1 forks.
 */
export const MAX_DICT_ENTRIES = 4096;

/** `value`, refusing (TlbMismatch) once more than `max` entries were read with this instance: make one per dictionary read. */
export function countedValue<V>(value: DictionaryValue<V>, max = MAX_DICT_ENTRIES): DictionaryValue<V> {
  let left = max;
  return {
    serialize: value.serialize,
    parse(s) {
      if (--left < 0) throw new TlbMismatch(`a dictionary of more than ${max} entries`);
      return value.parse(s);
    },
  };
}
