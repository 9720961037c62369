/**
 * Traces and actions for the bench:api dataset, made from its stored transactions (the chain of
 * api-bench-chain.ts does not link messages into realistic traces: a message waits in a FIFO of up to
 * 100,000 for its receiver), so the transactions are grouped instead:
 *
 * - Every basechain transaction, in (masterchain block, lt) order, either starts a trace of a size
 *   drawn from TRACE_SIZES (mean about 3.6; 1 to 30 transactions) or joins one of the traces still
 *   short of their size (OPEN_JOIN_SHARE of the time, and always once MAX_OPEN traces are open), so
 *   traces interleave and span several shard and masterchain blocks as on mainnet. Each masterchain
 *   transaction is a trace of its own without actions (tick-tock). The root is the first transaction;
 *   every other node's parent is one of the nodes before it (the latest most often: chains, with some
 *   fan-out); the root's in message is the external hash.
 * - Actions: one per trace by its size (1: call_contract, 2-3: ton_transfer, 4-6: jetton_transfer,
 *   7+: jetton_swap), plus a ton_transfer for the excess refund on traces of 6 or more. Each is a real
 *   action: the classifier's output for a recorded mainnet trace (test/fixtures/mainnet/traces) of
 *   that type, with its addresses mapped onto the trace's accounts (the i-th distinct address of the
 *   template -> the i-th distinct account of the trace) and ids, lts and times the trace's.
 *
 * Written with the store's writeBatch, so migration 8's lookup tables are filled by their views as the
 * tracer's output would fill them. Idempotent: `bench_traces` records the spec and the counts; a kept
 * dataset with matching counts is reused, otherwise the trace tables are emptied and filled again
 * (the transactions stay).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { classifyFixtureFile } from '@tonstream/actions';
import { emptyBatch, type RecordBatch, str, type Store, writeBatch } from '@tonstream/store';
import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { createRandom } from './api-bench-chain.js';
import { ROOT } from '../support/processes.js';

/** Bump when what is written changes: an older set of traces is then made again. */
const TRACES_VERSION = 1;
const SEED = 20_251_125;
/** Trace sizes (transactions) and their weights: most traces are a wallet's transfer of 1-3 transactions, a few are long protocol chains. */
const TRACE_SIZES: [size: number, weight: number][] = [[1, 20], [2, 30], [3, 15], [4, 12], [5, 8], [6, 5], [8, 4], [10, 3], [15, 2], [30, 1]];
const OPEN_JOIN_SHARE = 0.75;
const MAX_OPEN = 400;
/** Masterchain blocks read per query. */
const MC_BLOCKS_PER_READ = 250;
const TRACE_TABLES = ['traces', 'actions', 'traces_by_end_lt', 'traces_by_mc_seqno', 'traces_by_account', 'transaction_traces', 'actions_by_id', 'actions_by_trace_end_lt', 'action_accounts'];
const FIXTURE_TRACES = join(ROOT, 'test/fixtures/mainnet/traces');
const RAW_ADDRESS = /^-?\d+:[0-9A-F]{64}$/;
const TEMPLATE_TYPES = ['call_contract', 'ton_transfer', 'jetton_transfer', 'jetton_swap'] as const;
type TemplateType = (typeof TEMPLATE_TYPES)[number];

type TxRow = { hash: string; account: string; lt: string; now: number; mc_block_seqno: number; in_msg_hash: string; out_msg_count: number; aborted: number };
type OpenTrace = { size: number; nodes: TxRow[]; parents: (string | null)[] };

export type TraceCounts = { traces: number; actions: number };

/** The first action of each wanted type the classifier gives for the recorded mainnet traces. */
function actionTemplates(): Record<TemplateType, ActionRecord> {
  const found: Partial<Record<TemplateType, ActionRecord>> = {};
  for (const file of readdirSync(FIXTURE_TRACES).sort()) {
    if (file === 'expected.json' || !file.endsWith('.json')) continue;
    for (const a of classifyFixtureFile(join(FIXTURE_TRACES, file)).actions) {
      const type = a.type as TemplateType;
      if (TEMPLATE_TYPES.includes(type) && !found[type] && a.success) found[type] = a as unknown as ActionRecord;
    }
  }
  for (const t of TEMPLATE_TYPES) if (!found[t]) throw new Error(`no ${t} action among the recorded mainnet traces`);
  return found as Record<TemplateType, ActionRecord>;
}

