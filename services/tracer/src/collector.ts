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

/**
 * Every record of one masterchain block and of the shard blocks it commits. `missing` is set when the
 * block was given up on: it says what was not there, and the records are those that arrived (every
 * transaction whose message rows arrived, with them).
 */
export type McGroup = { mcSeqno: number; transactions: TransactionRow[]; messages: MessageRow[]; accountStates: AccountStateRecord[]; missing?: string };

export type OffsetCommit = { topic: string; partition: number; offset: string };

/**
 * When a masterchain block that does not complete is given up on (its records were dead-lettered,
 * or refused): once a block `afterMcBlocks` seqnos later is whole, and every partition has delivered
 * records of later blocks (so none of its records can still be on the way), or the wait for that
 * has lasted `afterMs` (a partition may be silent).
 */
export type GiveUpBound = { afterMcBlocks: number; afterMs: number };

/** The block the collector waits for while later ones are whole. */
export type Stall = { mcSeqno: number; since: number; newestWhole: number; missing: string };

type BlockParts = {
  meta?: { masterchain: boolean; manifest: BlockManifest };
  transactions: Map<string, TransactionRow>;
  messages: Map<string, MessageRow>;
  accountStates: Map<string, AccountStateRecord>;
};

type PartitionState = { topic: string; partition: number; open: { offset: bigint; mcSeqno: number }[]; end: bigint; newestMc: number };

const messageKey = (hash: string, direction: string, txHash: string) => `${hash}\u0000${direction}\u0000${txHash}`;
const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;
const isWhole = (b: BlockParts) =>
  b.meta !== undefined && b.transactions.size >= b.meta.manifest.transactions && b.messages.size >= b.meta.manifest.messages && b.accountStates.size >= b.meta.manifest.account_states;
/** A block's transactions whose message rows are all here. */
const joinable = (b: BlockParts) =>
  [...b.transactions.values()].filter((t) => (t.in_msg === null || b.messages.has(messageKey(t.in_msg.hash, 'in', t.hash))) && t.out_msgs.every((m) => b.messages.has(messageKey(m.hash, 'out', t.hash))));

/**
 * Gathers the decoder's records by masterchain block until a whole one is there (its meta says how
 * many blocks it commits, each block's meta how many records it has), hands masterchain blocks out
 * in seqno order, and says which offsets may be committed: a partition's offset moves past a message
 * only once every masterchain block it holds records of is done. Replayed records collapse (keyed by
 * their ids); records of blocks already done (or given up on) are dropped. A block that stays
 * incomplete is handed out with what arrived after the `giveUp` bound, so one lost block neither
 * stops the tracer nor makes it buffer every later block.
 */
