import { hash as oneShotHash } from 'node:crypto';
import { type Cell, cellFromTable, loadTransaction, parseBoc, partBoc, Slice } from '@tonstream/block';
import { coreAddress, type Emulator } from './emulator.js';
import type { LocalnetLogger } from './types.js';

/**
 * Transactions between two yields to the event loop (also at the start of each block): a round at a
 * high rate takes most of a second, and a liteserver sharing the process should keep answering
 * meanwhile (queries see the state as of the last finished round; see StateHistory).
 */
const YIELD_EVERY_TXS = 32;

/** A message waiting in a shard's queue: delivered in the next round, in the destination's block. */
export type QueuedMessage = {
  /** Hash of the Message cell. */
  hash: string;
  /** BoC of the Message cell. */
  boc: Uint8Array;
  kind: 'internal' | 'external';
  /** created_lt of an internal message; 0 for externals. */
  createdLt: bigint;
  destWorkchain: number;
  destHash: string;
};

/** One unit of work of a block. */
export type WorkItem = { type: 'message'; msg: QueuedMessage } | { type: 'tick' | 'tock'; workchain: number; addressHash: string };

/** A transaction as executed, with what the block builder and the history need. */
export type ExecutedTx = {
  cell: Cell;
  boc: Uint8Array;
  hash: string;
  workchain: number;
  addressHash: string;
  lt: bigint;
  prevLt: bigint;
  prevHash: string;
  now: number;
  inMsgHash?: string;
  /** Internal messages it created, to be queued. */
  outbound: QueuedMessage[];
  /** The ShardAccount (base64) before and after this transaction. */
  shardAccount: string;
  shardAccountBefore: string;
};

export type BlockExecution = {
  txs: ExecutedTx[];
  /** One past the last lt used (the block's end_lt), at least startLt + 1. */
  endLt: bigint;
  /** Messages that produced no transaction (externals not accepted, emulation errors). */
  rejected: { hash: string; kind: QueuedMessage['kind']; error: string; exitCode?: number }[];
};

/**
 * Runs a block's work in order. Each transaction starts at the next free lt of the block (the
 * emulator raises it above the account's last transaction and the message's created_lt, which an
 * earlier block always holds); its out messages take lt+1.., so the next one starts after them.
 * Every account's transaction random seed is sha256(block rand_seed ‖ account id), as validators do.
 */
export async function executeBlock(
  emu: Emulator,
  d: { items: WorkItem[]; startLt: bigint; now: number; randSeed: Uint8Array; logger: LocalnetLogger; onTx?: (tx: ExecutedTx) => void },
): Promise<BlockExecution> {
  let cur = d.startLt;
  const txs: ExecutedTx[] = [];
  const rejected: BlockExecution['rejected'] = [];
  for (let n = 0; n < d.items.length; n++) {
    const item = d.items[n];
    if (n % YIELD_EVERY_TXS === 0) await new Promise((resolve) => setImmediate(resolve));
    const workchain = item.type === 'message' ? item.msg.destWorkchain : item.workchain;
    const addressHash = item.type === 'message' ? item.msg.destHash : item.addressHash;
    const addr = coreAddress(workchain, addressHash);
    const randomSeed = oneShotHash('sha256', Buffer.concat([d.randSeed, Buffer.from(addressHash, 'hex')]), 'buffer');
    const p = { lt: cur, now: d.now, randomSeed };
    let res;
    try {
      res = item.type === 'message' ? await emu.runMessage(addr, item.msg.boc, p) : await emu.runTickTock(addr, item.type, p);
    } catch (err) {
      res = { ok: false as const, error: err instanceof Error ? err.message : String(err), exitCode: undefined };
    }
    if (!res.ok) {
      if (item.type !== 'message') {
        d.logger.error('tick-tock transaction failed; skipped', { account: `${workchain}:${addressHash}`, which: item.type, error: res.error });
        continue;
      }
      if (item.msg.kind === 'internal') d.logger.warn('internal message produced no transaction; dropped', { msg_hash: item.msg.hash, error: res.error });
      rejected.push({ hash: item.msg.hash, kind: item.msg.kind, error: res.error, ...(res.exitCode === undefined ? {} : { exitCode: res.exitCode }) });
      continue;
    }
    const tx = readTransaction(res.txBoc, workchain, res.shardAccount, res.before);
    txs.push(tx);
    d.onTx?.(tx);
    cur = tx.lt + 1n + BigInt(tx.outCount);
  }
  return { txs, endLt: cur > d.startLt ? cur : d.startLt + 1n, rejected };
}

function readTransaction(boc: Uint8Array, workchain: number, shardAccount: string, shardAccountBefore: string): ExecutedTx & { outCount: number } {
  const table = parseBoc(boc);
  const root = table.roots[0];
  const tx = loadTransaction(new Slice(table, root, 'transaction'));
  const cell = cellFromTable(table, root);
  const outbound: QueuedMessage[] = [];
  for (const m of tx.outMsgs) {
    if (m.info.type !== 'internal') continue;
    const dest = m.info.dest;
    if (dest.type !== 'std') continue; // the emulator only sends to std addresses; anything else cannot be routed
    outbound.push({
      hash: cellFromTable(table, m.cell).hashHex(),
      boc: partBoc(table, { kind: 'cell', cell: m.cell }),
      kind: 'internal',
      createdLt: m.info.createdLt,
      destWorkchain: dest.workchain,
      destHash: dest.hash,
    });
  }
  return {
    cell,
    boc,
    hash: cell.hashHex(),
    workchain,
    addressHash: tx.accountAddr,
    lt: tx.lt,
    prevLt: tx.prevTransLt,
    prevHash: tx.prevTransHash,
    now: tx.now,
    inMsgHash: tx.inMsg ? cellFromTable(table, tx.inMsg.cell).hashHex() : undefined,
    outbound,
    outCount: tx.outMsgCnt,
    shardAccount,
    shardAccountBefore,
  };
}
