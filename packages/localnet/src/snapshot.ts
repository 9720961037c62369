import { hash as oneShotHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { snapshotToSerializable } from '@ton/sandbox';
import { type ExtBlkRef, loadBlock, parseBoc, partBoc } from '@tonstream/block';
import type { ChainCore, ChainSettings } from './core.js';
import type { QueuedMessage } from './execution.js';
import { MASTERCHAIN, ROOT_SHARD } from './shards.js';
import type { BlockIdExt, BlockSignature, StoredBlock, TxRecord } from './types.js';

export const SNAPSHOT_FORMAT = 'tonstream-localnet/1';

export type JsonMessage = { hash: string; boc: string; kind: QueuedMessage['kind']; createdLt: string; destWorkchain: number; destHash: string };

/** The snapshot file. Blocks are stored as BoCs (everything else about them is read back from them). */
export type SnapshotFile = {
  format: typeof SNAPSHOT_FORMAT;
  settings: ChainSettings;
  sandbox: ReturnType<typeof snapshotToSerializable>;
  /**
   * Kept rounds, oldest first: the masterchain block BoC, then the shard block BoCs (base64), and the
   * masterchain block's validator signatures as [node id short (hex), signature (base64)] (absent in
   * snapshots of chains made before validators existed).
   */
  rounds: { mc: string; shards: string[]; signatures?: [string, string][] }[];
  keyBlock?: { workchain: number; shard: string; seqno: number; rootHash: string; fileHash: string };
  /** The key block's BoC and signatures, kept after its round leaves `rounds` (absent in older snapshots). */
  keyBlockData?: { boc: string; signatures?: [string, string][] };
  messages: JsonMessage[];
};

/** Writes the chain to `path` (through a temporary file, so a crash never leaves half a snapshot). */
export async function writeSnapshot(core: ChainCore, path: string): Promise<void> {
  const sandbox = snapshotToSerializable(core.bc.snapshot());
  sandbox.transactions = []; // the chain runs the executor itself; the sandbox's own log stays empty
  const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');
  const messages = [...core.queues.values(), ...core.externals.values()].flat().map((m) => ({
    hash: m.hash,
    boc: b64(m.boc),
    kind: m.kind,
    createdLt: m.createdLt.toString(),
    destWorkchain: m.destWorkchain,
    destHash: m.destHash,
  }));
  const k = core.keyBlock;
  const sigs = (b: StoredBlock) => b.signatures?.map((s): [string, string] => [s.nodeIdShort, b64(s.signature)]);
  const file: SnapshotFile = {
    format: SNAPSHOT_FORMAT,
    settings: core.settings,
    sandbox,
    rounds: core.history.rounds().map((r) => ({
      mc: b64(r.mc.boc),
      shards: r.shards.map((b) => b64(b.boc)),
      signatures: sigs(r.mc),
    })),
    keyBlock: k && { ...k, shard: k.shard.toString() },
    keyBlockData: core.keyBlockData && { boc: b64(core.keyBlockData.boc), signatures: sigs(core.keyBlockData) },
    messages,
  };
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify(file));
  await rename(tmp, path);
}

/** Reads a block this package built back into the history's form. */
export function storedBlock(boc: Uint8Array, mcSeqno: number | undefined): StoredBlock {
  const table = parseBoc(boc);
  const block = loadBlock(table);
  const info = block.info;
  const workchain = info.shard.workchain;
  const shard = info.shard.shard;
  const id: BlockIdExt = { workchain, shard, seqno: info.seqno, rootHash: table.hashHex(table.roots[0]), fileHash: oneShotHash('sha256', boc, 'hex') };
  const ref = (r: ExtBlkRef, wc: number, s: bigint): BlockIdExt => ({ workchain: wc, shard: s, seqno: r.seqno, rootHash: r.rootHash, fileHash: r.fileHash });
  const transactions: TxRecord[] = block.extra.accountBlocks.flatMap((ab) =>
    ab.transactions.map((t) => ({
      account: `${workchain}:${ab.accountAddr}`,
      workchain,
      addressHash: ab.accountAddr,
      lt: t.lt,
      hash: table.hashHex(t.cell),
      boc: partBoc(table, { kind: 'cell', cell: t.cell }),
      prevLt: t.prevTransLt,
      prevHash: t.prevTransHash,
      now: t.now,
      block: id,
    })),
  );
  return {
    id,
    startLt: info.startLt,
    endLt: info.endLt,
    genUtime: info.genUtime,
    keyBlock: info.keyBlock,
    mcSeqno: mcSeqno ?? info.seqno,
    prevRefs: info.prevRefs.map((r) => ref(r, workchain, shard)),
    masterRef: info.masterRef && ref(info.masterRef, MASTERCHAIN, ROOT_SHARD),
    stateHash: { old: block.stateUpdate.oldHash, new: block.stateUpdate.newHash },
    boc,
    transactions,
  };
}

/** Signatures as snapshots keep them, back to the chain's form. */
export function signaturesFromJson(list: [string, string][] | undefined): BlockSignature[] | undefined {
  return list?.map(([nodeIdShort, signature]) => ({ nodeIdShort, signature: Buffer.from(signature, 'base64') }));
}
