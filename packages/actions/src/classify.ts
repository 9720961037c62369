import type { Action } from './action.js';
import { initialBlock } from './basic-blocks.js';
import { Block, bfs } from './block.js';
import type { ClassifierTrace, InterfaceLookup } from './input.js';
import type { ActionMatcher, MatchContext } from './matcher.js';
import { tryMatch } from './matcher.js';
import { MATCHERS } from './matchers/index.js';
import { postProcessors } from './post-process.js';
import { isEmitted, serializeBlock } from './serialize.js';
import { buildTree } from './tree.js';
import { unknownTraceBlocks } from './unknown-trace.js';

/** toncenter classifies traces of at most this many transactions; bigger ones get no actions. */
export const MAX_CLASSIFIED_TRANSACTIONS = 4000;

export type ClassifyResult = {
  actions: Action[];
  /** ok, or broken when some action could not be confirmed (or classification failed, below). */
  state: 'ok' | 'broken';
  /**
   * True when classification itself failed and only the basic actions (transfers, calls, deploys)
   * were produced: toncenter's `failed` state (reported as `broken` in `state`).
   */
  failed: boolean;
};

export type ClassifyOptions = {
  /** The ordered matcher list; defaults to every protocol this package knows. */
  matchers?: readonly ActionMatcher[];
};

/** Runs every matcher, in order, over the top-level blocks of the trace's block graph. */
export function classifyBlocks(trace: ClassifierTrace, lookup: InterfaceLookup, matchers: readonly ActionMatcher[]): Block[] {
  const ctx: MatchContext = { lookup, trace };
  const root = new Block('root', []);
  root.connect(initialBlock(buildTree(trace.transactions)));
  for (const matcher of matchers) {
    for (const block of bfs(root)) {
      if (block.parent === null && block !== root) tryMatch(matcher, block, ctx, true);
    }
  }
  let blocks = [...bfs(root)];
  for (const post of postProcessors) blocks = post(blocks, ctx);
  return blocks;
}

/** A trace's actions: one per top-level block, plus the parts of composite actions, ordered by lt. */
export function classifyTrace(trace: ClassifierTrace, lookup: InterfaceLookup, options: ClassifyOptions = {}): ClassifyResult {
  if (trace.transactions.length > MAX_CLASSIFIED_TRANSACTIONS) return { actions: [], state: 'broken', failed: false };
  try {
    return classifyWith(trace, lookup, options.matchers ?? MATCHERS);
  } catch {
    // As toncenter: a trace the matchers choke on still gets its basic actions.
    const fallback = classifyWith(trace, lookup, []);
    return { actions: fallback.actions, state: 'broken', failed: true };
  }
}

function classifyWith(trace: ClassifierTrace, lookup: InterfaceLookup, matchers: readonly ActionMatcher[]): ClassifyResult {
  if (trace.transactions.length === 1 && trace.transactions[0].description.type === 'tick_tock') return { actions: [], state: 'ok', failed: false };
  let blocks = classifyBlocks(trace, lookup, matchers).filter(isEmitted);
  if (blocks.length === 0) blocks = unknownTraceBlocks(trace, lookup).filter(isEmitted);
  const actions: Action[] = [];
  let broken = false;
  for (const block of blocks) {
    actions.push(...serializeBlock(block, trace));
    if (block.broken) broken = true;
  }
  if (actions.length === 0) actions.push(unknownAction(trace));
  actions.sort((a, b) => cmp(BigInt(a.start_lt), BigInt(b.start_lt)) || cmp(BigInt(a.end_lt), BigInt(b.end_lt)));
  return { actions, state: broken ? 'broken' : 'ok', failed: false };
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The fallback when nothing was classified: one action over all transactions, id = trace id. */
function unknownAction(trace: ClassifierTrace): Action {
  const txs = trace.transactions;
  const lts = txs.map((t) => BigInt(t.lt));
  return {
    trace_id: trace.trace_id,
    action_id: trace.trace_id,
    start_lt: String(lts.reduce((a, b) => (b < a ? b : a))),
    end_lt: String(lts.reduce((a, b) => (b > a ? b : a))),
    start_utime: Math.min(...txs.map((t) => t.now)),
    end_utime: Math.max(...txs.map((t) => t.now)),
    trace_end_lt: trace.end_lt,
    trace_end_utime: trace.end_utime,
    trace_mc_seqno_end: trace.mc_seqno_end,
    transactions: txs.map((t) => t.hash),
    success: txs.every((t) => t.description.aborted !== true),
    type: 'unknown',
    details: { error: "unsupported action type: 'unknown'" },
    accounts: [...new Set(txs.map((t) => t.account))],
    finality: 'finalized',
    parent_action_id: null,
    ancestor_type: [],
    internal_type: 'unknown',
    broken: false,
    ...(trace.external_hash ? { trace_external_hash: trace.external_hash } : {}),
  };
}
