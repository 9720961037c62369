import { type BlockInput, produceBlock } from './block-producer.js';
import { blockRandSeed, chainKey, chainKeyOf, type ChainCore, createdBy, utimeOf } from './core.js';
import { type BlockExecution, executeBlock, type ExecutedTx, type QueuedMessage, type WorkItem } from './execution.js';
import { MASTERCHAIN, nextAlignedLt, ROOT_SHARD } from './shards.js';
import type { StoredBlock } from './types.js';
import { signBlock } from './validators.js';

/** The masterchain seqno of the key block that carries the config (the genesis round). */
export const GENESIS_KEY_BLOCK_SEQNO = 1;

export type RoundResult = {
  mc: StoredBlock;
  shards: StoredBlock[];
  /** Transactions in all blocks of the round. */
  transactions: number;
  /** Messages that produced no transaction: externals not accepted, emulation failures. */
  rejected: BlockExecution['rejected'];
  /** Internal messages created in this round, to be delivered in the next. */
  inFlight: number;
  /** Milliseconds spent in the emulator and in building blocks. */
  timing: { executeMs: number; buildMs: number };
};

/**
 * One round: a block per basechain shard (master_ref = the previous masterchain block), then a
 * masterchain block committing them in its ShardHashes. Each block executes only what was queued
 * before the round started; the messages it creates wait for the next round.
 */
export async function produceRound(core: ChainCore): Promise<RoundResult> {
  const s = core.settings;
  const mcSeqno = core.mcTip.id.seqno + 1;
  const genUtime = utimeOf(s, mcSeqno);
  core.bc.now = genUtime;
  const queues = core.queues;
  const externals = core.externals;
  core.queues = new Map();
  core.externals = new Map();
  const work = (key: string): WorkItem[] => [
    ...(queues.get(key) ?? []).sort(byLtThenHash).map((msg) => ({ type: 'message' as const, msg })),
    ...(externals.get(key) ?? []).map((msg) => ({ type: 'message' as const, msg })),
  ];
  const onTx = (tx: ExecutedTx) => core.states.record(mcSeqno, `${tx.workchain}:${tx.addressHash}`, tx.shardAccountBefore, tx.shardAccount);
  const common = {
    globalId: s.globalId,
    genUtime,
    mcSeqno,
    createdBy: createdBy(s.seed),
    genSoftware: core.config.genSoftware,
    prevKeyBlockSeqno: mcSeqno > GENESIS_KEY_BLOCK_SEQNO ? GENESIS_KEY_BLOCK_SEQNO : 0,
  };
  const timing = { executeMs: 0, buildMs: 0 };
  const rejected: BlockExecution['rejected'] = [];
  const created: QueuedMessage[] = [];

  const run = async (workchain: number, shard: bigint, items: WorkItem[], startLt: bigint, seqno: number) => {
    const randSeed = blockRandSeed(s.seed, workchain, shard, seqno);
    const t0 = performance.now();
    const exec = await executeBlock(core.emu, { items, startLt, now: genUtime, randSeed, logger: core.logger, onTx });
    timing.executeMs += performance.now() - t0;
    rejected.push(...exec.rejected);
    for (const tx of exec.txs) created.push(...tx.outbound);
    return { exec, randSeed };
  };
  const build = (d: BlockInput) => {
    const t0 = performance.now();
    const out = produceBlock(d);
    timing.buildMs += performance.now() - t0;
    return out;
  };

  const shardBlocks: StoredBlock[] = [];
  for (const shard of core.shards) {
    const prev = core.shardTips.get(shard)!;
    const seqno = prev.id.seqno + 1;
    const startLt = nextAlignedLt(prev.endLt > core.mcTip.endLt ? prev.endLt : core.mcTip.endLt);
    const { exec, randSeed } = await run(0, shard, work(chainKey(0, shard)), startLt, seqno);
    const { block, tip } = build({ ...common, workchain: 0, shard, seqno, startLt, endLt: exec.endLt, prev, master: core.mcTip, txs: exec.txs, randSeed, minRefMcSeqno: core.mcTip.id.seqno });
    core.shardTips.set(shard, tip);
    shardBlocks.push(block);
  }

  const mcStart = nextAlignedLt(shardBlocks.reduce((m, b) => (b.endLt > m ? b.endLt : m), core.mcTip.endLt));
  const special = [core.config.configAddr, core.config.electorAddr];
  const mcItems: WorkItem[] = [
    ...special.map((addressHash) => ({ type: 'tick' as const, workchain: MASTERCHAIN, addressHash })),
    ...work(chainKey(MASTERCHAIN, ROOT_SHARD)),
    ...special.map((addressHash) => ({ type: 'tock' as const, workchain: MASTERCHAIN, addressHash })),
  ];
  const { exec, randSeed } = await run(MASTERCHAIN, ROOT_SHARD, mcItems, mcStart, mcSeqno);
  const keyBlock = mcSeqno === GENESIS_KEY_BLOCK_SEQNO;
  const { block: mc, tip } = build({
    ...common,
    workchain: MASTERCHAIN,
    shard: ROOT_SHARD,
    seqno: mcSeqno,
    startLt: mcStart,
    endLt: exec.endLt,
    prev: core.mcTip,
    txs: exec.txs,
    randSeed,
    minRefMcSeqno: core.mcTip.id.seqno,
    mc: { shards: shardBlocks, config: keyBlock ? { configAddr: core.config.configAddr, params: core.config.params } : undefined },
    validatorSet: core.validators?.set,
  });
  if (core.validators) mc.signatures = signBlock(core.validators, mc.id);
  core.mcTip = tip;
  if (keyBlock) {
    core.keyBlock = mc.id;
    core.keyBlockData = mc;
  }

  for (const msg of created) enqueue(core, core.queues, msg);
  core.history.add({ mc, shards: shardBlocks });
  const floor = mcSeqno - s.stateHistoryRounds + 1;
  if (floor > core.stateFloor) {
    core.states.evictThrough(floor - 1);
    core.stateFloor = floor;
  }
  const result: RoundResult = {
    mc,
    shards: shardBlocks,
    transactions: mc.transactions.length + shardBlocks.reduce((n, b) => n + b.transactions.length, 0),
    rejected,
    inFlight: created.length,
    timing,
  };
  core.logger.debug('round produced', { mc_seqno: mcSeqno, transactions: result.transactions, rejected: rejected.length, in_flight: created.length, execute_ms: Math.round(timing.executeMs), build_ms: Math.round(timing.buildMs) });
  for (const listener of core.listeners) {
    try {
      listener(result);
    } catch (err) {
      core.logger.error('round listener failed', { mc_seqno: mcSeqno, err });
    }
  }
  return result;
}

/** Puts a message in the queue of the chain holding its destination; unroutable ones are dropped. */
export function enqueue(core: ChainCore, queues: Map<string, QueuedMessage[]>, msg: QueuedMessage): void {
  let key: string;
  try {
    key = chainKeyOf(core, msg.destWorkchain, msg.destHash);
  } catch (err) {
    core.logger.warn('message to an unknown workchain dropped', { msg_hash: msg.hash, workchain: msg.destWorkchain, err });
    return;
  }
  let list = queues.get(key);
  if (!list) queues.set(key, (list = []));
  list.push(msg);
}

function byLtThenHash(a: QueuedMessage, b: QueuedMessage): number {
  return a.createdLt < b.createdLt ? -1 : a.createdLt > b.createdLt ? 1 : a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0;
}
