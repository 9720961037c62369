/** Stub chain data and a recording logger shared by the liteserver tests and the benchmark. */
import { createHash } from 'node:crypto';
import type { LiteServerLogger } from '../logger.js';

export const MC_SHARD = '-9223372036854775808';

export function hash32(label: string): Buffer {
  return createHash('sha256').update(label).digest();
}

export function blockIdExt(workchain: number, shard: string, seqno: number) {
  return {
    kind: 'tonNode.blockIdExt' as const,
    workchain,
    shard,
    seqno,
    rootHash: hash32(`root:${workchain}:${shard}:${seqno}`),
    fileHash: hash32(`file:${workchain}:${shard}:${seqno}`),
  };
}

export function masterchainInfo(seqno: number) {
  return {
    kind: 'liteServer.masterchainInfo' as const,
    last: blockIdExt(-1, MC_SHARD, seqno),
    stateRootHash: hash32(`state:${seqno}`),
    init: { kind: 'tonNode.zeroStateIdExt' as const, workchain: -1, rootHash: hash32('zero-root'), fileHash: hash32('zero-file') },
  };
}

/** Deterministic pseudo-block bytes for a seqno, so a test can check which block an answer carries. */
export function blockBytes(seqno: number, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let block = hash32(`block:${seqno}`);
  for (let at = 0; at < size; at += 32) {
    block.copy(out, at, 0, Math.min(32, size - at));
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

export type RecordedLog = { level: string; msg: string; fields: Record<string, unknown> };

export function recordingLogger(): LiteServerLogger & { records: RecordedLog[] } {
  const records: RecordedLog[] = [];
  const at = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => void records.push({ level, msg, fields });
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
