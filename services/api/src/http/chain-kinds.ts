import type { Cell } from '@ton/core';
import { type AccountAddress, parseAddress, rawAddress } from '../chain/address.js';
import { readBoc, REQUEST_BOC } from '../chain/cell-limits.js';
import * as generic from './kinds.js';
import type { Kind } from './kinds.js';

/**
 * Kinds of chain values as v2 takes them (and v3's v2-compatible legacy endpoints): addresses kept
 * in the form given and limited to the chain's workchains, BoCs parsed into their root cell,
 * get-method names or ids.
 */

/** An address as given: raw or user-friendly, with the flags of a user-friendly one. */
export type V2Address = AccountAddress & {
  raw: string;
  givenType: 'raw_form' | 'friendly_bounceable' | 'friendly_non_bounceable';
  testOnly: boolean;
};

/** Any address, whatever its workchain (the utils methods, which only reformat it). */
export const anyAddress: Kind<V2Address> = {
  accepts: generic.address.accepts,
  schema: generic.address.schema,
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
export const WORKCHAINS: readonly number[] = [-1, 0];
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
