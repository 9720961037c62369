import type { AccountStateRecord } from '@tonstream/records';
import type { Store } from '../client.js';
import { readWatermark } from '../index-progress.js';
import { SUMMARY_COLUMNS, type SummaryColumns, summaryFromColumns } from '../reads/accounts.js';
import { MASTERCHAIN_SHARD } from '../reads/transactions.js';
import { str, uint } from '../sql.js';
import { TRANSACTION_COLUMNS, type TransactionColumns } from '../transaction-facts.js';
import { dropHotMeta, type HotMeta, writeHotMeta } from './gate.js';
import { type HotTier, hotKeys, keepsTransactions } from './layout.js';
import { execAll, writeHotStates } from './states.js';
import { type HotMessageSide, writeHotTransactions } from './transactions.js';

/** Accounts per page read from ClickHouse (in account order, the table's key). */
const PAGE = 20_000;

export type RebuildProgress = { accounts: number; lastAccount: string; transactions: number };

/**
 * Fills the tier from ClickHouse while the writer goes on: the tier is marked unusable, every stored
 * state of `account_states_latest` is added (the versions the writer adds meanwhile sort in by lt),
 * then it is marked complete from the rebuild's start: a write that failed since then leaves it unusable
 * (gate.ts), one that succeeded is in it. Nothing is deleted: what the tier held is a real state too.
 */
export async function rebuildHotTier(store: Store, tier: HotTier, onProgress: (p: RebuildProgress) => void = () => {}): Promise<HotMeta> {
  const startedMs = Date.now();
  await dropHotMeta(tier);
  const watermark = await readWatermark(store);
  let after = '';
  let accounts = 0;
  for (;;) {
    const rows = await store.query<{ record: string; code_hash: string; mc_block_seqno: number }>(
      `SELECT record, code_hash, mc_block_seqno FROM ${store.database}.account_states_latest WHERE account > ${str(after)} AND account IN (SELECT DISTINCT account FROM ${store.database}.account_states_latest WHERE account > ${str(after)} ORDER BY account LIMIT ${PAGE}) ORDER BY account`,
    );
    if (rows.length === 0) break;
    // The columns are what ClickHouse's reads filter and answer by: a record written without them (the
    // bench's token accounts) gets them, so the tier answers as those reads do.
    const states = rows.map((r) => {
      const s = JSON.parse(r.record) as AccountStateRecord;
      s.code_hash ??= r.code_hash === '' ? null : r.code_hash;
      s.mc_block_seqno ??= Number(r.mc_block_seqno);
      return s;
    });
    await writeHotStates(tier, states);
    after = states[states.length - 1].account;
    accounts += new Set(states.map((s) => s.account)).size;
    onProgress({ accounts, lastAccount: after, transactions: 0 });
  }
  const txSince = keepsTransactions(tier) ? await rebuildTransactions(store, tier, accounts, onProgress) : undefined;
  const db = store.database;
  const tokenTables = ['jetton_masters', 'jetton_wallets', 'nft_collections', 'nft_items'].map((t) => `SELECT address, mc_block_seqno FROM ${db}.${t}_history`);
  await fillFirstSeqnos(store, tier, hotKeys(tier.prefix).tokens, `SELECT address, min(mc_block_seqno) AS mc FROM (${tokenTables.join(' UNION ALL ')}) GROUP BY address`);
  await fillFirstSeqnos(store, tier, hotKeys(tier.prefix).dnsWallets, `SELECT dns_wallet AS address, min(mc_block_seqno) AS mc FROM ${db}.dns_entries_by_wallet GROUP BY dns_wallet`);
  return writeHotMeta(tier, startedMs, watermark?.mc_seqno ?? 0, txSince);
}

/** Accounts per page of the transaction slice (their transactions, summaries and trace ids: ~10 per account). */
const TX_PAGE_ACCOUNTS = 2_000;

/**
 * The transactions of the masterchain blocks of the last `txWindowSeconds`, with their accounts' state
 * summaries and their trace ids, account by account; when that is the whole index every account's list
 * is marked complete from its first. Resolves with the meta's `txSince` (0: the whole index).
 */
