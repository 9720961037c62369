/**
 * `liteServer.listBlockTransactionsExt`, which ton-lite-client's generated schema lacks, written from
 * upstream ton-blockchain/ton tl/generate/scheme/lite_api.tl:
 *
 *   liteServer.listBlockTransactionsExt id:tonNode.blockIdExt mode:# count:#
 *     after:mode.7?liteServer.transactionId3 reverse_order:mode.6?true want_proof:mode.5?true
 *     = liteServer.BlockTransactionsExt;
 *   liteServer.blockTransactionsExt id:tonNode.blockIdExt req_count:# incomplete:Bool
 *     transactions:bytes proof:bytes = liteServer.BlockTransactionsExt;
 *
 * Constructor ids are crc32 of those lines, checked in the tests against the ids ton-lite-client
 * uses for the non-Ext pair. `?true` fields occupy no bytes: the mode bit is the value.
 */
import type { liteServer_transactionId3, tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { BOOL_FALSE, BOOL_TRUE, type TlDecoder, type TlEncoder, type TlReader } from './tl-buffer.js';

export const LIST_BLOCK_TRANSACTIONS_EXT_ID = 0x0079dd5c;
export const BLOCK_TRANSACTIONS_EXT_ID = 0xfb8ffce4 | 0;
const MODE_AFTER = 1 << 7;
const MODE_REVERSE_ORDER = 1 << 6;
const MODE_WANT_PROOF = 1 << 5;

/** Request object, shaped like ton-lite-client's `liteServer_listBlockTransactions`. */
export type ListBlockTransactionsExtRequest = {
  readonly kind: 'liteServer.listBlockTransactionsExt';
  readonly id: tonNode_blockIdExt;
  /** Bits 0-2 select fields as for listBlockTransactions; 7: `after` present; 6: reverse order; 5: want proof. */
  readonly mode: number;
  readonly count: number;
  readonly after: liteServer_transactionId3 | null;
  readonly reverseOrder: boolean | null;
  readonly wantProof: boolean | null;
};

export type BlockTransactionsExt = {
  readonly kind: 'liteServer.blockTransactionsExt';
  readonly id: tonNode_blockIdExt;
  readonly reqCount: number;
  readonly incomplete: boolean;
  /** BoC with one root per transaction. */
  readonly transactions: Buffer;
  readonly proof: Buffer;
};

export function encodeBlockIdExt(id: tonNode_blockIdExt, e: TlEncoder): void {
  e.writeInt32(id.workchain);
  e.writeInt64(id.shard);
  e.writeInt32(id.seqno);
  e.writeInt256(id.rootHash);
  e.writeInt256(id.fileHash);
}

export function decodeBlockIdExt(d: TlDecoder): tonNode_blockIdExt {
  return { kind: 'tonNode.blockIdExt', workchain: d.readInt32(), shard: d.readInt64(), seqno: d.readInt32(), rootHash: d.readInt256(), fileHash: d.readInt256() };
}

type ListArgs = Omit<ListBlockTransactionsExtRequest, 'kind'>;

/**
 * Arguments of listBlockTransactions[Ext] as upstream lays them out. ton-lite-client encodes the
 * `?true` flags as a Bool when the bit is set (its schema bug); a Bool constructor right after is
 * taken as that value so both encodings parse.
 */
export function decodeListArgs(r: TlReader): ListArgs {
  const id = decodeBlockIdExt(r);
  const mode = r.readUInt32();
  const count = r.readUInt32();
  const after: liteServer_transactionId3 | null =
    mode & MODE_AFTER ? { kind: 'liteServer.transactionId3', account: r.readInt256(), lt: r.readInt64() } : null;
  const flag = (bit: number): boolean | null => {
    if (!(mode & bit)) return null;
    if (r.remaining >= 4) {
      const next = r.peekInt32() >>> 0;
      if (next === BOOL_TRUE || next === BOOL_FALSE) return r.readBool();
    }
    return true;
  };
  const reverseOrder = flag(MODE_REVERSE_ORDER);
  const wantProof = flag(MODE_WANT_PROOF);
  return { id, mode, count, after, reverseOrder, wantProof };
}

export function decodeListBlockTransactionsExt(r: TlReader): ListBlockTransactionsExtRequest {
  return { kind: 'liteServer.listBlockTransactionsExt', ...decodeListArgs(r) };
}

/** Boxed `liteServer.blockTransactionsExt`. */
export function encodeBlockTransactionsExt(v: BlockTransactionsExt, e: TlEncoder): void {
  e.writeInt32(BLOCK_TRANSACTIONS_EXT_ID);
  encodeBlockIdExt(v.id, e);
  e.writeUInt32(v.reqCount);
  e.writeBool(v.incomplete);
  e.writeBuffer(v.transactions);
  e.writeBuffer(v.proof);
}

/**
 * The function for clients: `engine.query(listBlockTransactionsExt, request)` with ton-lite-client's
 * engines (its TLWriteBuffer/TLReadBuffer satisfy TlEncoder/TlDecoder).
 */
export const listBlockTransactionsExt = {
  encodeRequest(src: ListBlockTransactionsExtRequest, e: TlEncoder): void {
    e.writeInt32(LIST_BLOCK_TRANSACTIONS_EXT_ID);
    encodeBlockIdExt(src.id, e);
    e.writeUInt32(src.mode);
    e.writeUInt32(src.count);
    if (src.mode & MODE_AFTER) {
      if (!src.after) throw new TypeError('listBlockTransactionsExt: mode bit 7 set but `after` missing');
      e.writeInt256(src.after.account);
      e.writeInt64(src.after.lt);
    }
  },
  decodeResponse(d: TlDecoder): BlockTransactionsExt {
    const kind = d.readInt32();
    if (kind !== BLOCK_TRANSACTIONS_EXT_ID) throw new Error(`expected liteServer.blockTransactionsExt, got constructor 0x${(kind >>> 0).toString(16)}`);
    return {
      kind: 'liteServer.blockTransactionsExt',
      id: decodeBlockIdExt(d),
      reqCount: d.readUInt32(),
      incomplete: d.readBool(),
      transactions: d.readBuffer(),
      proof: d.readBuffer(),
    };
  },
};
