import { Cell } from '@ton/core';
import { ORDINARY, parseBoc } from '@tonstream/block';
import { DecodeLimitExceeded, type PrintBudget, type TlbJson, type TlbObject } from './tlb/codec.js';
import { layoutsFor } from './table.js';

/** Largest body BoC decoded (a message is at most 2^13 cells, on mainnet a few KB). */
export const MAX_BODY_BOC_BYTES = 256 * 1024;
/** Most cells in one body BoC decoded: a message's limit (config param 43, max_msg_cells). */
export const MAX_BODY_CELLS = 8192;
/** Cells one body's print may load through typed references (across nested payloads too). */
const MAX_PRINTED_CELLS = 4096;
/** Nested payload BoCs decoded inside one body, and how deep (ton-marker's depth is 10). */
const MAX_NESTED_DECODES = 256;
const MAX_NESTED_DEPTH = 10;
/**
 * Default for `decodeBudget()`: a message's cells (max_msg_cells). @ton/core hashes each cell it
 * loads: ~5 µs per cell for a chain, 30 to 60 µs for wide trees (8000-cell trees took 0.2 to 0.5 s
 * on a 2-core machine, twice that under load), so this bounds a request to about half a second.
 */
const REQUEST_CELLS = 8192;

/**
 * Cells that bodies sharing this budget may still load (one API request's bodies, say): @ton/core
 * hashes every cell of a BoC as it loads it, so a request of large bodies would hold the event loop.
 */
export type DecodeBudget = { cells: number };

export function decodeBudget(cells = REQUEST_CELLS): DecodeBudget {
  return { cells };
}

/** Work left for one top-level body. */
type Budget = PrintBudget & { decodes: number; request: DecodeBudget | null; printedCells: Map<string, Cell> };

/** A /decode body entry: the decoded object, `{"empty_cell": ""}`, or `{"error": "unknown: …"}`. */
export type BodyJson = TlbObject;

const unknown = (reason: string): BodyJson => ({ error: `unknown: ${reason}` });

/** Prints one cell with the layouts of its opcode; a string is the reason it is unknown. */
function printCell(cell: Cell, budget: Budget): TlbObject | string {
  if (cell.isExotic) return 'boc root is an exotic cell';
  if (cell.bits.length === 0 && cell.refs.length === 0) return { empty_cell: '' };
  if (cell.bits.length < 32) return `boc is too small, size=${cell.bits.length}`;
  const opcode = cell.beginParse().preloadUint(32);
  for (const layout of layoutsFor(opcode)) {
    try {
      return layout.print(cell.beginParse(), budget) as TlbObject;
    } catch (err) {
      if (err instanceof DecodeLimitExceeded) throw err;
      // Not this layout: try the next one for the opcode.
    }
  }
  return 'no parser succeeded';
}

/**
 * A BoC as the body to print, or the reason it is not one. The BoC is checked and its root looked
 * at with @tonstream/block's reader first (no hashing, ~100x faster than @ton/core on large BoCs),
 * so garbage and bodies of unknown opcodes never reach @ton/core.
 */
function loadBody(bytes: Uint8Array, budget: Budget): Cell | TlbObject | string {
  if (bytes.length > MAX_BODY_BOC_BYTES) return 'encoded boc size limit exceeded';
  let table;
  try {
    table = parseBoc(bytes);
  } catch {
    return 'failed to deserialize boc';
  }
  if (table.roots.length !== 1) return 'failed to deserialize boc';
  const root = table.roots[0];
  if (table.special[root] !== ORDINARY) return 'boc root is an exotic cell';
  const bits = table.bitLength[root];
  if (bits === 0 && table.refCount[root] === 0) return { empty_cell: '' };
  if (bits < 32) return `boc is too small, size=${bits}`;
  const offset = table.dataOffset[root];
  const opcode = ((table.bytes[offset] << 24) | (table.bytes[offset + 1] << 16) | (table.bytes[offset + 2] << 8) | table.bytes[offset + 3]) >>> 0;
  if (layoutsFor(opcode).length === 0) return 'no parser succeeded';
  if (table.count > MAX_BODY_CELLS) throw new DecodeLimitExceeded('decode limit - boc cell expansion limit exceeded');
  if (budget.request && (budget.request.cells -= table.count) < 0) throw new DecodeLimitExceeded('decode limit - request cell budget exceeded');
  try {
    const roots = Cell.fromBoc(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return roots.length === 1 ? roots[0] : 'failed to deserialize boc';
  } catch {
    return 'failed to deserialize boc';
  }
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** Base64 (standard alphabet, padding optional) to bytes, or null. */
function base64Bytes(text: string): Buffer | null {
  return STANDARD_BASE64.test(text) ? Buffer.from(text, 'base64') : null;
}

/** A body as its decoded object, or the reason it is unknown. */
function describe(bytes: Uint8Array, budget: Budget): TlbObject | string {
  const body = loadBody(bytes, budget);
  return body instanceof Cell ? printCell(body, budget) : body;
}

/**
 * Payload cells print as base64 BoCs; like ton-marker, each one that is itself a known body is
 * replaced by its decoded object, down to MAX_NESTED_DEPTH.
 */
function expandNested(value: TlbJson, depth: number, budget: Budget): TlbJson {
  if (typeof value === 'string') {
    if (!value.startsWith('te6c') || depth > MAX_NESTED_DEPTH) return value;
    if (--budget.decodes < 0) throw new DecodeLimitExceeded('recursive decode error - recursive decode operation limit exceeded');
    const printed = budget.printedCells.get(value);
    let decoded: TlbObject | string;
    if (printed) decoded = printCell(printed, budget);
    else {
      const bytes = base64Bytes(value);
      decoded = bytes ? describe(bytes, budget) : 'not base64';
    }
    return typeof decoded === 'string' ? value : expandNested(decoded, depth + 1, budget);
  }
  if (typeof value === 'boolean') return value;
  const out: TlbObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = expandNested(v, depth, budget);
  return out;
}

/**
 * toncenter's /decode entry for a body given as BoC bytes. Never throws. Bodies that share a
 * `request` budget stop being decoded (`decode limit - request cell budget exceeded`) once they
 * have loaded that many cells between them.
 */
export function bodyJson(boc: Uint8Array, request: DecodeBudget | null = null): BodyJson {
  const budget: Budget = { cells: MAX_PRINTED_CELLS, decodes: MAX_NESTED_DECODES, request, printedCells: new Map() };
  try {
    const printed = describe(boc, budget);
    if (typeof printed === 'string') return unknown(printed);
    return expandNested(printed, 0, budget) as TlbObject;
  } catch (err) {
    if (err instanceof DecodeLimitExceeded) return unknown(err.message);
    return unknown(`unhandled error - ${(err as Error).message}`);
  }
}

/** toncenter's /decode entry for a body given as text: a hex or base64 BoC. Never throws. */
export function bodyJsonFromText(text: string, request: DecodeBudget | null = null): BodyJson {
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : base64Bytes(text);
  return bytes ? bodyJson(bytes, request) : unknown('failed to decode base64');
}
