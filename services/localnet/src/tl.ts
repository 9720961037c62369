/**
 * Between ton-lite-client's TL objects (shards as signed decimal strings, hashes as Buffers) and the
 * chain's records (unsigned bigint shards, lowercase hex hashes), and from chain errors to the
 * liteServer.error codes a real liteserver answers with.
 */
import { ErrorCode, LiteErrorAnswer } from '@tonstream/liteserver-emulator';
import { type BlockIdExt, type BlockRef, LocalnetError } from '@tonstream/localnet';
import type { liteServer_accountId, tonNode_blockId, tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';

export function toTlBlockId(id: BlockIdExt): tonNode_blockIdExt {
  return {
    kind: 'tonNode.blockIdExt',
    workchain: id.workchain,
    shard: BigInt.asIntN(64, id.shard).toString(),
    seqno: id.seqno,
    rootHash: Buffer.from(id.rootHash, 'hex'),
    fileHash: Buffer.from(id.fileHash, 'hex'),
  };
}

/** The shard of a TL id as the chain spells it: unsigned, tag bit included. */
export function shardOf(id: Pick<tonNode_blockId, 'shard'>): bigint {
  return BigInt.asUintN(64, BigInt(id.shard));
}

export function fromTlBlockId(id: tonNode_blockIdExt): BlockRef & { fileHash: string } {
  return { workchain: id.workchain, shard: shardOf(id), seqno: id.seqno, rootHash: hex(id.rootHash), fileHash: hex(id.fileHash) };
}

/** `wc:hex`, the raw form the chain takes. */
export function accountAddress(a: liteServer_accountId): string {
  return `${a.workchain}:${hex(a.id)}`;
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

export function describeBlock(id: { workchain: number; shard: bigint; seqno: number }): string {
  return `(${id.workchain},${id.shard.toString(16).padStart(16, '0')},${id.seqno})`;
}

/**
 * Chain errors as a real liteserver words them: what is not (or no longer) kept is 651 "notready"
 * (upstream answers unknown blocks that way), malformed input 502, anything else passes through
 * (the dispatcher answers plain exceptions with 500).
 */
export function translateError(err: unknown): unknown {
  if (!(err instanceof LocalnetError)) return err;
  const code = err.code === 'not_found' ? ErrorCode.notready : err.code === 'bad_request' ? ErrorCode.protoviolation : ErrorCode.error;
  return new LiteErrorAnswer(code, err.message, { cause: err });
}

export function blockNotFound(id: { workchain: number; shard: bigint; seqno: number }, why = 'block not found'): LiteErrorAnswer {
  return new LiteErrorAnswer(ErrorCode.notready, `${why}: ${describeBlock(id)}`);
}

export function badRequest(message: string): LiteErrorAnswer {
  return new LiteErrorAnswer(ErrorCode.protoviolation, message);
}
