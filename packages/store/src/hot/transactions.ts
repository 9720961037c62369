import type { AccountStateRecord, MessageRow } from '@tonstream/records';
import type { AccountStateSummary } from '../reads/accounts.js';
import type { RecordBatch, Row } from '../rows.js';
import type { TableName } from '../schema.js';
import type { Page } from '../reads/scope.js';
import { storedMessage, type TransactionColumns } from '../transaction-facts.js';
import { HOT_ACCOUNT_TXS, type HotTier, hotKeys, keepsTransactions } from './layout.js';
import { execAll, writeHotStates } from './states.js';

/**
 * The transaction slice of the tier: each transaction's stored columns (what ClickHouse's reads derive
 * the record from), its trace id, each account's recent transactions and state summaries, each
 * masterchain block's transactions. Every key expires `txWindowSeconds` after its last write. What a
 * read cannot answer whole (an expired or trimmed key, a page beyond what the tier holds) is read from
 * ClickHouse: a read never answers from part of the facts.
 *
 * Scores are lts: doubles, exact below 2^53 (mainnet lts are ~2^46).
 */

/** A transaction as the writer stores it: the columns a reader derives its record from (its hash is the key). */
export type HotTransaction = TransactionColumns & { lt: string };

/** A state summary (a transaction's `account_state_before/after`) with the hash of the transaction it is the state after. */
export type HotSummary = AccountStateSummary & { tx_hash: string };

/**
 * A side of a message (a `messages` row's key), the TEP-467 hash of an external-in message, and how
 * its record is had: derived from its transaction's BoC with the fee bits read as extra_flags or not
 * (`0`/`1`, the row's `reads_extra_flags`), or `r`: the row keeps its record text (not in the tier).
 */
export type HotMessageSide = { hash: string; direction: 'in' | 'out'; tx_hash: string; hash_norm: string; derived: '0' | '1' | 'r' };

/** A trace's transactions, for their `trace_id`. */
export type HotTrace = { trace_id: string; tx_hashes: readonly string[] };

/** Items of each kind per pipeline. */
const PIPELINE_ITEMS = 2_000;

/** The member that marks an account's transactions as complete from its first one (a rebuild over the whole history). */
const FROM_FIRST = '^';

/** The summary of a state as `account_state_summaries` (migration 15) gives it from the state's record. */
export function stateSummary(s: AccountStateRecord): HotSummary {
  return {
    account: s.account,
    account_state_hash: s.account_state_hash,
    balance: s.balance,
    extra_currencies: s.extra_currencies === undefined ? {} : s.extra_currencies,
    status: s.status,
    code_hash: s.code_hash || null,
    data_hash: s.data_hash || null,
    frozen_hash: s.frozen_hash || null,
    tx_hash: s.last_trans_hash,
  };
}

/**
 * Adds transactions, state summaries and trace ids to the tier in one pipeline; written again they
 * change nothing. `fromFirst`: the accounts whose every transaction is among those given (a rebuild
 * over the whole history): their lists are marked complete. Throws when Redis did not take every command.
 */
