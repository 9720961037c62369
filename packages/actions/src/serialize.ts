import { createHash } from 'node:crypto';
import type { Action } from './action.js';
import { V1_INTERNAL_TYPES } from './action.js';
import { basicDetails } from './basic-blocks.js';
import type { Block } from './block.js';
import type { ClassifierTrace } from './input.js';
import type { EventNode } from './tree.js';

/** base64(sha256(msg_hash + internal type)) over the block's earliest message (toncenter's action id). */
export function actionId(block: Block): string {
  const first = earliestNode(block);
  return createHash('sha256').update(first.msgHash + block.type, 'utf8').digest('base64');
}

function earliestNode(block: Block): EventNode {
  return block.nodes.reduce((a, b) => (b.lt < a.lt ? b : a));
}

/** Whether a top-level block becomes an action: not the wallet's external itself, not an external-out. */
export function isEmitted(block: Block): boolean {
  if (block.type === 'root' || block.type === 'empty') return false;
  if (block.type === 'call_contract' && (block.node.source === null || block.node.destination === null)) return false;
  return true;
}

function publicType(block: Block): string {
  const type = block.data?.publicType ?? block.type;
  if ((type === 'call_contract' || type === 'ton_transfer') && Object.keys(block.node.msg?.value_extra_currencies ?? {}).length > 0) {
    return 'extra_currency_transfer';
  }
  return type;
}

function max<T extends bigint | number>(values: T[]): T {
  return values.reduce((a, b) => (b > a ? b : a));
}

/** One block as its action (and its children's actions when its type exposes them). */
export function serializeBlock(block: Block, trace: ClassifierTrace, parent: Action | null = null): Action[] {
  const nodes = block.nodes;
  const txs = new Set(nodes.map((n) => n.txHash));
  const accounts = new Set(nodes.map((n) => n.account));
  if (block.initiating) {
    txs.add(block.initiating.txHash);
    accounts.add(block.initiating.account);
  }
  const details = block.data ? block.data.details : basicDetails(block);
  // A ghost (a message a failed wallet external only meant to send) never reached its destination:
  // toncenter lists only its sender.
  const extra = block.data ? block.data.addresses : block.node.kind === 'ghost' ? [block.node.source] : [block.node.source, block.node.destination];
  for (const a of extra) if (a) accounts.add(a);
  const type = publicType(block);
  const action: Action = {
    trace_id: trace.trace_id,
    action_id: actionId(block),
    start_lt: String(nodes.map((n) => n.lt).reduce((a, b) => (b < a ? b : a))),
    end_lt: String(max(nodes.map((n) => n.txLt))),
    start_utime: Math.min(...nodes.map((n) => n.utime)),
    end_utime: max(nodes.map((n) => n.tx.now)),
    trace_end_lt: trace.end_lt,
    trace_end_utime: trace.end_utime,
    trace_mc_seqno_end: trace.mc_seqno_end,
    transactions: [...txs],
    success: !block.failed,
    type,
    details,
    accounts: [...accounts],
    finality: 'finalized',
    parent_action_id: parent?.action_id ?? null,
    ancestor_type: parent ? [parent.type, ...parent.ancestor_type] : [],
    internal_type: block.type,
    broken: block.broken,
  };
  if (trace.external_hash) action.trace_external_hash = trace.external_hash;
  if (trace.external_hash_norm) action.trace_external_hash_norm = trace.external_hash_norm;
  const out = [action];
  if (!V1_INTERNAL_TYPES.has(block.type)) {
    for (const child of block.children) {
      if (child.type === 'contract_deploy' || !isEmitted(child)) continue;
      out.push(...serializeBlock(child, trace, action));
    }
  }
  return out;
}
