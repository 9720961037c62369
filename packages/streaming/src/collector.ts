import type { AccountStateRecord, BlockManifest, MessageRow, TransactionRow } from '@tonstream/records';

/** One consumed message of the decoder's topics, read and checked by the caller. */
export type Consumed =
  | { kind: 'transactions'; block: string; mcSeqno: number; records: TransactionRow[] }
  | { kind: 'messages'; block: string; mcSeqno: number; records: MessageRow[] }
  | { kind: 'accountStates'; block: string; mcSeqno: number; records: AccountStateRecord[] }
  | { kind: 'meta'; block: string; mcSeqno: number; masterchain: boolean; manifest: BlockManifest };

/** Every record of one masterchain block and of the shard blocks it commits. */
export type McRecords = { mcSeqno: number; transactions: TransactionRow[]; messages: MessageRow[]; accountStates: AccountStateRecord[] };

type Parts = { meta?: { masterchain: boolean; manifest: BlockManifest }; transactions: Map<string, TransactionRow>; messages: Map<string, MessageRow>; states: Map<string, AccountStateRecord> };

export type CollectorOptions = {
  /**
   * A process that starts reading mid-stream (Kafka offsets found by timestamp) may have missed the
   * first records of the earliest blocks it sees: it begins this many masterchain blocks after the
   * lowest one, unless that block is where the index began (`index_from`).
   */
  startMarginMcBlocks: number;
  /** Before the first block is out, a block still incomplete while this many later ones are whole is given up (its records came before the start). */
  skipIncompleteAfterMcBlocks: number;
};

/**
 * Gathers records by masterchain block until all of it is there (its meta says how many blocks it
 * commits, each block's meta how many records of each kind it has) and hands masterchain blocks out
 * in seqno order, each once. Replayed records collapse (keyed by their ids).
 */
export function createCollector(options: CollectorOptions) {
  let next: number | null = null;
  let started = false;
  let lowestMc: number | null = null;
  let lowestIsIndexStart = false;
  const blocks = new Map<string, Parts>();
  const bySeqno = new Map<number, Set<string>>();

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

  const whole = (n: number): McRecords | undefined => {
    const keys = bySeqno.get(n);
    if (!keys) return undefined;
    const all = [...keys].map((k) => blocks.get(k)!);
    const mc = all.find((b) => b.meta?.masterchain);
    if (!mc) return undefined;
    const done = all.filter((b) => b.meta && b.transactions.size >= b.meta.manifest.transactions && b.messages.size >= b.meta.manifest.messages && b.states.size >= b.meta.manifest.account_states);
    if (done.length < (mc.meta!.manifest.mc_blocks ?? 1)) return undefined;
    return {
      mcSeqno: n,
      transactions: done.flatMap((b) => [...b.transactions.values()]),
      messages: done.flatMap((b) => [...b.messages.values()]),
      accountStates: done.flatMap((b) => [...b.states.values()]),
    };
  };

  const forget = (upTo: number) => {
    for (const [seqno, keys] of bySeqno) {
      if (seqno > upTo) continue;
      for (const k of keys) blocks.delete(k);
      bySeqno.delete(seqno);
    }
  };

  return {
    add(c: Consumed): void {
      if (next !== null && c.mcSeqno < next) return;
      const p = parts(c.block, c.mcSeqno);
      if (c.kind === 'transactions') for (const t of c.records) p.transactions.set(t.hash, t);
      else if (c.kind === 'messages') for (const m of c.records) p.messages.set(`${m.hash}\u0000${m.direction}\u0000${m.tx_hash}`, m);
      else if (c.kind === 'accountStates') for (const s of c.records) p.states.set(`${s.account}\u0000${s.last_trans_lt}`, s);
      else {
        p.meta = { masterchain: c.masterchain, manifest: c.manifest };
        if (c.masterchain && (lowestMc === null || c.mcSeqno < lowestMc)) {
          lowestMc = c.mcSeqno;
          lowestIsIndexStart = c.manifest.index_from === c.mcSeqno;
        }
      }
    },

    /** The next whole masterchain block, in seqno order, else undefined. */
    take(): McRecords | undefined {
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
      if (!found) return undefined;
      started = true;
      forget(next);
      next += 1;
      return found;
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