export async function writeHotTransactions(
  tier: HotTier,
  input: { transactions: readonly HotTransaction[]; messages: readonly HotMessageSide[]; summaries: readonly HotSummary[]; traces: readonly HotTrace[]; fromFirst?: readonly string[] },
): Promise<void> {
  if (!keepsTransactions(tier)) return;
  const ttl = tier.txWindowSeconds as number;
  const { transactions, messages, summaries, traces, fromFirst = [] } = input;
  const longest = Math.max(transactions.length, messages.length, summaries.length, traces.length, fromFirst.length);
  if (longest > PIPELINE_ITEMS) {
    // Pipelines Redis answers well within the command timeout (a rebuild's page is tens of thousands).
    for (let i = 0; i < longest; i += PIPELINE_ITEMS) {
      const part = <T>(list: readonly T[]) => list.slice(i, i + PIPELINE_ITEMS);
      await writeHotTransactions(tier, { transactions: part(transactions), messages: part(messages), summaries: part(summaries), traces: part(traces), fromFirst: part(fromFirst) });
    }
    return;
  }
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  const touched = new Set<string>();
  for (const t of transactions) {
    const { hash, ...columns } = t;
    const doc = keys.tx(hash);
    pipeline.hset(doc, 'c', JSON.stringify(columns));
    pipeline.expire(doc, ttl);
    pipeline.zadd(keys.accountTxs(t.account), t.lt, `${t.mc_block_seqno}:${hash}`);
    touched.add(t.account);
    const block = keys.mcTxs(Number(t.mc_block_seqno));
    pipeline.zadd(block, t.lt, `${t.account} ${hash}`);
    pipeline.expire(block, ttl);
  }
  for (const m of messages) {
    // `<direction> <tx hash> <derived>`, and under a normalized hash the message's own hash.
    const side = `${m.direction} ${m.tx_hash} ${m.derived}`;
    // A sorted set of score 0 (not a set): Redis keeps a small one as a listpack, a set of strings as a hash table (312 bytes for one member).
    pipeline.zadd(keys.message(m.hash), 0, side);
    pipeline.expire(keys.message(m.hash), ttl);
    if (m.hash_norm && m.hash_norm !== m.hash) {
      pipeline.zadd(keys.message(m.hash_norm), 0, `${side} ${m.hash}`);
      pipeline.expire(keys.message(m.hash_norm), ttl);
    }
  }
  for (const account of fromFirst) pipeline.zadd(keys.accountTxs(account), -1, FROM_FIRST);
  for (const { tx_hash: hash, account: _account, ...summary } of summaries) {
    // With the transaction it follows: kept as long as the transaction is.
    pipeline.hset(keys.tx(hash), 's', JSON.stringify(summary));
    pipeline.expire(keys.tx(hash), ttl);
  }
  for (const account of touched) {
    const key = keys.accountTxs(account);
    // The oldest go first (FROM_FIRST, at -1, with the first of them): the list stays whole from its oldest member on.
    pipeline.zremrangebyrank(key, 0, -(HOT_ACCOUNT_TXS + 1));
    pipeline.expire(key, ttl);
  }
  for (const trace of traces) {
    for (const hash of trace.tx_hashes) {
      pipeline.hset(keys.tx(hash), 't', trace.trace_id);
      pipeline.expire(keys.tx(hash), ttl);
    }
  }
  await execAll(pipeline);
}

/** What a batch adds to the slice: its transactions as `transactions` rows hold them (`rows`, the batch's), its states' summaries, its traces. */
export function hotTransactionsOfBatch(batch: RecordBatch, rows: Record<TableName, Row[]>): Parameters<typeof writeHotTransactions>[1] {
  return {
    transactions: rows.transactions.map((r) => ({
      record: String(r.record), boc: String(r.boc), account: String(r.account), workchain: Number(r.workchain), shard: String(r.shard),
      block_seqno: Number(r.block_seqno), mc_block_seqno: Number(r.mc_block_seqno), global_version: Number(r.global_version), hash: String(r.hash), lt: String(r.lt),
    })),
    messages: rows.messages.map((r) => ({ hash: String(r.hash), direction: r.direction === 'in' ? 'in' : 'out', tx_hash: String(r.tx_hash), hash_norm: String(r.hash_norm), derived: r.record !== '' ? 'r' : Number(r.reads_extra_flags) === 1 ? '1' : '0' })),
    summaries: batch.accountStates.filter((s) => s.record.last_trans_hash !== '').map((s) => stateSummary(s.record)),
    traces: batch.traces.map(({ record: t }) => ({ trace_id: t.trace_id, tx_hashes: t.nodes.map((n) => n.tx_hash) })),
  };
}

/**
 * A writer's batch into the tier: its states, then its transactions (when the tier keeps them). `rows`:
 * the batch's table rows (writeBatch's `beforeReceipts`).
 */
export async function writeHotBatch(tier: HotTier, batch: RecordBatch, rows: Record<TableName, Row[]>): Promise<void> {
  await writeHotStates(tier, batch.accountStates.map((s) => s.record));
  await writeHotTransactions(tier, hotTransactionsOfBatch(batch, rows));
}

/** The slice answers only when the gate found it built (`txSince` set from `meta`). */
export function hasTransactionSlice(tier: HotTier | undefined): tier is HotTier & { txSince: number } {
  return tier?.txSince !== undefined;
}

/** A transaction's columns as the tier keeps them: ClickHouse's and its lt. */
type HeldColumns = TransactionColumns & { lt: string };

