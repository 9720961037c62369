import type { AccountStateRecord, BlockManifest, MessageRow, TransactionRow } from '@tonstream/records';

/** Where a consumed Kafka message sits. Offsets are kafkajs strings (64-bit). */
export type Position = { topic: string; partition: number; offset: string };

/** What one consumed message of the decoder's topics holds, read and checked by the caller. */
export type Consumed =
  | { kind: 'transactions'; block: string; mcSeqno: number; records: TransactionRow[] }
  | { kind: 'messages'; block: string; mcSeqno: number; records: MessageRow[] }
  /** The accounts a block touched, after it: the classifier's contract context. */
  | { kind: 'accountStates'; block: string; mcSeqno: number; records: AccountStateRecord[] }
  | { kind: 'meta'; block: string; mcSeqno: number; masterchain: boolean; manifest: BlockManifest }
  /** A message the tracer does not use (not of a block): only its offset matters. */
  | { kind: 'other' };

/** Every record of one masterchain block and of the shard blocks it commits. */
export type McGroup = { mcSeqno: number; transactions: TransactionRow[]; messages: MessageRow[]; accountStates: AccountStateRecord[] };

export type OffsetCommit = { topic: string; partition: number; offset: string };

type BlockParts = {
  meta?: { masterchain: boolean; manifest: BlockManifest };
  transactions: Map<string, TransactionRow>;
  messages: Map<string, MessageRow>;
  accountStates: Map<string, AccountStateRecord>;
};

/**
 * Gathers the decoder's records by masterchain block until a whole one is there (its meta says how
 * many blocks it commits, each block's meta how many records it has), hands masterchain blocks out
 * in seqno order, and says which offsets may be committed: a partition's offset moves past a message
 * only once every masterchain block it holds records of is done. Replayed records collapse (keyed by
 * their ids); records of blocks already done are dropped.
 */
export function createCollector(options: { lastDone: number | null }) {
  let lastDone = options.lastDone;
  const blocks = new Map<string, BlockParts>();
  const blocksBySeqno = new Map<number, Set<string>>();
  /** Per partition, consumed messages not yet done, oldest first, and one past the last consumed. */
  const partitions = new Map<string, { topic: string; partition: number; open: { offset: bigint; mcSeqno: number }[]; end: bigint }>();
  let lowestMc: number | null = null;
  let indexFrom: number | null = null;

  const isDone = (mcSeqno: number) => lastDone !== null && mcSeqno <= lastDone;

  function parts(block: string, mcSeqno: number): BlockParts {
    let p = blocks.get(block);
    if (!p) {
      p = { transactions: new Map(), messages: new Map(), accountStates: new Map() };
      blocks.set(block, p);
      const keys = blocksBySeqno.get(mcSeqno) ?? new Set();
      keys.add(block);
      blocksBySeqno.set(mcSeqno, keys);
    }
    return p;
  }

  /** The seqno to process next: after the last done, else where the index began. */
  function next(): number | null {
    if (lastDone !== null) return lastDone + 1;
    return indexFrom ?? lowestMc;
  }

  return {
    add(c: Consumed, at: Position): void {
      const key = `${at.topic}\u0000${at.partition}`;
      let p = partitions.get(key);
      if (!p) partitions.set(key, (p = { topic: at.topic, partition: at.partition, open: [], end: 0n }));
      const offset = BigInt(at.offset);
      if (offset + 1n > p.end) p.end = offset + 1n;
      if (c.kind === 'other' || isDone(c.mcSeqno)) return;
      p.open.push({ offset, mcSeqno: c.mcSeqno });
      const b = parts(c.block, c.mcSeqno);
      if (c.kind === 'transactions') for (const t of c.records) b.transactions.set(t.hash, t);
      else if (c.kind === 'messages') for (const m of c.records) b.messages.set(`${m.hash}\u0000${m.direction}\u0000${m.tx_hash}`, m);
      else if (c.kind === 'accountStates') for (const a of c.records) b.accountStates.set(a.account, a);
      else {
        b.meta = { masterchain: c.masterchain, manifest: c.manifest };
        if (c.masterchain) {
          lowestMc = lowestMc === null ? c.mcSeqno : Math.min(lowestMc, c.mcSeqno);
          if (c.manifest.index_from && indexFrom === null) indexFrom = c.manifest.index_from;
        }
      }
    },

    /** The next masterchain block when all of it is here, else undefined. */
    ready(): McGroup | undefined {
      const n = next();
      if (n === null) return undefined;
      const keys = blocksBySeqno.get(n);
      if (!keys) return undefined;
      const all = [...keys].map((k) => blocks.get(k)!);
      const mc = all.find((b) => b.meta?.masterchain);
      if (!mc) return undefined;
      const whole = all.filter(
        (b) => b.meta && b.transactions.size >= b.meta.manifest.transactions && b.messages.size >= b.meta.manifest.messages && b.accountStates.size >= b.meta.manifest.account_states,
      );
      if (whole.length < (mc.meta!.manifest.mc_blocks ?? 1)) return undefined;
      return {
        mcSeqno: n,
        transactions: whole.flatMap((b) => [...b.transactions.values()]),
        messages: whole.flatMap((b) => [...b.messages.values()]),
        accountStates: whole.flatMap((b) => [...b.accountStates.values()]),
      };
    },

    /** Marks a masterchain block done (its output is durable): frees it and returns the offsets now committable. */
    done(mcSeqno: number): OffsetCommit[] {
      lastDone = mcSeqno;
      for (const [seqno, keys] of blocksBySeqno) {
        if (seqno > mcSeqno) continue;
        for (const k of keys) blocks.delete(k);
        blocksBySeqno.delete(seqno);
      }
      return this.commits();
    },

    /** Per partition: the oldest message still needed, or one past the last consumed. */
    commits(): OffsetCommit[] {
      const out: OffsetCommit[] = [];
      for (const p of partitions.values()) {
        p.open = p.open.filter((o) => !isDone(o.mcSeqno));
        const offset = p.open.length > 0 ? p.open.reduce((min, o) => (o.offset < min ? o.offset : min), p.open[0].offset) : p.end;
        if (offset > 0n) out.push({ topic: p.topic, partition: p.partition, offset: offset.toString() });
      }
      return out;
    },

    get lastDone() {
      return lastDone;
    },
    /** Masterchain blocks with records waiting. */
    get waiting() {
      return blocksBySeqno.size;
    },
  };
}

export type Collector = ReturnType<typeof createCollector>;
