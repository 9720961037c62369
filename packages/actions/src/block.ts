import type { EventNode } from './tree.js';

/**
 * What a composite block carries for serialization: `details` in the public /api/v3 form and the
 * addresses the action involves beyond its transactions' accounts (toncenter's source,
 * source_secondary, destination, destination_secondary and type-specific extras).
 */
export type ActionData = {
  details: Record<string, unknown>;
  addresses: (string | null | undefined)[];
  /** The public type when it differs from the internal one (e.g. tonstakers_deposit -> stake_deposit). */
  publicType?: string;
};

/**
 * A block of the classification graph (toncenter's `Block`): one or more event nodes, linked to the
 * blocks before and after it. Matchers replace matched blocks by one composite block.
 */
export class Block {
  readonly children: Block[] = [];
  next: Block[] = [];
  prev: Block | null = null;
  parent: Block | null = null;
  failed = false;
  broken = false;
  initiating: EventNode | null;
  minLt = 0n;
  maxLt = 0n;

  constructor(
    readonly type: string,
    readonly nodes: EventNode[],
    public data: ActionData | null = null,
  ) {
    this.initiating = nodes.length === 1 ? nodes[0].parent : null;
    if (nodes.length > 0) this.recomputeBounds();
  }

  /** First 32 bits of the block's only message (basic blocks). */
  get opcode(): number | null {
    return this.nodes[0]?.opcode ?? null;
  }

  get node(): EventNode {
    return this.nodes[0];
  }

  connect(other: Block): void {
    this.next.push(other);
    other.prev = this;
  }

  topmost(): Block {
    return this.parent ? this.parent.topmost() : this;
  }

  private recomputeBounds(): void {
    const lts = this.nodes.map((n) => n.txLt);
    this.minLt = lts.reduce((a, b) => (b < a ? b : a));
    this.maxLt = lts.reduce((a, b) => (b > a ? b : a));
  }

  /**
   * Absorbs `blocks` (which must form a tree under their earliest block): their nodes become this
   * block's, they become its children, their outside successors its successors, and it takes the
   * earliest block's place under that block's predecessor. Returns false when they are not connected.
   */
  merge(blocks: Block[]): boolean {
    const set = [...new Set(blocks)];
    const earliest = earliestCommon(set);
    if (!earliest) return false;
    for (const b of set) {
      b.parent = this;
      this.nodes.push(...b.nodes);
      this.children.push(b);
    }
    const queue = [...earliest.next];
    while (queue.length > 0) {
      const b = queue.shift()!;
      if (set.includes(b)) queue.push(...b.next);
      else {
        this.next.push(b);
        b.prev = this;
      }
    }
    this.prev = earliest.prev;
    if (this.prev) {
      const prev = this.prev;
      const kept: Block[] = [];
      for (const n of prev.next) {
        if (prev.children.includes(n) || n === prev) continue;
        const top = n.topmost();
        if (!kept.includes(top)) kept.push(top);
      }
      prev.next = kept;
    }
    this.recomputeBounds();
    this.initiating = earliest.initiating;
    return true;
  }
}

function direction(b: Block): number {
  if (b.nodes.length === 1) return b.nodes[0].kind === 'log' ? 1 : 0;
  return 2;
}

function earliestCommon(blocks: Block[]): Block | null {
  const sorted = [...blocks].sort((a, b) => (a.minLt !== b.minLt ? (a.minLt < b.minLt ? -1 : 1) : direction(a) - direction(b)));
  const connected = [sorted[0]];
  for (const b of sorted.slice(1)) {
    if (b.prev && connected.includes(b.prev)) connected.push(b);
    else return null;
  }
  return sorted[0];
}

/** Every block reachable from `root` through successor links, breadth first, root included. */
export function* bfs(root: Block): Generator<Block> {
  // An index instead of shift(): the queue is read once, front to back. Successors are read after
  // the block was yielded, so a match made on it is followed.
  const queue = [root];
  for (let i = 0; i < queue.length; i++) {
    const cur = queue[i];
    yield cur;
    for (const n of cur.next) queue.push(n);
  }
}