async function rebuildTransactions(store: Store, tier: HotTier, accounts: number, onProgress: (p: RebuildProgress) => void): Promise<number> {
  const db = store.database;
  const since = Math.floor(Date.now() / 1000) - (tier.txWindowSeconds ?? 0);
  const recent = `gen_utime >= ${uint(Math.max(0, since))}`;
  const [bounds] = await store.query<{ first: number; floor: number; recent: string }>(
    `SELECT min(seqno) AS first, minIf(seqno, ${recent}) AS floor, countIf(${recent}) AS recent FROM ${db}.blocks WHERE workchain = -1 AND shard = ${uint(MASTERCHAIN_SHARD)}`,
  );
  if (!bounds || Number(bounds.recent) === 0) return since;
  const floor = uint(Number(bounds.floor));
  const whole = Number(bounds.floor) <= Number(bounds.first);
  let after = '';
  let transactions = 0;
  for (;;) {
    const range = `account > ${str(after)} AND account IN (SELECT DISTINCT account FROM ${db}.transactions WHERE account > ${str(after)} AND mc_block_seqno >= ${floor} ORDER BY account LIMIT ${TX_PAGE_ACCOUNTS})`;
    const txs = await store.query<TransactionColumns & { lt: string }>(
      `SELECT lt, ${TRANSACTION_COLUMNS} FROM ${db}.transactions WHERE ${range} AND mc_block_seqno >= ${floor} ORDER BY account, lt LIMIT 1 BY account, lt`,
    );
    if (txs.length === 0) break;
    const last = txs[txs.length - 1].account;
    const txHashes = new Map(txs.map((t) => [`${t.account} ${t.lt}`, t.hash]));
    const held = `account > ${str(after)} AND account <= ${str(last)} AND mc_block_seqno >= ${floor}`;
    const [messages, summaries, traces] = await Promise.all([
      store.query<HotMessageSide>(`SELECT hash, direction, tx_hash, hash_norm, if(record != '', 'r', toString(reads_extra_flags)) AS derived FROM ${db}.messages WHERE tx_hash IN (SELECT hash FROM ${db}.transactions WHERE ${held}) LIMIT 1 BY hash, direction, tx_hash`),
      store.query<SummaryColumns>(`SELECT ${SUMMARY_COLUMNS} FROM ${db}.account_state_summaries WHERE ${held} LIMIT 1 BY account, last_trans_lt`),
      store.query<{ tx_hash: string; trace_id: string }>(
        `SELECT tx_hash, any(trace_id) AS trace_id FROM ${db}.transaction_traces WHERE tx_hash IN (SELECT hash FROM ${db}.transactions WHERE ${held}) GROUP BY tx_hash`,
      ),
    ]);
    await writeHotTransactions(tier, {
      transactions: txs,
      messages,
      summaries: summaries.flatMap((r) => {
        const tx = txHashes.get(`${r.account} ${r.last_trans_lt}`);
        return tx === undefined ? [] : [{ ...summaryFromColumns(r), tx_hash: tx }];
      }),
      traces: traces.map((t) => ({ trace_id: t.trace_id, tx_hashes: [t.tx_hash] })),
      fromFirst: whole ? [...new Set(txs.map((t) => t.account))] : [],
    });
    after = last;
    transactions += txs.length;
    onProgress({ accounts, lastAccount: after, transactions });
  }
  return whole ? 0 : since;
}

/** A claim on a rebuild lasts this long after its last page: one of a killed process runs out soon. */
const REBUILD_CLAIM_MS = 60_000;

/**
 * Rebuilds the tier unless another process claimed the rebuild (a Redis key renewed page by page, so
 * one of several writers does it, and the claim of a killed one runs out within a minute). Resolves with the meta, or null
 * when another had the claim.
 */
export async function rebuildHotTierOnce(store: Store, tier: HotTier, onProgress?: (p: RebuildProgress) => void): Promise<HotMeta | null> {
  const claim = `${tier.prefix}rebuilding`;
  if ((await tier.redis.set(claim, String(process.pid), 'PX', REBUILD_CLAIM_MS, 'NX')) !== 'OK') return null;
  try {
    return await rebuildHotTier(store, tier, (p) => {
      void tier.redis.pexpire(claim, REBUILD_CLAIM_MS).catch(() => {});
      onProgress?.(p);
    });
  } finally {
    await tier.redis.del(claim).catch(() => {});
  }
}

/** A `tokens`-like sorted set from a query of (address, mc), at the lowest seqno (`LT`: the writer's own additions meanwhile stay if lower). */
async function fillFirstSeqnos(store: Store, tier: HotTier, key: string, sql: string): Promise<void> {
  const rows = await store.query<{ address: string; mc: number }>(sql);
  for (let i = 0; i < rows.length; i += PAGE) {
    const pipeline = tier.redis.pipeline();
    for (const r of rows.slice(i, i + PAGE)) pipeline.zadd(key, 'LT', Number(r.mc), r.address);
    await execAll(pipeline);
  }
}