/** Replaces every raw address in `value` by `map(address)`. */
function mapAddresses(value: unknown, map: (address: string) => string): unknown {
  if (typeof value === 'string') return RAW_ADDRESS.test(value) ? map(value) : value;
  if (Array.isArray(value)) return value.map((v) => mapAddresses(v, map));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapAddresses(v, map)]));
  return value;
}

async function count(store: Store, sql: string): Promise<number> {
  const [row] = await store.query<{ n: string }>(sql);
  return Number(row?.n ?? 0);
}

async function countTraces(store: Store): Promise<TraceCounts> {
  const db = store.database;
  const [traces, actions] = await Promise.all([count(store, `SELECT uniqExact(trace_id) AS n FROM ${db}.traces`), count(store, `SELECT uniqExact(trace_id, action_id) AS n FROM ${db}.actions`)]);
  return { traces, actions };
}

/**
 * Traces and actions over the dataset's transactions, unless the same ones are there already.
 * Returns their counts and the seconds spent (0 when kept).
 */
export async function ensureTraces(
  store: Store,
  mcSeqnos: { first: number; last: number },
  log: (line: string) => void,
  /** The writer of the database's schema (bench:storage's schema 17 side has its own). */
  write: (store: Store, batch: RecordBatch) => Promise<unknown> = writeBatch,
): Promise<TraceCounts & { seconds: number }> {
  const db = store.database;
  const spec = JSON.stringify({ version: TRACES_VERSION, seed: SEED, ...mcSeqnos });
  await store.command(`CREATE TABLE IF NOT EXISTS ${db}.bench_traces (spec String, counts String, loaded_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY loaded_at`);
  const [done] = await store.query<{ spec: string; counts: string }>(`SELECT spec, counts FROM ${db}.bench_traces ORDER BY loaded_at DESC LIMIT 1`);
  const before = await countTraces(store);
  if (done && done.spec === spec && done.counts === JSON.stringify(before)) {
    log(`dataset ${db}: traces kept (${before.traces} traces, ${before.actions} actions)`);
    return { ...before, seconds: 0 };
  }
  for (const table of TRACE_TABLES) await store.command(`TRUNCATE TABLE ${db}.${table}`);

  const started = performance.now();
  const templates = actionTemplates();
  const rng = createRandom(SEED);
  const totalWeight = TRACE_SIZES.reduce((n, [, w]) => n + w, 0);
  const drawSize = () => {
    let u = rng.float() * totalWeight;
    for (const [size, weight] of TRACE_SIZES) if ((u -= weight) < 0) return size;
    return 1;
  };
  let open: OpenTrace[] = [];
  let batch = emptyBatch();
  const finish = (t: OpenTrace) => {
    const { trace, actions } = traceRecords(t, templates, rng);
    batch.traces.push({ record: trace, json: JSON.stringify(trace) });
    for (const a of actions) batch.actions.push({ record: a, json: JSON.stringify(a) });
  };
  const add = (tx: TxRow) => {
    if (tx.account.startsWith('-1:')) return finish({ size: 1, nodes: [tx], parents: [null] });
    if (open.length > 0 && (open.length >= MAX_OPEN || rng.float() < OPEN_JOIN_SHARE)) {
      const t = open[rng.int(open.length)];
      // Mostly the latest node sends the next message; sometimes an earlier one fans out.
      const parent = rng.float() < 0.7 ? t.nodes[t.nodes.length - 1] : t.nodes[rng.int(t.nodes.length)];
      t.nodes.push(tx);
      t.parents.push(parent.hash);
      if (t.nodes.length >= t.size) {
        finish(t);
        open = open.filter((o) => o !== t);
      }
      return;
    }
    const t: OpenTrace = { size: drawSize(), nodes: [tx], parents: [null] };
    if (t.size === 1) finish(t);
    else open.push(t);
  };

  for (let from = mcSeqnos.first; from <= mcSeqnos.last; from += MC_BLOCKS_PER_READ) {
    const to = Math.min(mcSeqnos.last, from + MC_BLOCKS_PER_READ - 1);
    const rows = await store.query<TxRow>(
      `SELECT hash, account, lt, now, mc_block_seqno, in_msg_hash, out_msg_count, aborted FROM ${db}.transactions
       WHERE mc_block_seqno BETWEEN ${from} AND ${to} ORDER BY mc_block_seqno, lt, account LIMIT 1 BY hash`,
    );
    for (const r of rows) add({ ...r, now: Number(r.now), mc_block_seqno: Number(r.mc_block_seqno), out_msg_count: Number(r.out_msg_count), aborted: Number(r.aborted) });
    // The dataset ends here: what is still open ends short of its size.
    if (to === mcSeqnos.last) for (const t of open.splice(0)) finish(t);
    await write(store, batch);
    log(`dataset ${db}: traces up to masterchain block ${to}: ${batch.traces.length} traces, ${batch.actions.length} actions written`);
    batch = emptyBatch();
  }
  const counts = await countTraces(store);
  await store.command(`INSERT INTO ${db}.bench_traces (spec, counts) VALUES (${str(spec)}, ${str(JSON.stringify(counts))})`);
  const seconds = (performance.now() - started) / 1000;
  log(`dataset ${db}: traces made in ${seconds.toFixed(0)} s: ${JSON.stringify(counts)}`);
  return { ...counts, seconds };
}

