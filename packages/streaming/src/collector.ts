import type { AccountStateRecord, BlockManifest, MessageRow, TransactionRow } from '@tonstream/records';

/** One consumed message of the decoder's topics, read and checked by the caller. */
export type Consumed =
  | { kind: 'transactions'; block: string; mcSeqno: number; records: TransactionRow[] }
  | { kind: 'messages'; block: string; mcSeqno: number; records: MessageRow[] }
  | { kind: 'accountStates'; block: string; mcSeqno: number; records: AccountStateRecord[] }
  | { kind: 'meta'; block: string; mcSeqno: number; masterchain: boolean; manifest: BlockManifest };

/**
 * Every record of one masterchain block and of the shard blocks it commits. `missing` is set when the
 * block was given up on: it says what was not there, and the records are those that arrived (every
 * transaction whose message rows arrived, with them).
 */
export type McRecords = { mcSeqno: number; transactions: TransactionRow[]; messages: MessageRow[]; accountStates: AccountStateRecord[]; missing?: string };

/** The Kafka partition a consumed message came from. */
export type Source = { topic: string; partition: number };

/** The block the collector waits for while later ones are whole. */
export type Stall = { mcSeqno: number; since: number; newestWhole: number; missing: string };

type Parts = { meta?: { masterchain: boolean; manifest: BlockManifest }; transactions: Map<string, TransactionRow>; messages: Map<string, MessageRow>; states: Map<string, AccountStateRecord> };

const messageKey = (hash: string, direction: string, txHash: string) => `${hash}\u0000${direction}\u0000${txHash}`;
const sourceKey = (s: Source) => `${s.topic}\u0000${s.partition}`;
const isWhole = (b: Parts) => b.meta !== undefined && b.transactions.size >= b.meta.manifest.transactions && b.messages.size >= b.meta.manifest.messages && b.states.size >= b.meta.manifest.account_states;
/** A block's transactions whose message rows are all here. */
const joinable = (b: Parts) =>
  [...b.transactions.values()].filter((t) => (t.in_msg === null || b.messages.has(messageKey(t.in_msg.hash, 'in', t.hash))) && t.out_msgs.every((m) => b.messages.has(messageKey(m.hash, 'out', t.hash))));

export type CollectorOptions = {
  /**
   * A process that starts reading mid-stream (Kafka offsets found by timestamp) may have missed the
   * first records of the earliest blocks it sees: it begins this many masterchain blocks after the
   * lowest one, unless that block is where the index began (`index_from`).
   */
  startMarginMcBlocks: number;
  /** Before the first block is out, a block still incomplete while this many later ones are whole is given up (its records came before the start). */
  skipIncompleteAfterMcBlocks: number;
  /**
   * After the first block is out, a block that does not complete (records dead-lettered or refused)
   * goes out with what arrived once a block `afterMcBlocks` seqnos later is whole and every partition
   * has delivered records of later blocks (none of its records can still be on the way), or the wait
   * for that has lasted `afterMs` (a partition may be silent).
   */
  giveUp: { afterMcBlocks: number; afterMs: number };
};

/**
 * Gathers records by masterchain block until all of it is there (its meta says how many blocks it
 * commits, each block's meta how many records of each kind it has) and hands masterchain blocks out
 * in seqno order, each once. Replayed records collapse (keyed by their ids). A block that stays
 * incomplete goes out with what arrived after the `giveUp` bound, so one lost block neither stops the
 * stream nor makes it buffer every later block.
 */
