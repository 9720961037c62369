import { TonstreamError } from '@tonstream/errors';

/**
 * The fetcher's message: one block's BoC with the states of the accounts it touched.
 * Binary layout: u32be header length, UTF-8 JSON header, then the BoCs back to back in header
 * order (block first). Bytes stay bytes: no base64 inflation of multi-MB blocks.
 */
export type RawAccountState = {
  /** Raw address `0:ABC…`. */
  account: string;
  /** `Account` BoC after the block (liteserver getAccountState at this block). */
  boc: Uint8Array;
  last_trans_lt: string;
  last_trans_hash: string;
};

export type RawBlock = {
  workchain: number;
  /** 16 uppercase hex digits. */
  shard: string;
  seqno: number;
  root_hash: string;
  file_hash: string;
  /** The masterchain block that commits this block. */
  mc_seqno: number;
  /** When the fetcher first saw the committing masterchain block (ms since epoch), for freshness. */
  seen_at_ms: number;
  /** Masterchain blocks: how many blocks this one commits, itself included (the fetcher's bundle). */
  mc_blocks?: number;
  /** Masterchain blocks of a fetcher run that started the index: the run's first masterchain seqno. */
  index_from?: number;
  boc: Uint8Array;
  account_states: RawAccountState[];
};

type Header = Omit<RawBlock, 'boc' | 'account_states'> & {
  boc_len: number;
  accounts: { account: string; last_trans_lt: string; last_trans_hash: string; len: number }[];
};

export class CodecError extends TonstreamError {
  readonly code = 'RAW_BLOCK_INVALID';
  constructor(message: string) {
    super(message);
  }
}

export function encodeRawBlock(b: RawBlock): Buffer {
  const header: Header = {
    workchain: b.workchain,
    shard: b.shard,
    seqno: b.seqno,
    root_hash: b.root_hash,
    file_hash: b.file_hash,
    mc_seqno: b.mc_seqno,
    seen_at_ms: b.seen_at_ms,
    ...(b.mc_blocks === undefined ? {} : { mc_blocks: b.mc_blocks }),
    ...(b.index_from === undefined ? {} : { index_from: b.index_from }),
    boc_len: b.boc.length,
    accounts: b.account_states.map((a) => ({ account: a.account, last_trans_lt: a.last_trans_lt, last_trans_hash: a.last_trans_hash, len: a.boc.length })),
  };
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(head.length);
  return Buffer.concat([prefix, head, b.boc, ...b.account_states.map((a) => a.boc)]);
}

export function decodeRawBlock(buf: Uint8Array): RawBlock {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (bytes.length < 4) throw new CodecError('raw block message shorter than its header length');
  const headLen = bytes.readUInt32BE(0);
  if (4 + headLen > bytes.length) throw new CodecError('raw block header runs past the message');
  let header: Header;
  try {
    header = JSON.parse(bytes.subarray(4, 4 + headLen).toString('utf8'));
  } catch (err) {
    throw new CodecError(`raw block header is not JSON: ${(err as Error).message}`);
  }
  let p = 4 + headLen;
  const take = (n: number) => {
    if (!Number.isInteger(n) || n < 0 || p + n > bytes.length) throw new CodecError('raw block payload lengths do not match the message');
    const out = bytes.subarray(p, p + n);
    p += n;
    return out;
  };
  const boc = take(header.boc_len);
  const account_states = (header.accounts ?? []).map((a) => ({ account: a.account, last_trans_lt: a.last_trans_lt, last_trans_hash: a.last_trans_hash, boc: take(a.len) }));
  if (p !== bytes.length) throw new CodecError(`${bytes.length - p} unread bytes after the raw block payloads`);
  const { boc_len: _b, accounts: _a, ...ids } = header;
  for (const field of ['mc_blocks', 'index_from'] as const) {
    const v = ids[field];
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new CodecError(`raw block header ${field} is not a positive integer: ${JSON.stringify(v)}`);
  }
  return { ...ids, boc, account_states };
}

/** The Kafka key of a block: replays of the same block carry the same key. */
export function blockKey(b: { workchain: number; shard: string; seqno: number }): string {
  return `${b.workchain}:${b.shard}:${b.seqno}`;
}