export function createCollector(options: { lastDone: number | null; giveUp: GiveUpBound }) {
  let lastDone = options.lastDone;
  const blocks = new Map<string, BlockParts>();
  const blocksBySeqno = new Map<number, Set<string>>();
  /** Per partition, consumed messages not yet done (oldest first), one past the last consumed, and the newest masterchain seqno read. */
  const partitions = new Map<string, PartitionState>();
  let assigned: string[] = [];
  let lowestMc: number | null = null;
  let indexFrom: number | null = null;
  /** The newest whole masterchain seqno, kept up to date from the seqnos that received records. */
  let newestWhole = -1;
  const touched = new Set<number>();
  let stall: { mcSeqno: number; since: number } | null = null;

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

  const blocksOf = (n: number) => [...(blocksBySeqno.get(n) ?? [])].map((key) => ({ key, parts: blocks.get(key)! }));

  /** The whole blocks of masterchain seqno n when every block it commits is whole, else undefined. */
  function whole(n: number): BlockParts[] | undefined {
    const all = blocksOf(n).map((b) => b.parts);
    const mc = all.find((b) => b.meta?.masterchain);
    if (!mc) return undefined;
    const done = all.filter(isWhole);
    return done.length >= (mc.meta!.manifest.mc_blocks ?? 1) ? done : undefined;
  }

  function group(n: number, of: BlockParts[]): McGroup {
    return {
      mcSeqno: n,
      transactions: of.flatMap((b) => [...b.transactions.values()]),
      messages: of.flatMap((b) => [...b.messages.values()]),
      accountStates: of.flatMap((b) => [...b.accountStates.values()]),
    };
  }

  /** What arrived of masterchain seqno n: every transaction whose message rows are here, with them. */
  function partialGroup(n: number): McGroup {
    const of = blocksOf(n).map((b) => b.parts);
    const transactions = of.flatMap(joinable);
    const kept = new Set(transactions.map((t) => t.hash));
    return {
      mcSeqno: n,
      transactions,
      messages: of.flatMap((b) => [...b.messages.values()].filter((m) => kept.has(m.tx_hash))),
      accountStates: of.flatMap((b) => [...b.accountStates.values()]),
      missing: describeMissing(n),
    };
  }

  /** What masterchain seqno n lacks, for logs and health. */
  function describeMissing(n: number): string {
    const all = blocksOf(n);
    const mc = all.find((b) => b.parts.meta?.masterchain);
    const problems: string[] = [];
    const wholeCount = all.filter((b) => isWhole(b.parts)).length;
    if (!mc) problems.push('its masterchain block meta was not read');
    else problems.push(`${wholeCount} of ${mc.parts.meta!.manifest.mc_blocks ?? 1} blocks whole`);
    for (const { key, parts: b } of all.filter((x) => !isWhole(x.parts)).slice(0, 3)) {
      const m = b.meta?.manifest;
      const count = (have: number, want: number | undefined, what: string) => (want === undefined ? `${have} ${what}` : `${have} of ${want} ${what}`);
      problems.push(`${key} has ${m ? '' : 'no meta, '}${count(b.transactions.size, m?.transactions, 'transactions')}, ${count(b.messages.size, m?.messages, 'messages')}, ${count(b.accountStates.size, m?.account_states, 'account states')}`);
    }
    return problems.join('; ');
  }

  /** Whether every partition (assigned, or read from) delivered records of a masterchain block after n. */
  function partitionsPast(n: number): boolean {
    for (const key of new Set([...assigned, ...partitions.keys()])) {
      const p = partitions.get(key);
      if (!p || p.newestMc <= n) return false;
    }
    return true;
  }

  function refreshNewestWhole() {
    for (const n of touched) if (n > newestWhole && whole(n)) newestWhole = n;
    touched.clear();
  }

  return {
    add(c: Consumed, at: Position): void {
      const key = partitionKey(at.topic, at.partition);
      let p = partitions.get(key);
      if (!p) partitions.set(key, (p = { topic: at.topic, partition: at.partition, open: [], end: 0n, newestMc: -1 }));
      const offset = BigInt(at.offset);
      if (offset + 1n > p.end) p.end = offset + 1n;
      if (c.kind === 'other') return;
      if (c.mcSeqno > p.newestMc) p.newestMc = c.mcSeqno;
      if (isDone(c.mcSeqno)) return;
      p.open.push({ offset, mcSeqno: c.mcSeqno });
      touched.add(c.mcSeqno);
      const b = parts(c.block, c.mcSeqno);
      if (c.kind === 'transactions') for (const t of c.records) b.transactions.set(t.hash, t);
      else if (c.kind === 'messages') for (const m of c.records) b.messages.set(messageKey(m.hash, m.direction, m.tx_hash), m);
      else if (c.kind === 'accountStates') for (const a of c.records) b.accountStates.set(a.account, a);
      else {
        b.meta = { masterchain: c.masterchain, manifest: c.manifest };
        if (c.masterchain) {
          lowestMc = lowestMc === null ? c.mcSeqno : Math.min(lowestMc, c.mcSeqno);
          if (c.manifest.index_from && indexFrom === null) indexFrom = c.manifest.index_from;
        }
      }
    },

    /** The partitions of the decoder's topics this consumer reads (a partition not heard from yet may still hold a block's records). */
    assign(assignment: { topic: string; partition: number }[]): void {
      assigned = assignment.map((a) => partitionKey(a.topic, a.partition));
    },

    /**
     * The next masterchain block when all of it is here, or when it is given up on (`missing` set),
     * else undefined. `now` (ms) times the wait of the giving-up bound.
     */
    ready(now: number): McGroup | undefined {
      const n = next();
      if (n === null) return undefined;
      const done = whole(n);
      if (done) {
        stall = null;
        return group(n, done);
      }
      refreshNewestWhole();
      if (newestWhole <= n) {
        stall = null;
        return undefined;
      }
      if (stall?.mcSeqno !== n) stall = { mcSeqno: n, since: now };
      const far = newestWhole - n >= options.giveUp.afterMcBlocks;
      if (!far || !(partitionsPast(n) || now - stall.since >= options.giveUp.afterMs)) return undefined;
      stall = null;
      return partialGroup(n);
    },

    /** The block waited for while later ones are whole, if any (as of the last `ready`). */
    stalled(): Stall | undefined {
      if (!stall || stall.mcSeqno !== next()) return undefined;
      return { ...stall, newestWhole, missing: describeMissing(stall.mcSeqno) };
    },

    /** Marks a masterchain block done (its output is durable): frees it and returns the offsets now committable. */
    done(mcSeqno: number): OffsetCommit[] {
      lastDone = mcSeqno;
      for (const [seqno, keys] of blocksBySeqno) {
        if (seqno > mcSeqno) continue;
        for (const k of keys) blocks.delete(k);
        blocksBySeqno.delete(seqno);
      }
      for (const seqno of touched) if (seqno <= mcSeqno) touched.delete(seqno);
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