/** The stored columns of these transactions, in the order asked; undefined when any is not in the tier. */
async function readColumns(tier: HotTier, hashes: readonly string[]): Promise<HeldColumns[] | undefined> {
  if (hashes.length === 0) return [];
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  for (const h of hashes) pipeline.hget(keys.tx(h), 'c');
  const replies = (await pipeline.exec()) ?? [];
  const found: HeldColumns[] = [];
  for (let i = 0; i < hashes.length; i++) {
    const [err, text] = replies[i] ?? [new Error('no reply')];
    if (err || typeof text !== 'string') return undefined;
    found.push({ ...(JSON.parse(text) as Omit<HeldColumns, 'hash'>), hash: hashes[i] });
  }
  return found;
}

const visible = (c: TransactionColumns, watermark: number) => Number(c.mc_block_seqno) <= watermark;

/**
 * Transactions by hash at or below the watermark, ordered as `readTransactions` orders them (lt, then
 * account ascending), one page; undefined when the tier does not hold every one of them.
 */
export async function readHotTransactionsByHash(tier: HotTier, hashes: readonly string[], watermark: number, page: Page): Promise<TransactionColumns[] | undefined> {
  const columns = await readColumns(tier, [...new Set(hashes)]);
  if (!columns) return undefined;
  const sign = page.sort === 'asc' ? 1 : -1;
  return columns
    .filter((c) => visible(c, watermark))
    .map((c) => ({ c, lt: BigInt(c.lt) }))
    .sort((a, b) => (a.lt === b.lt ? (a.c.account < b.c.account ? -1 : a.c.account > b.c.account ? 1 : 0) : a.lt < b.lt ? -sign : sign))
    .slice(page.offset, page.offset + page.limit)
    .map((x) => x.c);
}

/**
 * One page of an account's transactions at or below the watermark (order lt; descending pages may be
 * bounded by lt, as v2 getTransactions pages), or undefined when the tier cannot tell it whole: the
 * page reaches past the account's oldest kept transaction (and the list is not marked complete from
 * the first, nor the page's lower bound reached), or a transaction of it has expired.
 */
export async function readHotAccountPage(tier: HotTier, account: string, watermark: number, page: Page, lts: { startLt?: bigint; endLt?: bigint } = {}): Promise<TransactionColumns[] | undefined> {
  const end = page.offset + page.limit;
  if (end > HOT_ACCOUNT_TXS) return undefined;
  if (page.sort === 'asc' && (lts.startLt !== undefined || lts.endLt !== undefined)) return undefined;
  const key = hotKeys(tier.prefix).accountTxs(account);
  // Transactions above the watermark are the account's newest few: read a margin past the page for them.
  const want = end + ABOVE_WATERMARK_MARGIN;
  const read =
    page.sort === 'desc'
      ? await tier.redis.zrevrangebyscore(key, lts.endLt === undefined ? '+inf' : lts.endLt.toString(), '-inf', 'WITHSCORES', 'LIMIT', 0, want)
      : await tier.redis.zrange(key, '0', String(want - 1), 'WITHSCORES');
  const members: { member: string; lt: bigint }[] = [];
  for (let i = 0; i < read.length; i += 2) members.push({ member: read[i], lt: BigInt(read[i + 1]) });
  const whole = members.length < want;
  // Present only when the list is complete from the account's first transaction (the oldest member: last descending, first ascending).
  const complete = members.some((m) => m.member === FROM_FIRST);
  const held = members.filter((m) => m.member !== FROM_FIRST);
  // Descending, a member below the lower bound ends the page's range.
  const bounded = lts.startLt !== undefined && held.some((m) => m.lt < (lts.startLt as bigint));
  const under = held.filter((m) => (lts.startLt === undefined || m.lt >= lts.startLt) && Number(m.member.slice(0, m.member.indexOf(':'))) <= watermark);
  const told = under.length >= end ? page.sort === 'desc' || complete : (complete && whole) || bounded;
  if (!told) return undefined;
  return readColumns(tier, under.slice(page.offset, end).map((m) => m.member.slice(m.member.indexOf(':') + 1)));
}

const ABOVE_WATERMARK_MARGIN = 8;

/**
 * One page of the transactions a masterchain block commits (order lt, then account ascending), or
 * undefined when the tier does not hold the block's list. Members of equal lt sort by account in the
 * set; a descending page reads the lt range of its members again to order ties by account ascending.
 */
