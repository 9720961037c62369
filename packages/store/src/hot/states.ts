import { factsOf } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import type { ChainableCommander } from 'ioredis';
import { HOT_STATE_VERSIONS, type HotTier, hotKeys } from './layout.js';

/** A state as the tier holds it: the stored record without its code (kept once per code hash) and account (the key's). */
function member(s: AccountStateRecord): string {
  const { account: _account, code_boc: _code, contract: _contract, ...rest } = s;
  return JSON.stringify(rest);
}

/**
 * Adds states to the tier in one pipeline: each to its account's versions (a state written again
 * replaces its version: replays change nothing), the account's oldest versions beyond
 * HOT_STATE_VERSIONS dropped, codes stored once per hash; a token state's account to `tokens`, a DNS
 * item's wallet record to `dns_wallets`, each at the lowest seqno seen (`LT`: replays change nothing).
 * Facts as the token and contract rows read them (`factsOf`). Throws when Redis did not take every command.
 */
export async function writeHotStates(tier: HotTier, states: readonly AccountStateRecord[]): Promise<void> {
  if (states.length === 0) return;
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  const codes = new Map<string, string>();
  for (const s of states) {
    const key = keys.state(s.account);
    // One member per version: a state written again in another form (a rebuild's) replaces it.
    pipeline.zremrangebyscore(key, s.last_trans_lt, s.last_trans_lt);
    pipeline.zadd(key, s.last_trans_lt, member(s));
    pipeline.zremrangebyrank(key, 0, -(HOT_STATE_VERSIONS + 1));
    pipeline.expire(key, tier.ttlSeconds);
    if (s.code_hash !== null && s.code_boc !== null) codes.set(s.code_hash, s.code_boc);
    if (s.status !== 'active' || s.code_hash === null) continue;
    const mc = s.mc_block_seqno ?? 0;
    const facts = factsOf(s);
    if (facts.jetton_wallet || facts.jetton_master || facts.nft_collection || facts.nft_item) pipeline.zadd(keys.tokens, 'LT', mc, s.account);
    if (facts.dns_item?.dns_wallet) pipeline.zadd(keys.dnsWallets, 'LT', mc, facts.dns_item.dns_wallet);
  }
  for (const [hash, boc] of codes) pipeline.set(keys.code(hash), boc, 'EX', tier.ttlSeconds);
  await execAll(pipeline);
}

/** Runs a pipeline; throws unless Redis took every command. */
export async function execAll(pipeline: ChainableCommander): Promise<void> {
  const results = await pipeline.exec();
  const failed = results?.find(([err]) => err !== null);
  if (!results || failed) throw failed?.[0] ?? new Error('Redis answered no results to the hot tier pipeline');
}

/** Code BoCs by hash, kept in the process: a few codes serve most accounts (wallets), and a code never changes. */
const codeCache = new Map<string, string>();
const CODE_CACHE_ENTRIES = 10_000;

/**
 * Each account's newest state at or below `watermark`, from the tier: `missing` are the accounts it
 * cannot answer (no key, every kept version above the watermark, or its code gone), which the caller
 * reads from ClickHouse. One round trip, a second only for codes not seen before.
 */
export async function readHotStates(tier: HotTier, accounts: readonly string[], watermark: number): Promise<{ found: Map<string, AccountStateRecord>; missing: string[] }> {
  const found = new Map<string, AccountStateRecord>();
  const missing: string[] = [];
  if (accounts.length === 0) return { found, missing };
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  for (const a of accounts) pipeline.zrevrange(keys.state(a), 0, HOT_STATE_VERSIONS - 1);
  const results = (await pipeline.exec()) ?? [];
  const needCode = new Map<string, AccountStateRecord[]>();
  accounts.forEach((account, i) => {
    const [err, members] = results[i] ?? [new Error('no reply')];
    let state: AccountStateRecord | undefined;
    if (!err) {
      for (const m of members as string[]) {
        const s = JSON.parse(m) as AccountStateRecord;
        if ((s.mc_block_seqno ?? 0) <= watermark) {
          state = s;
          break;
        }
      }
    }
    if (!state) return void missing.push(account);
    state.account = account;
    state.code_boc = null;
    found.set(account, state);
    if (state.code_hash !== null) {
      const code = codeCache.get(state.code_hash);
      if (code !== undefined) state.code_boc = code;
      else needCode.set(state.code_hash, [...(needCode.get(state.code_hash) ?? []), state]);
    }
  });
  if (needCode.size > 0) {
    const hashes = [...needCode.keys()];
    const codes = await tier.redis.mget(hashes.map(keys.code));
    hashes.forEach((hash, i) => {
      const code = codes[i];
      for (const s of needCode.get(hash) ?? []) {
        if (code === null || code === undefined) {
          found.delete(s.account);
          missing.push(s.account);
        } else s.code_boc = code;
      }
      if (code !== null && code !== undefined) {
        if (codeCache.size >= CODE_CACHE_ENTRIES) codeCache.delete(codeCache.keys().next().value as string);
        codeCache.set(hash, code);
      }
    });
  }
  return { found, missing };
}

/** Each account's newest kept state's code hash (whatever its block), null for a state without code; the tier's answer to `readCodeHashes`. */
export async function readHotCodeHashes(tier: HotTier, accounts: readonly string[]): Promise<{ found: Map<string, string | null>; missing: string[] }> {
  const found = new Map<string, string | null>();
  const missing: string[] = [];
  if (accounts.length === 0) return { found, missing };
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  for (const a of accounts) pipeline.zrevrange(keys.state(a), 0, 0);
  const results = (await pipeline.exec()) ?? [];
  accounts.forEach((account, i) => {
    const [err, members] = results[i] ?? [new Error('no reply')];
    const newest = err ? undefined : (members as string[])[0];
    if (newest === undefined) return void missing.push(account);
    found.set(account, (JSON.parse(newest) as AccountStateRecord).code_hash ?? null);
  });
  return { found, missing };
}
