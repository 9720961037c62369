import { randomBytes } from 'node:crypto';
import { beginCell, Cell, CellType, Dictionary } from '@ton/core';
import type { IExecutor } from '@ton/sandbox';
import type { TransactionRecord } from '@tonstream/records';
import type { AccountSnapshot, ChainState, HeadBlock } from './chain-state.js';
import { type ExternalMessage, parseExternal } from './external.js';
import { type DetectedInterfaces, detectInterfaces } from './interfaces.js';
import { decodeEmulatedTransaction, globalVersion } from './tx-record.js';

/** toncenter's emulator stops a trace at 256 transactions or depth 32 (reference docs/traces-and-actions.md §5.2). */
export const MAX_TRACE_TRANSACTIONS = 256;
export const MAX_TRACE_DEPTH = 32;
/** Code cells walked to find library references; wallets and tokens are far below this. */
const MAX_CODE_CELLS_WALKED = 4096;

export type EmulationLimits = {
  /** @default MAX_TRACE_TRANSACTIONS */
  maxTransactions: number;
  /** Depth of the deepest transaction, the root's being 0. @default MAX_TRACE_DEPTH */
  maxDepth: number;
};

/** One emulated transaction and its place in the tree. */
export type EmulatedTransaction = {
  record: TransactionRecord;
  depth: number;
  /** Hash of the transaction that sent its inbound message; null for the root. */
  parent: string | null;
};

export type EmulationOutcome =
  /** The destination did not accept the external (bad seqno or signature, expired, no funds...): nothing will happen on chain. */
  | { kind: 'rejected'; external: ExternalMessage; head: HeadBlock; reason: string; exitCode?: number }
  | {
      kind: 'emulated';
      external: ExternalMessage;
      head: HeadBlock;
      /** In execution order (breadth first from the root). */
      transactions: EmulatedTransaction[];
      /** Internal messages were left unemulated by the limits. */
      limitExceeded: boolean;
      /** Contract interfaces detected on the states after the trace, by raw address. */
      interfaces: Record<string, DetectedInterfaces>;
      /** Every account of the trace as the trace left it: ShardAccount BoC (base64) by raw address. */
      finalStates: ReadonlyMap<string, string>;
      durationMs: number;
    };

export type TraceEmulator = { emulate(boc: Uint8Array): Promise<EmulationOutcome> };

export type TraceEmulatorOptions = {
  state: ChainState;
  /** The TON emulator: @ton/sandbox's `Executor.create()` (one per process; it keeps the parsed config). */
  executor: Pick<IExecutor, 'runTransaction' | 'runGetMethod'>;
  limits?: Partial<EmulationLimits>;
  /** Seeds each transaction's random seed (as a block's would); @default crypto random bytes */
  randomSeed?: () => Buffer;
};

type Queued = { cell: Cell; destination: string; depth: number; parent: string | null };

/**
 * Emulates the whole trace an external message starts: the external on its destination, then every
 * internal message it causes, breadth first, each on its destination's state as of the chain's head
 * (or as an earlier transaction of this trace left it), until no message is left or a limit is hit.
 * Transactions run at the head's gen_utime + 1 (the next block) with config and libraries of the head;
 * signatures are checked, so an external the wallet would refuse is `rejected`.
 */
