import { rethrowBugs } from '@tonstream/errors';
import { type Cell, Dictionary, type Slice } from '@ton/core';
import { countedValue } from '../tlb/dict.js';

/**
 * Get-method ids. FunC and Tact give a get-method the id `(crc16(name) & 0xffff) | 0x10000`
 * (CRC-16/XMODEM), and compile a contract's methods into one dictionary keyed by signed 19-bit
 * ids that the code's entry point jumps through: `SETCP0; <dict> 19 DICTPUSHCONST; DICTIGETJMPZ;
 * 11 THROWARG` (bits FF00 F4A413 F4BC F2C80B), the dictionary being the root cell's first reference.
 */

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The id a get-method named `name` gets. */
export function methodId(name: string): number {
  return (crc16(Buffer.from(name, 'utf8')) & 0xffff) | 0x10000;
}

/** The entry point every FunC/Tact contract starts with, up to the dictionary's key width (19). */
const ENTRY_PREFIX = 'FF00F4A413';

const ignoreValue = { serialize: () => undefined, parse: (_: Slice) => null };

/**
 * The method ids in a contract's code (recv_internal 0, recv_external -1 and tick-tock included)
 * as toncenter's `contract_methods` lists them: the dictionary keys read as stored, unsigned (so
 * recv_external -1 is 524287, tick-tock -2 is 524286), ascending. Null when the code does not start
 * with the standard entry point (hand-written Fift, a library cell: those need their code resolved first).
 */
export function getMethodIds(code: Cell): number[] | null {
  if (code.isExotic || code.refs.length === 0) return null;
  if (!code.bits.toString().startsWith(ENTRY_PREFIX)) return null;
  try {
    const dict = Dictionary.loadDirect(Dictionary.Keys.Uint(19), countedValue(ignoreValue) as never, code.refs[0]);
    return dict.keys().sort((a, b) => a - b);
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}