export async function readHotMcBlockPage(tier: HotTier, seqno: number, watermark: number, page: Page): Promise<TransactionColumns[] | undefined> {
  if (seqno > watermark) return undefined;
  const key = hotKeys(tier.prefix).mcTxs(seqno);
  let members: string[];
  if (page.sort === 'asc') {
    members = await tier.redis.zrange(key, String(page.offset), String(page.offset + page.limit - 1));
    if (members.length === 0 && (await tier.redis.exists(key)) === 0) return undefined;
  } else {
    const edge = await tier.redis.zrevrange(key, page.offset, page.offset + page.limit - 1, 'WITHSCORES');
    if (edge.length === 0) return (await tier.redis.exists(key)) === 0 ? undefined : [];
    const [high, low] = [edge[1], edge[edge.length - 1]];
    const [above, range] = await Promise.all([tier.redis.zcount(key, `(${high}`, '+inf'), tier.redis.zrangebyscore(key, low, high, 'WITHSCORES')]);
    const entries: { member: string; lt: bigint }[] = [];
    for (let i = 0; i < range.length; i += 2) entries.push({ member: range[i], lt: BigInt(range[i + 1]) });
    // Descending lt, ascending member (account first) within an lt.
    entries.sort((a, b) => (a.lt === b.lt ? (a.member < b.member ? -1 : 1) : a.lt > b.lt ? -1 : 1));
    members = entries.slice(page.offset - above, page.offset - above + page.limit).map((e) => e.member);
  }
  return readColumns(tier, members.map((m) => m.slice(m.indexOf(' ') + 1)));
}

/** Whether the tier holds the list of a masterchain block (then it is indexed); undefined when it cannot say. */
export async function hotMcBlockHeld(tier: HotTier, seqno: number): Promise<boolean | undefined> {
  return (await tier.redis.exists(hotKeys(tier.prefix).mcTxs(seqno))) === 1 ? true : undefined;
}

/**
 * One field of each transaction's record (`t` its trace id, `s` the summary of the state after it): a
 * string, null when the tier holds the transaction without it, undefined when it does not hold the
 * transaction (or Redis failed to say).
 */
async function readHeldField(tier: HotTier, hashes: readonly string[], field: 't' | 's'): Promise<(string | null | undefined)[]> {
  if (hashes.length === 0) return [];
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  // Whether the transaction is held, not its columns (~1 KB each): HEXISTS.
  for (const h of hashes) pipeline.hexists(keys.tx(h), 'c').hget(keys.tx(h), field);
  const replies = (await pipeline.exec()) ?? [];
  return hashes.map((_, i) => {
    const [heldErr, held] = replies[2 * i] ?? [new Error('no reply')];
    const [fieldErr, value] = replies[2 * i + 1] ?? [new Error('no reply')];
    if (heldErr || fieldErr || held !== 1) return undefined;
    return typeof value === 'string' ? value : null;
  });
}

/**
 * The trace id of each transaction the tier holds (`found`; a held transaction without one has no
 * stored trace); `unknown`: the transactions it does not hold.
 */
export async function readHotTraceIds(tier: HotTier, hashes: readonly string[]): Promise<{ found: Map<string, string>; unknown: string[] }> {
  const found = new Map<string, string>();
  const unknown: string[] = [];
  const traceIds = await readHeldField(tier, hashes, 't');
  hashes.forEach((h, i) => {
    const traceId = traceIds[i];
    if (traceId === undefined) unknown.push(h);
    else if (traceId !== null) found.set(h, traceId);
  });
  return { found, unknown };
}

/**
 * The state summaries readAccountStatesByHash asks for (account, state hash, the lt and hash of the
 * transaction the state follows): `found`; `unknown`: those the tier cannot tell. A held transaction
 * holds the summary of the state after it when ClickHouse has one (the account's last transaction in
 * its block): without it, or with another state hash, the state is not stored.
 */
export async function readHotSummaries(
  tier: HotTier,
  wanted: readonly SummaryWanted[],
): Promise<{ found: AccountStateSummary[]; unknown: SummaryWanted[] }> {
  const found: AccountStateSummary[] = [];
  const unknown: SummaryWanted[] = [];
  // lt 0: before the account's first transaction, no state.
  const asked = wanted.filter((w) => w.lt !== '0');
  const summaries = await readHeldField(tier, asked.map((w) => w.tx), 's');
  asked.forEach((w, i) => {
    const summary = summaries[i];
    if (summary === undefined) return void unknown.push(w);
    if (summary === null) return;
    const s = JSON.parse(summary) as Omit<AccountStateSummary, 'account'>;
    if (s.account_state_hash === w.hash) found.push({ ...s, account: w.account });
  });
  return { found, unknown };
}