export function createTraceEmulator({ state, executor, limits = {}, randomSeed = () => randomBytes(32) }: TraceEmulatorOptions): TraceEmulator {
  const maxTransactions = limits.maxTransactions ?? MAX_TRACE_TRANSACTIONS;
  const maxDepth = limits.maxDepth ?? MAX_TRACE_DEPTH;

  async function librariesFor(shardAccount: string, message?: Cell): Promise<Cell | null> {
    const hashes = new Set<string>();
    const sa = Cell.fromBase64(shardAccount).refs[0];
    collectLibraryRefs(sa, hashes);
    if (message) collectLibraryRefs(message, hashes);
    if (hashes.size === 0) return null;
    const found = await state.libraries([...hashes]);
    if (found.size === 0) return null;
    const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    for (const [h, c] of found) dict.set(BigInt(`0x${h}`), c);
    return beginCell().storeDictDirect(dict).endCell();
  }

  return {
    async emulate(boc) {
      const started = performance.now();
      const external = parseExternal(boc);
      const head = await state.head();
      const config = await state.config(head);
      const version = globalVersion(config);
      const now = head.utime + 1;
      const mcSeqno = head.seqno + 1;
      const accounts = new Map<string, AccountSnapshot>();
      const queue: Queued[] = [{ cell: Cell.fromBoc(external.boc)[0], destination: external.destination, depth: 0, parent: null }];
      const transactions: EmulatedTransaction[] = [];
      let limitExceeded = false;
      let lt = 0n;

      for (let item = queue.shift(); item; item = queue.shift()) {
        if (transactions.length >= maxTransactions) {
          limitExceeded = true;
          break;
        }
        const account = accounts.get(item.destination) ?? (await state.account(head, item.destination));
        const res = await executor.runTransaction({
          config,
          libs: await librariesFor(account.shardAccount, item.cell),
          verbosity: 'short',
          shardAccount: account.shardAccount,
          message: item.cell,
          now,
          lt: lt + 1n,
          randomSeed: randomSeed(),
          ignoreChksig: false,
          debugEnabled: false,
        });
        if (!res.result.success) {
          if (item.depth === 0) return { kind: 'rejected', external, head, reason: res.result.error, exitCode: res.result.vmResults?.vmExitCode };
          // An internal message always makes a transaction on chain; the executor failing on one is
          // a limit of emulation (e.g. a missing library), so the branch ends here.
          limitExceeded = true;
          continue;
        }
        const [workchain] = item.destination.split(':');
        const tx = decodeEmulatedTransaction(Buffer.from(res.result.transaction, 'base64'), Number(workchain), { ...account.shardBlock, seqno: account.shardBlock.seqno + 1 }, mcSeqno, version);
        accounts.set(item.destination, { shardAccount: res.result.shardAccount, shardBlock: account.shardBlock });
        transactions.push({ record: tx.record, depth: item.depth, parent: item.parent });
        lt = maxLt(lt, tx.record);
        for (const out of tx.outMessages) {
          if (!out.internal || out.destination === null) continue;
          if (item.depth + 1 > maxDepth) {
            limitExceeded = true;
            continue;
          }
          queue.push({ cell: out.cell, destination: out.destination, depth: item.depth + 1, parent: tx.record.hash });
        }
      }
      if (queue.length > 0) limitExceeded = true;
      const records = transactions.map((t) => t.record);
      const finalStates = new Map([...accounts].map(([a, s]) => [a, s.shardAccount]));
      const interfaces = await detectInterfaces(records, finalStates, { executor, config, now, libs: (sa) => librariesFor(sa) });
      return { kind: 'emulated', external, head, transactions, limitExceeded, interfaces, finalStates, durationMs: performance.now() - started };
    },
  };
}

/** The next transaction starts after this one and after every message it created. */
function maxLt(current: bigint, tx: TransactionRecord): bigint {
  let max = current > BigInt(tx.lt) ? current : BigInt(tx.lt);
  for (const m of tx.out_msgs) if (m.created_lt !== null && BigInt(m.created_lt) > max) max = BigInt(m.created_lt);
  return max;
}

/** Hashes (hex) of library cells referenced from `root`'s tree. */
function collectLibraryRefs(root: Cell, out: Set<string>): void {
  const seen = new Set<Cell>();
  const stack = [root];
  while (stack.length > 0 && seen.size < MAX_CODE_CELLS_WALKED) {
    const c = stack.pop()!;
    if (seen.has(c)) continue;
    seen.add(c);
    if (c.type === CellType.Library) out.add(c.bits.substring(8, 256).toString().toLowerCase());
    else stack.push(...c.refs);
  }
}
