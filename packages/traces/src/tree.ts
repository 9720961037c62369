import type { TraceNodeRecord } from './trace-record.js';

/** toncenter's `TraceNode`: children `[]` for a transaction that sent nothing, null when none of its messages was delivered in the trace. */
export type TraceTreeNode = { tx_hash: string; in_msg_hash?: string; children: TraceTreeNode[] | null };

export type TraceTree = { trace: TraceTreeNode | null; transactions_order: string[]; warning?: string };

/** A missing parent makes a second root: toncenter's warning for such a tree. */
export const MISSING_NODE_WARNING = 'missing node in trace found';

/** The tree `/traces` shows, from a trace record's nodes (already in processing order). */
export function traceTree(nodes: readonly TraceNodeRecord[]): TraceTree {
  const known = new Set(nodes.map((n) => n.tx_hash));
  const children = new Map<string, TraceNodeRecord[]>();
  const roots: TraceNodeRecord[] = [];
  for (const n of nodes) {
    if (n.parent === null || !known.has(n.parent)) roots.push(n);
    else children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  }
  const build = (n: TraceNodeRecord): TraceTreeNode => {
    const below = children.get(n.tx_hash) ?? [];
    return {
      tx_hash: n.tx_hash,
      ...(n.in_msg_hash === null ? {} : { in_msg_hash: n.in_msg_hash }),
      children: below.length > 0 ? below.map(build) : n.out_msgs === 0 ? [] : null,
    };
  };
  return {
    trace: roots.length === 0 ? null : build(roots[0]),
    transactions_order: nodes.map((n) => n.tx_hash),
    ...(roots.length > 1 ? { warning: MISSING_NODE_WARNING } : {}),
  };
}
