import type { Cell } from '@ton/core';
import { readBoc, REQUEST_BOC } from '../cell-limits.js';
import * as v3 from '../v3/kinds.js';
import type { Kind } from '../v3/kinds.js';
import { type AccountAddress, parseAddress, rawAddress } from '../v3/address.js';

/**
 * Value types of v2 parameters (toncenter-v2.md §1.4) where they differ from v3's: shards are
 * signed decimal int64 only, booleans take `yes/no/on/off` too, addresses keep the form given,
 * workchains are the chain's. v3's kinds serve the rest (hashes, logical times).
 */

export const { hash, uint64, int32 } = v3;

/** An address as given: raw or user-friendly, with the flags of a user-friendly one. */
export type V2Address = AccountAddress & {
  raw: string;
  givenType: 'raw_form' | 'friendly_bounceable' | 'friendly_non_bounceable';
  testOnly: boolean;
};

/** Any address, whatever its workchain (the utils methods, which only reformat it). */
export const anyAddress: Kind<V2Address> = {
  accepts: v3.address.accepts,
  schema: v3.address.schema,
  parse(text) {
    const a = parseAddress(text);
    if (!a) return undefined;
    if (text.includes(':')) return { ...a, raw: rawAddress(a), givenType: 'raw_form', testOnly: false };
    const flags = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64')[0];
    return { ...a, raw: rawAddress(a), givenType: (flags & 0x40) === 0 ? 'friendly_bounceable' : 'friendly_non_bounceable', testOnly: (flags & 0x80) !== 0 };
  },
};

/**
 * The workchains TON has: the masterchain and the basechain (config param 12 lists no other). A
 * liteserver answers any other with an error of its own wording, which is the client's mistake.
 */
const WORKCHAINS: readonly number[] = [-1, 0];
const IN_WORKCHAINS = 'in workchain -1 (masterchain) or 0 (basechain)';

/** An account on the chain: an address in one of its workchains. */
export const address: Kind<V2Address> = {
  accepts: `${anyAddress.accepts}, ${IN_WORKCHAINS}`,
  schema: anyAddress.schema,
  parse(text) {
    const a = anyAddress.parse(text);
    return a && WORKCHAINS.includes(a.workchain) ? a : undefined;
  },
};

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

/** A BoC in base64 (standard or url-safe) with one root, within a message's size; parsed into its root cell. */
export const boc: Kind<Cell> = {
  accepts: `a bag of cells in base64 with one root and at most ${REQUEST_BOC.cells} cells`,
  schema: { type: 'string', format: 'byte' },
  parse(text) {
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
    const read = readBoc(Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64'), REQUEST_BOC);
    return 'roots' in read && read.roots.length === 1 ? read.roots[0] : undefined;
  },
};

/** A get-method: its name or its numeric id. */
export const methodName: Kind<string | bigint> = {
  accepts: 'a get-method name or numeric method id',
  schema: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  parse(text) {
    if (/^-?\d{1,20}$/.test(text)) return BigInt(text);
    return /^[A-Za-z_][A-Za-z0-9_?!:.-]{0,127}$/.test(text) ? text : undefined;
  },
};

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
