/**
 * How far the index is complete: receipts and the stored-up-to watermark.
 *
 * A writer stores a block's records as they arrive from four topics, in any order, possibly from
 * several writer instances. After the rows of a consumed Kafka message are acknowledged it writes a
 * receipt: which block, which kind, how many records (and how many it dead-lettered). The block's
 * meta brings the block's manifest (how many records of each kind exist) and, for a masterchain
 * block, how many blocks it commits. The watermark is the highest masterchain seqno N such that every
 * block of N and of every seqno below it (down to where the index began) has all its records stored.
 * It only moves forward, and is what the API calls indexed.
 */
import type { Store } from './client.js';
import { RECEIPT_PARTITION_SEQNOS } from './schema.js';
import { str, uint } from './sql.js';

export type ReceiptKind = 'block' | 'transactions' | 'messages' | 'account_states';

/** What one consumed Kafka message of a block left in the store. */
export type Receipt = {
  mc_seqno: number;
  /** `workchain:SHARD:seqno` (the Kafka key of every message of the block). */
  block: string;
  kind: ReceiptKind;
  /** The message's partition: a block has one bundle per partition of each record topic. */
  part: number;
  records: number;
  dead: number;
  /** Block receipts (the meta) only, else 0: the manifest. */
  expect_transactions: number;
  expect_messages: number;
  expect_account_states: number;
  mc_blocks: number;
  index_from: number;
  gen_utime: number;
  /** When the writer stored it (ms): the newest receipt of a message wins. */
  written_ms: number;
};

export type Watermark = { mc_seqno: number; gen_utime: number };

/** Blocks of one masterchain seqno as the receipts describe them (deduplicated). */
export type BlockProgress = {
  mc_seqno: number;
  block: string;
  /** Undefined until the block's meta (and manifest) is stored. */
  manifest?: { transactions: number; messages: number; account_states: number; mc_blocks: number; index_from: number; gen_utime: number };
  stored: { transactions: number; messages: number; account_states: number };
  dead: number;
};

export type Advance = {
  watermark: Watermark | null;
  /** Why the seqno after the watermark is not complete yet; null when nothing above it was seen. */
  waiting: string | null;
  /** True when the seqno after the watermark has dead-lettered records: it will not complete by itself. */
  stuck: boolean;
};

const isMasterchain = (block: string) => block.startsWith('-1:');

/**
 * Moves the watermark over every complete masterchain seqno following it (pure: the receipts of
 * the seqnos above `current`, in any order). `current` null: the index has no watermark yet and
 * `start` is the seqno it begins at.
 */
export function advanceWatermark(current: Watermark | null, start: number, blocks: readonly BlockProgress[]): Advance {
  const bySeqno = new Map<number, BlockProgress[]>();
  for (const b of blocks) {
    const list = bySeqno.get(b.mc_seqno);
    if (list) list.push(b);
    else bySeqno.set(b.mc_seqno, [b]);
  }
  let watermark = current;
  for (let n = current ? current.mc_seqno + 1 : start; ; n++) {
    const of = bySeqno.get(n);
    if (!of) return { watermark, waiting: bySeqno.size > 0 && [...bySeqno.keys()].some((k) => k > n) ? `masterchain block ${n}: nothing stored yet` : null, stuck: false };
    const problem = incompleteness(n, of);
    if (problem) return { watermark, waiting: problem.reason, stuck: problem.stuck };
    const mc = of.find((b) => isMasterchain(b.block))!;
    watermark = { mc_seqno: n, gen_utime: mc.manifest!.gen_utime };
  }
}

/** Why masterchain seqno `n` (its blocks' progress, deduplicated) is not whole yet; undefined when it is. */
export function incompleteness(n: number, blocks: readonly BlockProgress[]): { reason: string; stuck: boolean } | undefined {
  // Dead letters matter only where records are missing: the block cannot complete by itself then.
  const deadNote = (b: BlockProgress) => (b.dead > 0 ? ` (${b.dead} of its records are in the dead-letter topic)` : '');
  const mc = blocks.find((b) => isMasterchain(b.block) && b.manifest);
  if (!mc) {
    const dead = blocks.find((b) => isMasterchain(b.block) && b.dead > 0);
    return { reason: `masterchain block ${n}: its meta is not stored yet${dead ? deadNote(dead) : ''}`, stuck: dead !== undefined };
  }
  const expected = mc.manifest!.mc_blocks;
  if (expected === 0) return { reason: `masterchain block ${n}: its manifest does not say how many blocks it commits (a fetcher older than the decoder?)`, stuck: true };
  const withMeta = blocks.filter((b) => b.manifest);
  if (withMeta.length < expected) {
    const dead = blocks.filter((b) => !b.manifest && b.dead > 0);
    return { reason: `masterchain block ${n}: ${withMeta.length} of ${expected} block metas stored${dead.map((b) => `; ${b.block}${deadNote(b)}`).join('')}`, stuck: dead.length > 0 };
  }
  for (const b of withMeta) {
    const m = b.manifest!;
    for (const kind of ['transactions', 'messages', 'account_states'] as const) {
      if (b.stored[kind] < m[kind]) return { reason: `masterchain block ${n}: ${b.block} has ${b.stored[kind]} of ${m[kind]} ${kind} stored${deadNote(b)}`, stuck: b.dead > 0 };
    }
  }
  return undefined;
}

