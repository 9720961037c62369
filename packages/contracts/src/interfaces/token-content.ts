import { rethrowBugs } from '@tonstream/errors';
import { type Cell, Dictionary, type Slice } from '@ton/core';
import { createHash } from 'node:crypto';
import { TlbMismatch } from '../tlb/codec.js';
import { countedValue } from '../tlb/dict.js';

/**
 * TEP-64 token content, as toncenter prints `jetton_content` / `collection_content` / `content`:
 * off-chain content (`0x01` + URI) is `{ uri }`; on-chain content (`0x00` + HashmapE 256 from
 * sha256(key) to `^ContentData`) is `{ key: value }` for the keys TEP-64 and the wallets use (a key
 * outside the list has only its hash on chain: it is left out). ContentData is a snake (`0x00`) or
 * chunks (`0x01` + HashmapE 32 ^cell), the value is its UTF-8 text.
 */
export type TokenContent = Record<string, string>;

const KNOWN_KEYS = ['uri', 'name', 'description', 'image', 'image_data', 'symbol', 'decimals', 'amount_style', 'render_type', 'social', 'websites', 'attributes', 'lottie', 'content_url', 'content_type'];
const KEY_BY_HASH = new Map(KNOWN_KEYS.map((k) => [BigInt('0x' + createHash('sha256').update(k).digest('hex')), k]));

/**
 * Cells the texts of one content may take between them: its dictionary can name one long snake
 * from every key and chunk (a DAG shares it), so the snakes share one budget.
 */
const MAX_CONTENT_CELLS = 8192;

/** A snake's bytes: the slice's whole bytes, then each first reference in turn; `budget` counts the cells. */
export function snakeBytes(s: Slice, budget?: { cells: number }): Buffer {
  const parts: Buffer[] = [];
  let cur: Slice | null = s;
  for (let depth = 0; cur && depth < 1024; depth++) {
    if (budget && --budget.cells < 0) throw new TlbMismatch(`token content over ${MAX_CONTENT_CELLS} cells`);
    parts.push(cur.loadBuffer(Math.floor(cur.remainingBits / 8)));
    cur = cur.remainingRefs > 0 ? cur.loadRef().beginParse() : null;
  }
  return Buffer.concat(parts);
}

const contentValue = {
  serialize: () => undefined,
  parse: (s: Slice): Cell => s.loadRef(),
};

function contentData(cell: Cell, budget: { cells: number }): string {
  const s = cell.beginParse();
  if (s.remainingBits < 8) return '';
  const tag = s.loadUint(8);
  if (tag === 0) return snakeBytes(s, budget).toString('utf8');
  if (tag === 1) {
    const chunks = s.loadDict(Dictionary.Keys.Uint(32), countedValue(contentValue) as never) as Dictionary<number, Cell>;
    return Buffer.concat(chunks.keys().sort((a, b) => a - b).map((k) => snakeBytes(chunks.get(k)!.beginParse(), budget))).toString('utf8');
  }
  return '';
}

/** A content cell read as TEP-64 says; null when it is neither layout. Never throws. */
export function readTokenContent(cell: Cell | null): TokenContent | null {
  if (!cell) return null;
  try {
    const s = cell.beginParse();
    if (s.remainingBits < 8) return null;
    const tag = s.loadUint(8);
    const budget = { cells: MAX_CONTENT_CELLS };
    if (tag === 1) return { uri: snakeBytes(s, budget).toString('utf8') };
    if (tag !== 0) return null;
    const dict = s.loadDict(Dictionary.Keys.BigUint(256), countedValue(contentValue) as never) as Dictionary<bigint, Cell>;
    const out: TokenContent = {};
    for (const [hash, value] of dict) {
      const key = KEY_BY_HASH.get(hash);
      if (key) out[key] = contentData(value, budget);
    }
    return out;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

/** A snake string without a tag (an NFT item's individual content, appended to its collection's common content). */
export function readSnakeText(cell: Cell | null): string | null {
  if (!cell) return null;
  try {
    return snakeBytes(cell.beginParse()).toString('utf8');
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}