/** A state asked for by readAccountStatesByHash: its account and hash, and the lt and hash of the transaction it follows. */
export type SummaryWanted = { account: string; hash: string; lt: string; tx: string };

/** A message of /messages (reads/messages.ts FoundMessage): its record, and its in and out transactions. */
export type HeldMessage = { message: MessageRow; inTxHash: string | null; outTxHash: string | null };

/**
 * Messages by hash (or an external-in message's normalized hash) at or below the watermark, one per
 * message hash, ordered as readMessages orders them by lt, one page; undefined when the tier cannot
 * tell every side of them (a hash it holds nothing of, an expired transaction, an internal message
 * whose sending transaction it does not hold).
 */
export async function readHotMessagesByHash(tier: HotTier, hashes: readonly string[], watermark: number, page: Page): Promise<HeldMessage[] | undefined> {
  const asked = [...new Set(hashes)];
  if (asked.length === 0) return [];
  const keys = hotKeys(tier.prefix);
  const pipeline = tier.redis.pipeline();
  for (const h of asked) pipeline.zrange(keys.message(h), '0', '-1');
  const replies = (await pipeline.exec()) ?? [];
  const sides: { hash: string; direction: 'in' | 'out'; tx: string; flags: string }[] = [];
  for (let i = 0; i < asked.length; i++) {
    const [err, members] = replies[i] ?? [new Error('no reply')];
    if (err || (members as string[]).length === 0) return undefined;
    for (const m of members as string[]) {
      const [direction, tx, flags, hash = asked[i]] = m.split(' ');
      sides.push({ hash, direction: direction === 'in' ? 'in' : 'out', tx, flags });
    }
  }
  const txHashes = [...new Set(sides.map((s) => s.tx))];
  const columns = await readColumns(tier, txHashes);
  if (!columns) return undefined;
  const txs = new Map(txHashes.map((h, i) => [h, columns[i]]));
  type Side = (typeof sides)[number];
  const byHash = new Map<string, { in?: Side; out?: Side }>();
  for (const side of sides) {
    const tx = txs.get(side.tx) as HeldColumns;
    if (!visible(tx, watermark)) continue;
    if (side.flags === 'r' || tx.boc === '') return undefined; // its record text is ClickHouse's
    byHash.set(side.hash, { ...byHash.get(side.hash), [side.direction]: side });
  }
  const found: HeldMessage[] = [];
  for (const group of byHash.values()) {
    // One side's record (the receiving one, as readMessages), derived alone from its transaction's BoC as
    // ClickHouse's read derives it (a transaction may carry hundreds): both sides hold the same message.
    const side = (group.in ?? group.out) as Side;
    const tx = txs.get(side.tx) as HeldColumns;
    const message = storedMessage({ record: '', hash: side.hash, direction: side.direction, tx_hash: side.tx, tx_lt: tx.lt, source: '', destination: '', reads_extra_flags: side.flags }, tx);
    // An internal message received at or below the watermark was sent at or below it too: unless the tier
    // holds every transaction of the index (txSince 0), its sending side may be one it does not hold. (A set
    // whose out side expired before the in side came, a delivery slower than the window, is not told apart.)
    if (group.in && !group.out && message.source !== null && tier.txSince !== 0) return undefined;
    found.push({ message, inTxHash: group.in?.tx ?? null, outTxHash: group.out?.tx ?? null });
  }
  // readMessages' order by lt: rows without created_lt (external-in) as SQL NULLs after the rest ascending; then hash.
  const sign = page.sort === 'asc' ? 1 : -1;
  const key = (f: HeldMessage) => ({ none: f.message.created_lt === null ? 1 : 0, lt: BigInt(f.message.created_lt ?? 0), hash: f.message.hash });
  found.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    if (x.none !== y.none) return (x.none - y.none) * sign;
    if (x.lt !== y.lt) return (x.lt < y.lt ? -1 : 1) * sign;
    return (x.hash < y.hash ? -1 : x.hash > y.hash ? 1 : 0) * sign;
  });
  return found.slice(page.offset, page.offset + page.limit);
}
