import { Cell } from '@ton/core';
import type { MessageRecord, TransactionRecord } from '@tonstream/records';
import { cellFromBase64 } from '@tonstream/contracts';

/** How a node entered the tree: a transaction's inbound message, an external-out leaf, a tick-tock, or a wallet send that never ran. */
export type NodeKind = 'in' | 'log' | 'tick_tock' | 'ghost';

/**
 * One node of the event tree: a transaction seen through its inbound message (toncenter's
 * `EventNode`). `tx` is the transaction that received the message, or the sender's for an
 * external-out leaf and a ghost.
 */
export class EventNode {
  readonly children: EventNode[] = [];
  parent: EventNode | null = null;
  failed: boolean;
  private cell: Cell | null | undefined;
  // Matchers ask for these many times per node: parsed once.
  private opcodeValue: number | null | undefined;
  private ltValue: bigint | undefined;
  private txLtValue: bigint | undefined;

  constructor(
    readonly kind: NodeKind,
    readonly tx: TransactionRecord,
    readonly msg: MessageRecord | null,
    /** The message hash that identifies the node (the tx hash for a tick-tock). */
    readonly msgHash: string,
  ) {
    this.failed = kind === 'ghost' || tx.description.aborted === true;
  }

  addChild(child: EventNode): void {
    this.children.push(child);
    child.parent = this;
  }

  /** First 32 bits of the body, unsigned; null without a message or with a shorter body. */
  get opcode(): number | null {
    if (this.opcodeValue === undefined) {
      const text = this.msg?.opcode;
      this.opcodeValue = text ? Number.parseInt(text.slice(2), 16) : null;
    }
    return this.opcodeValue;
  }

  /** The message body cell (an empty cell when the message has none). */
  body(): Cell {
    if (this.cell === undefined) {
      const boc = this.msg?.message_content.body;
      this.cell = boc ? cellFromBase64(boc) : null;
    }
    return this.cell ?? Cell.EMPTY;
  }

  get source(): string | null {
    return this.msg?.source ?? null;
  }

  get destination(): string | null {
    return this.msg?.destination ?? null;
  }

  get value(): bigint {
    return BigInt(this.msg?.value ?? 0);
  }

  /** The lt that orders nodes inside an action: the message's created_lt, else the tx lt. */
  get lt(): bigint {
    return (this.ltValue ??= BigInt(this.kind === 'tick_tock' ? this.tx.lt : (this.msg?.created_lt ?? this.tx.lt)));
  }

  get utime(): number {
    return this.kind === 'tick_tock' || !this.msg?.created_at ? this.tx.now : Number(this.msg.created_at);
  }

  get txLt(): bigint {
    return (this.txLtValue ??= BigInt(this.tx.lt));
  }

  get txHash(): string {
    return this.tx.hash;
  }

  get account(): string {
    return this.tx.account;
  }
}

/**
 * Builds the event tree of a trace: a transaction's children are the transactions consuming its
 * outbound messages plus one leaf per external-out message. Returns the root.
 */
export function buildTree(transactions: readonly TransactionRecord[]): EventNode {
  if (transactions.length === 0) throw new Error('a trace without transactions has no tree');
  const byInMsg = new Map<string, EventNode>();
  const nodes: EventNode[] = [];
  for (const tx of transactions) {
    const node = tx.in_msg
      ? new EventNode('in', tx, tx.in_msg, tx.in_msg.hash)
      : new EventNode('tick_tock', tx, null, tx.hash);
    nodes.push(node);
    if (tx.in_msg) byInMsg.set(tx.in_msg.hash, node);
  }
  for (const node of nodes) {
    // toncenter links children in its database's message order (by message hash under the
    // database's text collation); which of two equal branches a matcher takes first depends on it.
    const outs = node.tx.out_msgs.length < 2 ? node.tx.out_msgs : [...node.tx.out_msgs].sort((a, b) => collate(a.hash, b.hash));
    for (const out of outs) {
      if (out.destination === null) node.addChild(new EventNode('log', node.tx, out, out.hash));
      else {
        const child = byInMsg.get(out.hash);
        if (child && child.parent === null && child !== node) node.addChild(child);
      }
    }
  }
  let root = nodes.reduce((a, b) => (BigInt(b.tx.lt) < BigInt(a.tx.lt) ? b : a));
  while (root.parent) root = root.parent;
  return root;
}

/** Orders base64 hashes like a glibc UTF-8 collation does at its first level: letters case-insensitively, punctuation ignored. */
function collate(a: string, b: string): number {
  const key = (s: string) => s.replace(/[^0-9A-Za-z]/g, '').toLowerCase();
  const [ka, kb] = [key(a), key(b)];
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