/** The trace record of a group and its actions. */
function traceRecords(t: OpenTrace, templates: Record<TemplateType, ActionRecord>, rng: ReturnType<typeof createRandom>): { trace: TraceRecord; actions: ActionRecord[] } {
  const nodes = t.nodes;
  const root = nodes[0];
  const last = nodes.reduce((a, b) => (BigInt(b.lt) > BigInt(a.lt) ? b : a));
  const children = new Map<string, number>();
  for (const p of t.parents) if (p !== null) children.set(p, (children.get(p) ?? 0) + 1);
  const trace: TraceRecord = {
    trace_id: root.hash,
    external_hash: root.in_msg_hash || null,
    external_hash_norm: null,
    mc_seqno_start: Math.min(...nodes.map((n) => n.mc_block_seqno)),
    mc_seqno_end: Math.max(...nodes.map((n) => n.mc_block_seqno)),
    start_lt: root.lt,
    start_utime: root.now,
    end_lt: last.lt,
    end_utime: last.now,
    trace_info: { trace_state: 'complete', messages: nodes.length, transactions: nodes.length, pending_messages: 0, classification_state: 'ok' },
    is_incomplete: false,
    nodes: nodes.map((n, i) => ({
      tx_hash: n.hash,
      account: n.account,
      lt: n.lt,
      in_msg_hash: n.in_msg_hash || null,
      parent: t.parents[i],
      out_msgs: Math.max(n.out_msg_count, children.get(n.hash) ?? 0),
    })),
  };
  if (root.account.startsWith('-1:')) return { trace, actions: [] };
  const type: TemplateType = nodes.length === 1 ? 'call_contract' : nodes.length <= 3 ? 'ton_transfer' : nodes.length <= 6 ? 'jetton_transfer' : 'jetton_swap';
  const actions = [action(trace, nodes, templates[type], rng)];
  if (nodes.length >= 6) actions.push(action(trace, nodes.slice(-2), templates.ton_transfer, rng));
  return { trace, actions };
}

/** `template` as an action of `trace` over `nodes`: its addresses mapped onto the nodes' accounts. */
function action(trace: TraceRecord, nodes: TxRow[], template: ActionRecord, rng: ReturnType<typeof createRandom>): ActionRecord {
  const accounts = [...new Set(nodes.map((n) => n.account))];
  const mapped = new Map<string, string>();
  const map = (address: string) => {
    let to = mapped.get(address);
    if (to === undefined) mapped.set(address, (to = accounts[mapped.size % accounts.length]));
    return to;
  };
  const details = mapAddresses(template.details, map);
  const first = nodes[0];
  const last = nodes[nodes.length - 1];
  return {
    ...template,
    trace_id: trace.trace_id,
    action_id: rng.hash(),
    start_lt: first.lt,
    end_lt: last.lt,
    start_utime: first.now,
    end_utime: last.now,
    trace_end_lt: trace.end_lt,
    trace_end_utime: trace.end_utime,
    trace_mc_seqno_end: trace.mc_seqno_end,
    transactions: nodes.map((n) => n.hash),
    accounts: [...new Set([...(template.accounts ?? []).map(map), ...accounts])],
    success: nodes.every((n) => n.aborted === 0),
    details,
    parent_action_id: null,
    ancestor_type: [],
    trace_external_hash: trace.external_hash,
  };
}
