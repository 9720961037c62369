import { rethrowBugs } from '@tonstream/errors';
import type { Cell, Slice } from '@ton/core';

/** Bytes of a snake-encoded value: the rest of this cell's bits, then the first ref's, and so on. */
export function snakeBytes(slice: Slice): Buffer {
  const parts: Buffer[] = [];
  let s: Slice | null = slice;
  while (s) {
    const bits = s.remainingBits - (s.remainingBits % 8);
    parts.push(s.loadBuffer(bits / 8));
    s = s.remainingRefs > 0 ? s.loadRef().beginParse() : null;
  }
  return Buffer.concat(parts);
}

/** UTF-8 text with each invalid byte written as `\xNN` (Python's backslashreplace) and NULs dropped. */
export function decodeText(bytes: Buffer): string {
  // Valid UTF-8 without a BOM decodes the same whole as character by character (each BOM a chunk
  // would drop): one decoder call instead of one per character.
  if (bytes.indexOf(BOM) === -1) {
    const whole = validUtf8(bytes);
    if (whole !== null) return whole.replaceAll('\u0000', '');
  }
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    const chunk = len > 0 && i + len <= bytes.length ? bytes.subarray(i, i + len) : null;
    const text = chunk ? validUtf8(chunk) : null;
    if (text === null) {
      out += `\\x${b.toString(16).padStart(2, '0')}`;
      i += 1;
    } else {
      out += text;
      i += len;
    }
  }
  return out.replaceAll('\u0000', '');
}

const strict = new TextDecoder('utf-8', { fatal: true });
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function validUtf8(chunk: Buffer): string | null {
  try {
    return strict.decode(chunk);
  } catch {
    return null;
  }
}

export type Comment = { text: string; encrypted: boolean } | null;

/**
 * The comment a body carries (toncenter's rule): opcode 0 -> text, 0x2167da4b -> encrypted bytes as
 * base64; only when what follows the opcode is whole bytes with at most one ref.
 */
export function readComment(body: Cell): Comment {
  if (body.bits.length < 32) return null;
  const s = body.beginParse();
  const opcode = s.loadUint(32);
  if (opcode !== 0 && opcode !== 0x2167da4b) return null;
  if (s.remainingBits < 8 || s.remainingBits % 8 !== 0 || s.remainingRefs > 1) return null;
  try {
    const bytes = snakeBytes(s);
    return opcode === 0 ? { text: decodeText(bytes), encrypted: false } : { text: bytes.toString('base64'), encrypted: true };
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}