export function createCollector(options: CollectorOptions) {
  let next: number | null = null;
  let started = false;
  let lowestMc: number | null = null;
  let lowestIsIndexStart = false;
  const blocks = new Map<string, Parts>();
  const bySeqno = new Map<number, Set<string>>();
  /** Per partition of the decoded topics, the newest masterchain seqno read. */
  const newestRead = new Map<string, number>();
  let assigned: string[] = [];
  /** The newest whole masterchain seqno, kept up to date from the seqnos that received records. */
  let newestWhole = -1;
  const touched = new Set<number>();
  let stall: { mcSeqno: number; since: number } | null = null;

  const parts = (block: string, mcSeqno: number): Parts => {
    let p = blocks.get(block);
    if (!p) {
      blocks.set(block, (p = { transactions: new Map(), messages: new Map(), states: new Map() }));
      const keys = bySeqno.get(mcSeqno) ?? new Set<string>();
      keys.add(block);
      bySeqno.set(mcSeqno, keys);
    }
    return p;
  };

  const blocksOf = (n: number) => [...(bySeqno.get(n) ?? [])].map((key) => ({ key, parts: blocks.get(key)! }));

  const whole = (n: number): McRecords | undefined => {
    const all = blocksOf(n).map((b) => b.parts);
    const mc = all.find((b) => b.meta?.masterchain);
    if (!mc) return undefined;
    const done = all.filter(isWhole);
    if (done.length < (mc.meta!.manifest.mc_blocks ?? 1)) return undefined;
    return {
      mcSeqno: n,
      transactions: done.flatMap((b) => [...b.transactions.values()]),
      messages: done.flatMap((b) => [...b.messages.values()]),
      accountStates: done.flatMap((b) => [...b.states.values()]),
    };
  };

  /** What arrived of masterchain seqno n: every transaction whose message rows are here, with them. */
  const partial = (n: number): McRecords => {
    const all = blocksOf(n).map((b) => b.parts);
    const transactions = all.flatMap(joinable);
    const kept = new Set(transactions.map((t) => t.hash));
    return {
      mcSeqno: n,
      transactions,
      messages: all.flatMap((b) => [...b.messages.values()].filter((m) => kept.has(m.tx_hash))),
      accountStates: all.flatMap((b) => [...b.states.values()]),
      missing: describeMissing(n),
    };
  };

  /** What masterchain seqno n lacks, for logs and health. */
  const describeMissing = (n: number): string => {
    const all = blocksOf(n);
    const mc = all.find((b) => b.parts.meta?.masterchain);
    const problems = [mc ? `${all.filter((b) => isWhole(b.parts)).length} of ${mc.parts.meta!.manifest.mc_blocks ?? 1} blocks whole` : 'its masterchain block meta was not read'];
    for (const { key, parts: b } of all.filter((x) => !isWhole(x.parts)).slice(0, 3)) {
      const m = b.meta?.manifest;
      const count = (have: number, want: number | undefined, what: string) => (want === undefined ? `${have} ${what}` : `${have} of ${want} ${what}`);
      problems.push(`${key} has ${m ? '' : 'no meta, '}${count(b.transactions.size, m?.transactions, 'transactions')}, ${count(b.messages.size, m?.messages, 'messages')}, ${count(b.states.size, m?.account_states, 'account states')}`);
    }
    return problems.join('; ');
  };

  /** Whether every partition (assigned, or read from) delivered records of a masterchain block after n. */
  const partitionsPast = (n: number): boolean => {
    for (const key of new Set([...assigned, ...newestRead.keys()])) if ((newestRead.get(key) ?? -1) <= n) return false;
    return true;
  };

  /** After the first block is out: the next block given up on (with what arrived), if the bound says so. */
  const giveUp = (n: number, now: number): McRecords | undefined => {
    for (const seqno of touched) if (seqno > newestWhole && whole(seqno)) newestWhole = seqno;
    touched.clear();
    if (newestWhole <= n) {
      stall = null;
      return undefined;
    }
    if (stall?.mcSeqno !== n) stall = { mcSeqno: n, since: now };
    const far = newestWhole - n >= options.giveUp.afterMcBlocks;
    if (!far || !(partitionsPast(n) || now - stall.since >= options.giveUp.afterMs)) return undefined;
    return partial(n);
  };

  const forget = (upTo: number) => {
    for (const [seqno, keys] of bySeqno) {
      if (seqno > upTo) continue;
      for (const k of keys) blocks.delete(k);
      bySeqno.delete(seqno);
    }
    for (const seqno of touched) if (seqno <= upTo) touched.delete(seqno);
  };

  return {
    add(c: Consumed, from: Source): void {
      const source = sourceKey(from);
      if (c.mcSeqno > (newestRead.get(source) ?? -1)) newestRead.set(source, c.mcSeqno);
      if (next !== null && c.mcSeqno < next) return;
      touched.add(c.mcSeqno);
      const p = parts(c.block, c.mcSeqno);
      if (c.kind === 'transactions') for (const t of c.records) p.transactions.set(t.hash, t);
      else if (c.kind === 'messages') for (const m of c.records) p.messages.set(messageKey(m.hash, m.direction, m.tx_hash), m);
      else if (c.kind === 'accountStates') for (const s of c.records) p.states.set(`${s.account}\u0000${s.last_trans_lt}`, s);
      else {
        p.meta = { masterchain: c.masterchain, manifest: c.manifest };
        if (c.masterchain && (lowestMc === null || c.mcSeqno < lowestMc)) {
          lowestMc = c.mcSeqno;
          lowestIsIndexStart = c.manifest.index_from === c.mcSeqno;
        }
      }
    },

    /** The partitions of the decoded topics this consumer reads (a partition not heard from yet may still hold a block's records). */
    assign(assignment: Source[]): void {
      assigned = assignment.map(sourceKey);
    },

    /** The next whole (or given-up) masterchain block, in seqno order, else undefined. `now` (ms) times the giving-up bound. */
    take(now: number): McRecords | undefined {
      if (next === null) {
        if (lowestMc === null) return undefined;
        next = lowestIsIndexStart ? lowestMc : lowestMc + options.startMarginMcBlocks;
        forget(next - 1);
      }
      let found = whole(next);
      if (!found && !started) {
        const later = [...bySeqno.keys()].filter((n) => n > next! && whole(n) !== undefined);
        if (later.length >= options.skipIncompleteAfterMcBlocks) {
          next = Math.min(...later);
          forget(next - 1);
          found = whole(next);
        }
      }
      if (!found && started) found = giveUp(next, now);
      if (!found) return undefined;
      stall = null;
      started = true;
      forget(next);
      next += 1;
      return found;
    },

    /** The block waited for while later ones are whole, if any (as of the last `take`). */
    stalled(): Stall | undefined {
      if (!stall || stall.mcSeqno !== next) return undefined;
      return { ...stall, newestWhole, missing: describeMissing(stall.mcSeqno) };
    },
    /** The seqno the collector waits for (null before it saw a masterchain block). */
    get next() {
      return next;
    },
    /** Masterchain blocks with records waiting. */
    get waiting() {
      return bySeqno.size;
    },
  };
}

export type Collector = ReturnType<typeof createCollector>;
