import type { HotTier } from './layout.js';
import { hotKeys } from './layout.js';

/** Each address's lowest masterchain seqno in a sorted set of the tier (ZMSCORE), null where absent. */
async function firstSeqnos(tier: HotTier, key: string, addresses: readonly string[]): Promise<(number | null)[]> {
  if (addresses.length === 0) return [];
  const scores = await tier.redis.zmscore(key, ...addresses);
  return scores.map((s) => (s === null ? null : Number(s)));
}

/** The addresses that are tokens at `watermark` (readTokenAddresses' answer), from `tokens`: exact, no fallback needed. */
export async function readHotTokenAddresses(tier: HotTier, addresses: readonly string[], watermark: number): Promise<string[]> {
  const first = await firstSeqnos(tier, hotKeys(tier.prefix).tokens, addresses);
  return addresses.filter((_a, i) => first[i] !== null && (first[i] as number) <= watermark);
}

/** Of `addresses`, those a DNS item may name at `watermark` (a wallet record at or below it); for the others there is no domain. */
export async function readHotDnsCandidates(tier: HotTier, addresses: readonly string[], watermark: number): Promise<string[]> {
  const first = await firstSeqnos(tier, hotKeys(tier.prefix).dnsWallets, addresses);
  return addresses.filter((_a, i) => first[i] !== null && (first[i] as number) <= watermark);
}
