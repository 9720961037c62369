import type { Redis } from 'ioredis';

/**
 * The hot tier: what point reads ask for all day, in Redis (or Kvrocks: plain strings, hashes and
 * sorted sets, no scripts), written by the writer beside ClickHouse and read before it. Keys, under
 * one prefix (default `tonstream:hot:<database>:`, so indexes sharing a Redis never meet), then
 * `v<HOT_LAYOUT>:` but for `meta` and `rebuilding`:
 *
 * | key | type | content |
 * |---|---|---|
 * | `meta` | hash | `epoch`, `built_at_ms`, `run_id`, `from_mc`, `tx_since`, `layout`: the tier is complete since it was built (gate.ts) |
 * | `state:<wc:HEX>` | sorted set | the account's last HOT_STATE_VERSIONS stored states by `last_trans_lt`: the state record as stored in ClickHouse without `code_boc` |
 * | `code:<code hash>` | string | the code's BoC (base64), shared by every account running it |
 * | `tokens` | sorted set | every address that has been a Jetton master or wallet, an NFT collection or item, by the lowest masterchain seqno it was one at |
 * | `rebuilding` | string | a writer's claim on a rebuild (expires) |
 * | `dns_wallets` | sorted set | every address a DNS item's wallet record has named, by the lowest masterchain seqno it did |
 * | `tx:<hash>` | hash | a transaction of the window: `c` its stored columns (TransactionColumns, JSON), `t` its trace id once traced, `s` the summary of the state after it (a transaction's `account_state_before/after`) when `account_state_summaries` has one (the account's last transaction in its block) |
 * | `txs:<wc:HEX>` | sorted set | the account's last HOT_ACCOUNT_TXS transactions of the window by lt: `<mc seqno>:<hash>` |
 * | `mctx:<mc seqno>` | sorted set | the transactions a masterchain block commits by lt: `<account> <hash>` |
 * | `msg:<hash>` | sorted set (score 0) | the sides of a message of the window (and of the external-in message with this normalized hash): `<direction> <transaction hash>` |
 *
 * `state:` and `code:` keys expire `ttlSeconds` after their last write: an account idle that long is
 * read from ClickHouse again. The transaction slice (`tx:`, `txs:`, `mctx:`, `msg:`; when `txWindowSeconds`
 * is set) expires by the chain's time: at the transaction's (state's) time plus the window. `tokens` and `dns_wallets` are complete (they only grow, with the tokens
 * and DNS items of the chain): an address absent from them is not one, without asking ClickHouse.
 */
export type HotTier = {
  redis: Redis;
  prefix: string;
  ttlSeconds: number;
  /** How long (chain time) transactions stay in the tier; 0: no transaction slice. @default 0 */
  txWindowSeconds?: number;
  /**
   * Set by the API's gate from `meta`: the tier holds every transaction of the window with `now` at or
   * after this (0: every transaction of the index); undefined: the tier was built without the slice.
   */
  txSince?: number;
};

/** Whether the tier keeps transactions (the slice of transactions.ts). */
export const keepsTransactions = (tier: HotTier): boolean => (tier.txWindowSeconds ?? 0) > 0;

/** Transactions listed per account: a busy account's older pages are read from ClickHouse. */
export const HOT_ACCOUNT_TXS = 1_000;

/** States kept per account: a read needs the newest at or below the watermark, which trails the writer by a few blocks. */
export const HOT_STATE_VERSIONS = 3;

export const DEFAULT_HOT_TTL_SECONDS = 30 * 24 * 3600;

export function defaultHotPrefix(database: string): string {
  return `tonstream:hot:${database}:`;
}

/**
 * The version of the tier's keys and members, part of every key but `meta`: a tier built by a release of
 * another layout is rebuilt under its own keys (the old ones expire).
 */
export const HOT_LAYOUT = 4;

export const hotKeys = (root: string, prefix = `${root}v${HOT_LAYOUT}:`) => ({
  meta: `${root}meta`,
  state: (account: string) => `${prefix}state:${account}`,
  code: (codeHash: string) => `${prefix}code:${codeHash}`,
  tokens: `${prefix}tokens`,
  dnsWallets: `${prefix}dns_wallets`,
  tx: (hash: string) => `${prefix}tx:${hash}`,
  accountTxs: (account: string) => `${prefix}txs:${account}`,
  mcTxs: (seqno: number) => `${prefix}mctx:${seqno}`,
  message: (hash: string) => `${prefix}msg:${hash}`,
});
