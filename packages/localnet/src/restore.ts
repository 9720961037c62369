import { readFile } from 'node:fs/promises';
import { Cell as CoreCell } from '@ton/core';
import { Blockchain, snapshotFromSerializable } from '@ton/sandbox';
import type { ChainTip } from './block-producer.js';
import { type Chain, chainApi } from './chain.js';
import { newCore, resumedClock } from './core.js';
import { LocalnetError } from './errors.js';
import type { QueuedMessage } from './execution.js';
import { enqueue } from './round.js';
import { basechainShards } from './shards.js';
import { signaturesFromJson, SNAPSHOT_FORMAT, type SnapshotFile, storedBlock } from './snapshot.js';
import { deriveValidators } from './validators.js';
import { type LocalnetLogger, silentLogger, type StoredBlock } from './types.js';

export type RestoreOptions = {
  logger?: LocalnetLogger;
  /** Unix time (s) the chain resumes at: its next round's gen_utime (never before the old clock's). Default: the wall clock. */
  now?: number;
};

/**
 * Continues a chain from a snapshot: the next round has the next seqnos and links to the saved blocks,
 * and its time is the wall clock's (the downtime is a gap between two blocks, as on a stalled network).
 */
export async function restoreChain(path: string, options: RestoreOptions = {}): Promise<Chain> {
  let file: SnapshotFile;
  try {
    file = JSON.parse(await readFile(path, 'utf8')) as SnapshotFile;
  } catch (err) {
    throw new LocalnetError('bad_request', `cannot read snapshot ${path}`, { cause: err });
  }
  if (file.format !== SNAPSHOT_FORMAT) throw new LocalnetError('bad_request', `snapshot ${path} has format ${String(file.format)}, expected ${SNAPSHOT_FORMAT}`);
  if (file.rounds.length === 0) throw new LocalnetError('bad_request', `snapshot ${path} holds no blocks`);
  const sandbox = snapshotFromSerializable(file.sandbox);
  const bc = await Blockchain.create({ config: CoreCell.fromBase64(sandbox.networkConfig) });
  await bc.loadFrom(sandbox);

  const rounds = file.rounds.map((r) => {
    const mc = storedBlock(Buffer.from(r.mc, 'base64'), undefined);
    mc.signatures = signaturesFromJson(r.signatures);
    return { mc, shards: r.shards.map((s) => storedBlock(Buffer.from(s, 'base64'), mc.id.seqno)) };
  });
  const last = rounds[rounds.length - 1];
  const tip = (b: StoredBlock): ChainTip => ({ id: b.id, endLt: b.endLt, stateHash: b.stateHash.new });
  const settings = { ...file.settings, clock: resumedClock(file.settings, last.mc.id.seqno, options.now ?? Math.floor(Date.now() / 1000)) };
  const core = newCore({
    settings,
    bc,
    logger: options.logger ?? silentLogger,
    shards: basechainShards(file.settings.shards),
    mcTip: tip(last.mc),
    shardTips: new Map(last.shards.map((b) => [b.id.shard, tip(b)])),
    keyBlock: file.keyBlock && { ...file.keyBlock, shard: BigInt(file.keyBlock.shard) },
    // Keys re-derive from the seed; snapshots of chains made before validators existed have none.
    validators: file.settings.validators ? deriveValidators(file.settings.seed, file.settings.validators, file.settings.genesisUtime) : undefined,
  });
  for (const r of rounds) core.history.add(r);
  if (file.keyBlockData) {
    core.keyBlockData = storedBlock(Buffer.from(file.keyBlockData.boc, 'base64'), undefined);
    core.keyBlockData.signatures = signaturesFromJson(file.keyBlockData.signatures);
  } else if (core.keyBlock) {
    core.keyBlockData = core.history.get(core.keyBlock);
  }
  // Account states of rounds before the restore are not saved: only the current state is known.
  core.stateFloor = last.mc.id.seqno;
  for (const m of file.messages) {
    const msg: QueuedMessage = { ...m, boc: Buffer.from(m.boc, 'base64'), createdLt: BigInt(m.createdLt) };
    enqueue(core, m.kind === 'internal' ? core.queues : core.externals, msg);
  }
  return chainApi(core);
}

