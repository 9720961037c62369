/**
 * `liteServer.getOutMsgQueueSizes`, which ton-lite-client's generated schema lacks, written from
 * upstream ton-blockchain/ton tl/generate/scheme/lite_api.tl:
 *
 *   liteServer.getOutMsgQueueSizes mode:# wc:mode.0?int shard:mode.0?long = liteServer.OutMsgQueueSizes;
 *   liteServer.outMsgQueueSize id:tonNode.blockIdExt size:int = liteServer.OutMsgQueueSize;
 *   liteServer.outMsgQueueSizes shards:(vector liteServer.outMsgQueueSize) ext_msg_queue_size_limit:int
 *     = liteServer.OutMsgQueueSizes;
 *
 * Constructor ids are crc32 of those lines with the parentheses dropped (as for every TL id; the
 * tests check the rule on ton-lite-client's own ids). The vector holds bare entries (no id each).
 */
import type { tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { decodeBlockIdExt, encodeBlockIdExt } from './list-block-transactions-ext.js';
import type { TlDecoder, TlEncoder, TlReader } from './tl-buffer.js';

export const GET_OUT_MSG_QUEUE_SIZES_ID = 0x7bc19c36;
export const OUT_MSG_QUEUE_SIZES_ID = 0xf8504a03 | 0;
/** Mode bit 0: only the shards intersecting (wc, shard). */
const MODE_SHARD = 1;

export type GetOutMsgQueueSizesRequest = {
  readonly kind: 'liteServer.getOutMsgQueueSizes';
  readonly mode: number;
  /** With mode bit 0: the workchain and shard (signed int64, decimal) to answer for. */
  readonly wc: number | null;
  readonly shard: string | null;
};

export type OutMsgQueueSize = { readonly kind: 'liteServer.outMsgQueueSize'; readonly id: tonNode_blockIdExt; readonly size: number };

export type OutMsgQueueSizes = {
  readonly kind: 'liteServer.outMsgQueueSizes';
  /** The masterchain block first, then each shard's top block, as upstream lists them. */
  readonly shards: readonly OutMsgQueueSize[];
  /** Queue size above which collators skip low-priority external messages. */
  readonly extMsgQueueSizeLimit: number;
};

export function decodeGetOutMsgQueueSizes(r: TlReader): GetOutMsgQueueSizesRequest {
  const mode = r.readUInt32();
  const withShard = (mode & MODE_SHARD) !== 0;
  const wc = withShard ? r.readInt32() : null;
  const shard = withShard ? r.readInt64() : null;
  return { kind: 'liteServer.getOutMsgQueueSizes', mode, wc, shard };
}

/** Boxed `liteServer.outMsgQueueSizes`. */
export function encodeOutMsgQueueSizes(v: OutMsgQueueSizes, e: TlEncoder): void {
  e.writeInt32(OUT_MSG_QUEUE_SIZES_ID);
  e.writeUInt32(v.shards.length);
  for (const s of v.shards) {
    encodeBlockIdExt(s.id, e);
    e.writeInt32(s.size);
  }
  e.writeInt32(v.extMsgQueueSizeLimit);
}

/** The function for clients: `engine.query(getOutMsgQueueSizes, request)` with ton-lite-client's engines. */
export const getOutMsgQueueSizes = {
  encodeRequest(src: GetOutMsgQueueSizesRequest, e: TlEncoder): void {
    e.writeInt32(GET_OUT_MSG_QUEUE_SIZES_ID);
    e.writeUInt32(src.mode);
    if (src.mode & MODE_SHARD) {
      if (src.wc === null || src.shard === null) throw new TypeError('getOutMsgQueueSizes: mode bit 0 set but `wc` or `shard` missing');
      e.writeInt32(src.wc);
      e.writeInt64(src.shard);
    }
  },
  decodeResponse(d: TlDecoder): OutMsgQueueSizes {
    const kind = d.readInt32();
    if (kind !== OUT_MSG_QUEUE_SIZES_ID) throw new Error(`expected liteServer.outMsgQueueSizes, got constructor 0x${(kind >>> 0).toString(16)}`);
    const count = d.readUInt32();
    const shards: OutMsgQueueSize[] = [];
    for (let i = 0; i < count; i++) shards.push({ kind: 'liteServer.outMsgQueueSize', id: decodeBlockIdExt(d), size: d.readInt32() });
    return { kind: 'liteServer.outMsgQueueSizes', shards, extMsgQueueSizeLimit: d.readInt32() };
  },
};
