import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Store } from '../client.js';
import { str, uint } from '../sql.js';
import { HOT_LAYOUT, type HotTier, hotKeys, keepsTransactions } from './layout.js';

/**
 * When the tier may answer. It holds every state written since it was built (`meta`), unless a write
 * to it failed since: the writer then records a break in ClickHouse (`hot_tier_breaks`) before the
 * batch's receipts, so a watermark that covers the batch is only ever read with the break in sight.
 * A Redis restarted since the build (another `run_id`) may have come back without the last writes
 * (or empty): the tier is not used until it is built again (`npm run hot:rebuild`). An index whose
 * writer starts with the tier builds it empty (`initHotTier`): everything after is written to it.
 */
export type HotMeta = {
  epoch: string;
  builtAtMs: number;
  runId: string;
  fromMc: number;
  /** The transaction slice holds every transaction with `now` at or after this (0: all of the index's); absent: built without it. */
  txSince?: number;
  /** HOT_LAYOUT of the release that built it. */
  layout: number;
};

/** The Redis server's id for this run (Kvrocks has none: '' then, and restarts are not detected). */
export async function redisRunId(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /^run_id:(\S+)/m.exec(info)?.[1] ?? '';
}

export async function readHotMeta(tier: HotTier): Promise<HotMeta | null> {
  const m = await tier.redis.hgetall(hotKeys(tier.prefix).meta);
  if (!m.epoch) return null;
  const meta: HotMeta = { epoch: m.epoch, builtAtMs: Number(m.built_at_ms), runId: m.run_id ?? '', fromMc: Number(m.from_mc), layout: Number(m.layout ?? 1) };
  if (m.tx_since !== undefined) meta.txSince = Number(m.tx_since);
  return meta;
}

/** Marks the tier complete from now on (`builtAtMs`: when its filling began; `txSince`: see HotMeta, when it keeps transactions). */
export async function writeHotMeta(tier: HotTier, builtAtMs: number, fromMc: number, txSince?: number): Promise<HotMeta> {
  const meta: HotMeta = { epoch: randomUUID(), builtAtMs, runId: await redisRunId(tier.redis), fromMc, layout: HOT_LAYOUT };
  const fields: Record<string, string> = { epoch: meta.epoch, built_at_ms: String(builtAtMs), run_id: meta.runId, from_mc: String(fromMc), layout: String(HOT_LAYOUT) };
  if (keepsTransactions(tier) && txSince !== undefined) fields.tx_since = String((meta.txSince = txSince));
  await tier.redis.hset(hotKeys(tier.prefix).meta, fields);
  return meta;
}

export async function dropHotMeta(tier: HotTier): Promise<void> {
  await tier.redis.del(hotKeys(tier.prefix).meta);
}

/**
 * At a writer's start: an index with nothing stored yet and a tier never built gets an empty tier,
 * complete from the first block. Returns whether it did.
 */
export async function initHotTier(tier: HotTier, store: Store): Promise<boolean> {
  if (await readHotMeta(tier)) return false;
  const rows = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.index_receipts`);
  if (Number(rows[0]?.n) > 0) return false;
  await writeHotMeta(tier, Date.now(), 0, 0);
  return true;
}

/** What the writer records when a write to the tier failed: the tier is not used again until rebuilt. */
export async function recordHotBreak(store: Store, tier: Pick<HotTier, 'prefix'>, reason: string): Promise<void> {
  await store.insert('hot_tier_breaks', [{ at_ms: Date.now(), tier: tier.prefix, reason: reason.slice(0, 1000) }]);
}

async function brokenSince(store: Store, prefix: string, sinceMs: number): Promise<boolean> {
  const rows = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.hot_tier_breaks WHERE tier = ${str(prefix)} AND at_ms >= ${uint(sinceMs)}`);
  return Number(rows[0]?.n) > 0;
}

/** Why the tier cannot answer now, or null when it can. */
export async function hotTierProblem(tier: HotTier, store: Store): Promise<string | null> {
  return (await checkHotTier(tier, store)).problem;
}

async function checkHotTier(tier: HotTier, store: Store): Promise<{ problem: string | null; meta: HotMeta | null }> {
  const meta = await readHotMeta(tier);
  const problem = await (async () => {
    if (!meta) return 'not built (npm run hot:rebuild)';
    if (meta.layout !== HOT_LAYOUT) return `built by a release of another layout (${meta.layout}, this one ${HOT_LAYOUT})`;
    if (meta.runId !== (await redisRunId(tier.redis))) return 'Redis restarted since the tier was built';
    // Both ways: a slice the writers no longer add to would answer without the newest transactions.
    if ((meta.txSince !== undefined) !== keepsTransactions(tier)) return meta.txSince === undefined ? 'built without transactions (HOT_TIER_TX_WINDOW_SECONDS)' : 'built with transactions the configuration does not keep';
    if (await brokenSince(store, tier.prefix, meta.builtAtMs)) return 'a write to it failed since it was built';
    return null;
  })();
  return { problem, meta };
}

/** A watermark that stays put is checked again this often (a Redis restarted meanwhile). */
const RECHECK_MS = 5_000;

/**
 * The API's view of the tier: `at(watermark)` is the tier when it can answer reads at that watermark,
 * else undefined. Checked once per watermark and every RECHECK_MS (the check reads the breaks after the watermark was read,
 * so a batch covered by it cannot have failed unseen), and a failing check is a fallback, not an error.
 */
export type HotGate = { at(watermark: number | null): Promise<HotTier | undefined> };

export function hotGate(tier: HotTier, store: Store, onChange: (problem: string | null) => void = () => {}): HotGate {
  let checked: { watermark: number; atMs: number; usable: Promise<HotTier | undefined> } | undefined;
  let last: string | null | undefined;
  return {
    async at(watermark: number | null): Promise<HotTier | undefined> {
      if (watermark === null) return undefined;
      if (checked?.watermark !== watermark || Date.now() - checked.atMs > RECHECK_MS) {
        const usable = checkHotTier(tier, store).then(
          ({ problem, meta }): HotTier | undefined => {
            if (problem !== last) onChange((last = problem));
            return problem === null ? { ...tier, txSince: meta?.txSince } : undefined;
          },
          (err: unknown) => {
            const problem = `check failed: ${(err as Error).message}`;
            if (problem !== last) onChange((last = problem));
            return undefined;
          },
        );
        checked = { watermark, atMs: Date.now(), usable };
      }
      return checked.usable;
    },
  };
}
