import * as v3 from '../http/kinds.js';
import type { Kind } from '../http/kinds.js';
import { WORKCHAINS } from '../http/chain-kinds.js';

/**
 * Value types of v2 parameters (docs/toncenter-v2.md §1.4) where they differ from v3's: shards are
 * signed decimal int64 only, booleans take `yes/no/on/off` too, addresses keep the form given,
 * workchains are the chain's. v3's kinds serve the rest (hashes, logical times).
 */

export const { hash, uint64, int32 } = v3;
export { address, anyAddress, boc, methodName, type V2Address } from '../http/chain-kinds.js';

/** A workchain of the chain (blocks, shards). */
export const workchain: Kind<number> = {
  accepts: `a workchain: -1 (masterchain) or 0 (basechain)`,
  schema: { type: 'integer', format: 'int32', enum: [...WORKCHAINS] },
  parse(text) {
    const v = int32.parse(text);
    return v !== undefined && WORKCHAINS.includes(v) ? v : undefined;
  },
};

const TRUE = new Set(['y', 'yes', 't', 'true', 'on', '1']);
const FALSE = new Set(['n', 'no', 'f', 'false', 'off', '0']);

export const bool: Kind<boolean> = {
  accepts: 'a boolean (y, yes, t, true, on, 1 / n, no, f, false, off, 0)',
  schema: { type: 'boolean' },
  parse: (text) => (TRUE.has(text.toLowerCase()) ? true : FALSE.has(text.toLowerCase()) ? false : undefined),
};

/** A shard id as v2 takes it: signed decimal int64 (`-9223372036854775808` is the whole workchain); unsigned for the store. */
export const shard: Kind<bigint> = {
  accepts: 'a shard id as a signed 64-bit decimal (e.g. -9223372036854775808)',
  schema: { type: 'string', pattern: '^[+-]?[0-9]{1,19}$', example: '-9223372036854775808' },
  parse(text) {
    if (!/^[+-]?\d{1,20}$/.test(text)) return undefined;
    const v = BigInt(text);
    return v >= -(2n ** 63n) && v < 2n ** 63n ? BigInt.asUintN(64, v) : undefined;
  },
};

/** A masterchain or block seqno: positive (toncenter: `seqno should be positive`). */
export const seqno = v3.intRange(1, 2 ** 32 - 1);
export const nonNegative = v3.intRange(0, 2 ** 32 - 1);

/** Any JSON value, kept as parsed JSON (the runGetMethod stack); checked by the handler. */
export const json: Kind<unknown> = {
  accepts: 'a JSON value',
  schema: { type: 'array' },
  parse(text) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  },
};
