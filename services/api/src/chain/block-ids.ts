import type { BlockId } from '@tonstream/records';
import type { tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import type { Liteserver } from './liteserver.js';
import { ChainError } from './chain-error.js';

/** The masterchain's one shard, unsigned (2^63). */
export const MC_SHARD = 1n << 63n;
export const MASTERCHAIN = -1;

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** `ton.blockIdExt` (docs/toncenter-v2.md §3.2): shard as the signed decimal int64. */
export function blockIdExt(id: tonNode_blockIdExt) {
  return { '@type': 'ton.blockIdExt', workchain: id.workchain, shard: BigInt.asIntN(64, BigInt(id.shard)).toString(), seqno: id.seqno, root_hash: b64(id.rootHash), file_hash: b64(id.fileHash) };
}

/** A TL block id from the parts toncenter answers with (hashes base64, shard unsigned). */
export function tlBlockId(workchain: number, shard: bigint, seqno: number, rootHash: string, fileHash: string): tonNode_blockIdExt {
  return { kind: 'tonNode.blockIdExt', workchain, shard: BigInt.asIntN(64, shard).toString(), seqno, rootHash: Buffer.from(rootHash, 'base64'), fileHash: Buffer.from(fileHash, 'base64') };
}

/** The index's shard (unsigned hex) as v2's signed decimal. */
export function signedShard(hexShard: string): string {
  return BigInt.asIntN(64, BigInt(`0x${hexShard}`)).toString();
}

/** A v3 BlockId of the index as a short `ton.blockId`-like triple with v2's signed shard. */
export function shortBlockId(id: BlockId) {
  return { workchain: id.workchain, shard: signedShard(id.shard), seqno: id.seqno };
}

/** The full id of masterchain block `seqno`, or of the newest one when it is undefined. */
export async function masterchainBlock(lite: Liteserver, seqno: number | undefined): Promise<tonNode_blockIdExt> {
  if (seqno === undefined) return (await lite.masterchainInfo()).last;
  return (await lite.lookupBlock(MASTERCHAIN, MC_SHARD, { seqno })).id;
}

/** The full id of a block, checked against the hashes when given: 404 when they differ. */
export async function resolveBlock(lite: Liteserver, workchain: number, shard: bigint, seqno: number, rootHash?: string, fileHash?: string): Promise<tonNode_blockIdExt> {
  const found = await lite.lookupBlock(workchain, shard, { seqno });
  const id = found.id;
  if ((rootHash !== undefined && b64(id.rootHash) !== rootHash) || (fileHash !== undefined && b64(id.fileHash) !== fileHash)) {
    throw new ChainError(404, `block (${workchain},${BigInt.asIntN(64, shard)},${seqno}) with these hashes not found`);
  }
  return id;
}