export async function readWatermark(store: Store): Promise<Watermark | null> {
  const rows = await store.query<{ mc_seqno: number; gen_utime: number }>(
    `SELECT mc_seqno, gen_utime FROM ${store.database}.index_watermark ORDER BY mc_seqno DESC LIMIT 1`,
  );
  return rows.length === 0 ? null : { mc_seqno: Number(rows[0].mc_seqno), gen_utime: Number(rows[0].gen_utime) };
}

export async function saveWatermark(store: Store, w: Watermark): Promise<void> {
  await store.insert('index_watermark', [{ mc_seqno: w.mc_seqno, gen_utime: w.gen_utime, updated_at: Math.floor(Date.now() / 1000) }]);
}

/**
 * Where a new index begins: the first seqno of the fetcher run that started it (masterchain
 * manifests carry it), else the lowest masterchain block with a receipt; null before any.
 */
export async function indexStart(store: Store): Promise<number | null> {
  // `found`, not a count: replayed receipts are duplicates until merged, so a count would depend on merges.
  const rows = await store.query<{ from_run: number; lowest: number; found: number }>(
    `SELECT minIf(index_from, index_from > 0) AS from_run, min(mc_seqno) AS lowest, count() > 0 AS found
     FROM ${store.database}.index_receipts WHERE kind = 'block' AND mc_blocks > 0`,
  );
  if (rows.length === 0 || Number(rows[0].found) === 0) return null;
  const fromRun = Number(rows[0].from_run);
  return fromRun > 0 ? fromRun : Number(rows[0].lowest);
}

/** Block progress of the masterchain seqnos in (after, after + window], receipts deduplicated. */
export async function readProgress(store: Store, after: number, window: number): Promise<BlockProgress[]> {
  const db = store.database;
  const range = `mc_seqno > ${uint(after)} AND mc_seqno <= ${uint(after + window)}`;
  // Replays write a receipt again: the newest per (block, kind, part) counts (a block re-decoded after
  // a fix may have no dead letters any more).
  const rows = await store.query<{
    mc_seqno: number;
    block: string;
    metas: string;
    tx: string;
    msg: string;
    st: string;
    dead: string;
    e_tx: number;
    e_msg: number;
    e_st: number;
    mc_blocks: number;
    index_from: number;
    gen_utime: number;
  }>(
    `SELECT mc_seqno, block,
       sumIf(records, kind = 'block') AS metas,
       sumIf(records, kind = 'transactions') AS tx, sumIf(records, kind = 'messages') AS msg,
       sumIf(records, kind = 'account_states') AS st, sum(dead) AS dead,
       max(e_tx) AS e_tx, max(e_msg) AS e_msg, max(e_st) AS e_st,
       max(mcb) AS mc_blocks, max(ifr) AS index_from, max(gu) AS gen_utime
     FROM (
       SELECT mc_seqno, block, kind, part, argMax(records, written_ms) AS records, argMax(dead, written_ms) AS dead,
         argMax(expect_transactions, written_ms) AS e_tx, argMax(expect_messages, written_ms) AS e_msg,
         argMax(expect_account_states, written_ms) AS e_st, argMax(mc_blocks, written_ms) AS mcb,
         argMax(index_from, written_ms) AS ifr, argMax(gen_utime, written_ms) AS gu
       FROM ${db}.index_receipts WHERE ${range}
       GROUP BY mc_seqno, block, kind, part
     )
     GROUP BY mc_seqno, block`,
  );
  return rows.map((r) => ({
    mc_seqno: Number(r.mc_seqno),
    block: r.block,
    manifest:
      Number(r.metas) > 0
        ? { transactions: Number(r.e_tx), messages: Number(r.e_msg), account_states: Number(r.e_st), mc_blocks: Number(r.mc_blocks), index_from: Number(r.index_from), gen_utime: Number(r.gen_utime) }
        : undefined,
    stored: { transactions: Number(r.tx), messages: Number(r.msg), account_states: Number(r.st) },
    dead: Number(r.dead),
  }));
}

/**
 * Drops receipt partitions wholly below the watermark's partition: they are never read again.
 * `table`: the index's receipts, or the tracer's (trace-progress.ts) below the traces watermark.
 * `floor`: the history floor; partitions holding seqnos below it are kept (a backfill's receipts,
 * read by its gap check). At the chain's first block nothing is below it.
 */
export async function dropOldReceipts(store: Store, watermark: number, table: 'index_receipts' | 'trace_receipts' = 'index_receipts', floor: number | null = null): Promise<number> {
  const db = store.database;
  const below = Math.floor(watermark / RECEIPT_PARTITION_SEQNOS);
  // Receipts below the history floor are a backfill's, still to be checked (history.ts).
  const from = floor === null || floor <= 1 ? 0 : Math.ceil(floor / RECEIPT_PARTITION_SEQNOS);
  const parts = await store.query<{ partition: string }>(
    `SELECT DISTINCT partition FROM system.parts WHERE database = ${str(db)} AND table = ${str(table)} AND active`,
  );
  let dropped = 0;
  for (const { partition } of parts) {
    const p = Number(partition);
    if (!Number.isInteger(p) || p >= below || p < from) continue;
    await store.command(`ALTER TABLE ${db}.${table} DROP PARTITION ${uint(p)}`);
    dropped++;
  }
  return dropped;
}
