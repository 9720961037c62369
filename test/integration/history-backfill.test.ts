import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store, TRACE_COLUMNS, traceFromRow, type TraceRow } from '@tonstream/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAskingAgainOn504 } from '../support/api-get.js';
import { ledgerTraces, readLedger } from '../support/ledger.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

/**
 * History lanes on the local network (issue 29), on real processes. The live index starts at seqno S
 * of a chain with traffic; `npm run backfill` fills 1..S-1 in two lanes beside it, and every process of
 * the lower lane is killed with SIGKILL mid-range. The chain's ledger is the independent source: each
 * seqno's transactions, and the traces they form through message hashes. While the backfill runs, the
 * API is sampled: it must never serve a seqno below the history floor, nor a half-written one.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Where the live index starts; the backfill fills 1..S-1 in lanes 1..20 and 21..39. */
const S = 40;
const STOP_AT = S + 30;
const LOWER_LANE = { from: 1, to: 20 };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-history-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_history_${run}`;
const prefix = `history${run}.`;
const procs: Record<string, ServiceProcess> = {};
let env: Record<string, string> = {};
let store: Store;
let apiPort = 0;

function assertAlive() {
  for (const p of Object.values(procs)) if (p.name !== 'backfill' && p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number, everyMs?: number) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

async function api<T>(path: string): Promise<T> {
  const res = await getAskingAgainOn504(`http://127.0.0.1:${apiPort}/api/v3${path}`);
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
const firstAndLast = () => api<{ first: { seqno: number }; last: { seqno: number } }>('/masterchainInfo');
/** The transactions the API serves of masterchain seqno k; null when it answers that the block is not indexed (404). */
async function txsOfSeqno(k: number): Promise<string[] | null> {
  const res = await getAskingAgainOn504(`http://127.0.0.1:${apiPort}/api/v3/transactions?mc_seqno=${k}&limit=1000`);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`transactions of ${k}: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { transactions: { hash: string }[] }).transactions.map((t) => t.hash);
}

/** The ledger's transaction hashes of each masterchain seqno. */
function ledgerBySeqno(): Map<number, string[]> {
  return new Map(readLedger(ledgerPath).map((r) => [r.mc_seqno, r.blocks.flatMap((b) => b.transactions.map((t) => t.hash))]));
}

beforeAll(async () => {
  env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    REDIS_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: prefix,
    FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
    LOG_LEVEL: 'info',
  };
  store = createStore({ url: CLICKHOUSE_URL, database });
  await start(
    'localnet',
    { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '300', LOCALNET_TRAFFIC_RATE: '3', LOCALNET_SEED: `history-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(STOP_AT) },
    ['--reset'],
  );
  await procs.localnet.waitFor(/localnet serving/);
  apiPort = await freePort();
  await start('writer');
  await procs.writer.waitFor(/writer started/);
  await start('api', { API_PORT: String(apiPort), LOG_LEVEL: 'warn' });
  await start('tracer');
  await start('decoder');
  await until(`the chain at seqno ${S}`, async () => (readLedger(ledgerPath).length >= S ? true : undefined), 60_000, 100);
  await start('fetcher', { FETCHER_START_SEQNO: String(S) });
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}, 60_000);

describe('history lanes beside the live index', () => {
  it('fills 1..S-1 in two lanes through a kill -9 of one: every transaction once, traces across the lane boundary whole, nothing served below the floor', async () => {
    await until('the live index past its start', async () => ((await firstAndLast().catch(() => undefined))?.last.seqno ?? 0) >= S + 3 || undefined, 90_000, 300);
    expect((await firstAndLast()).first.seqno).toBe(S);

    await start('backfill', { KAFKA_SESSION_TIMEOUT_MS: '10000' }, ['--from', '1', '--to', String(S - 1), '--lanes', '2', '--log-dir', join(dir, 'backfill')]);
    const backfill = procs.backfill;

    // The API while the lanes write: a seqno below masterchainInfo's first (read after it) is never
    // served, and a seqno served is whole (the ledger's transactions, each once).
    const ledger = ledgerBySeqno();
    const violations: string[] = [];
    let samples = 0;
    let servedBelowStart = 0;
    const sampling = (async () => {
      for (let k = 1; backfill.child.exitCode === null; k = (k % (S - 1)) + 1) {
        // Paced: suites beside this one share ClickHouse (a tight loop made their 3 s queries time out).
        await new Promise((r) => setTimeout(r, 150));
        const served = await txsOfSeqno(k).catch(() => undefined);
        const info = await firstAndLast().catch(() => undefined);
        if (served === undefined || info === undefined) continue;
        samples++;
        if (served === null) continue;
        servedBelowStart++;
        if (k < info.first.seqno) violations.push(`seqno ${k} served while the floor was ${info.first.seqno}`);
        const expected = ledger.get(k) ?? [];
        if (JSON.stringify([...served].sort()) !== JSON.stringify([...expected].sort())) violations.push(`seqno ${k}: served ${served.length} transactions, the ledger has ${expected.length}`);
      }
    })();

    // Every process of the lower lane killed with SIGKILL once it has stored part of its range.
    const stored = async () =>
      Number(
        (await store.query<{ n: string }>(`SELECT uniqExact(mc_seqno) AS n FROM ${database}.index_receipts WHERE kind = 'block' AND mc_blocks > 0 AND mc_seqno BETWEEN ${LOWER_LANE.from} AND ${LOWER_LANE.to}`))[0]?.n ?? 0,
      );
    const atKill = await until('the lower lane mid-range', async () => {
      if (backfill.child.exitCode !== null) throw new Error(`backfill exited with code ${backfill.child.exitCode}:\n${backfill.output().slice(-3000)}`);
      const n = await stored().catch(() => 0);
      return n >= 1 ? n : undefined;
    }, 120_000, 100);
    expect(atKill).toBeLessThan(LOWER_LANE.to - LOWER_LANE.from + 1);
    const pidFile = join(dir, 'backfill', `${prefix}history-${LOWER_LANE.from}-${LOWER_LANE.to}.`, 'pids');
    expect(existsSync(pidFile)).toBe(true);
    // The lane's processes still running (the fetcher may have published the whole range already).
    const killed: string[] = [];
    for (const [service, pid] of readFileSync(pidFile, 'utf8').split('\n').map((l) => l.split(' '))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
        killed.push(service);
      } catch {
        // exited meanwhile
      }
    }
    expect(killed).toContain('writer');

    const code = await backfill.exited();
    await sampling;
    const summaryLine = backfill.output().split('\n').filter((l) => l.startsWith('{"from"')).at(-1);
    expect(code, backfill.output().slice(-3000)).toBe(0);
    const summary = JSON.parse(summaryLine!) as { floor: number; holes: number[]; transactions: number; tx_per_s: number; lane_results: { from: number; restarts: Record<string, number> }[] };
    expect(summary).toMatchObject({ floor: 1, holes: [] });
    const lower = summary.lane_results.find((l) => l.from === LOWER_LANE.from)!;
    expect(Object.values(lower.restarts).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(killed.length);
    expect(violations).toEqual([]);
    // The floor held seqnos back at first, and served them once their lane was complete.
    expect(samples - servedBelowStart).toBeGreaterThan(0);
    expect(servedBelowStart).toBeGreaterThan(0);
    console.log(`history-backfill: ${summary.transactions} transactions in ${summary.lane_results.length} lanes at ${summary.tx_per_s} tx/s; lower lane's ${killed.join(', ')} killed at ${atKill} of 20 seqnos stored; ${samples} API samples below S (${samples - servedBelowStart} held back by the floor, ${servedBelowStart} served)`);

    // Afterwards: the floor is the chain's first block, and every seqno 1..S is the ledger's, each transaction once.
    expect((await firstAndLast()).first.seqno).toBe(1);
    for (let k = 1; k <= S; k++) {
      const served = (await txsOfSeqno(k)) ?? [];
      expect(served.length, `seqno ${k}`).toBe(new Set(served).size);
      expect([...served].sort(), `seqno ${k}`).toEqual([...(ledger.get(k) ?? [])].sort());
    }

    // Traces: every ledger trace rooted and ended in 1..S-1 stored once, complete, with the ledger's
    // transactions; those across the lanes' boundary among them, each transaction in that trace only.
    const expected = new Map([...ledgerTraces(readLedger(ledgerPath))].filter(([, t]) => t.endSeqno < S));
    const crossing = [...expected.values()].filter((t) => t.rootSeqno <= LOWER_LANE.to && t.endSeqno > LOWER_LANE.to);
    expect(crossing.length, 'traces across the lane boundary').toBeGreaterThan(0);
    const ids = [...expected.keys()];
    const rows = await store.query<TraceRow>(`SELECT ${TRACE_COLUMNS} FROM ${database}.traces FINAL WHERE trace_id IN (${ids.map((id) => `'${id}'`).join(',')})`);
    expect(rows.length).toBe(new Set(rows.map((r) => r.trace_id)).size);
    const wrong: string[] = [];
    for (const row of rows) {
      const t = traceFromRow(row);
      const e = expected.get(t.trace_id)!;
      if (JSON.stringify(t.nodes.map((n) => n.tx_hash).sort()) !== JSON.stringify([...e.txs].sort()) || t.is_incomplete || t.trace_info.trace_state !== 'complete') {
        wrong.push(`${t.trace_id}: ${t.nodes.length} of ${e.txs.size} transactions, ${t.trace_info.trace_state}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(rows.length).toBe(expected.size);
    const crossingTxs = crossing.flatMap((t) => [...t.txs]);
    const owners = await store.query<{ tx_hash: string; traces: string }>(
      `SELECT tx_hash, uniqExact(trace_id) AS traces FROM ${database}.transaction_traces WHERE tx_hash IN (${crossingTxs.map((h) => `'${h}'`).join(',')}) GROUP BY tx_hash`,
    );
    expect(owners.length).toBe(crossingTxs.length);
    expect(owners.filter((o) => Number(o.traces) !== 1)).toEqual([]);
    const one = crossing[0];
    const byApi = await api<{ traces: { trace_id: string; trace_info: { transactions: number; trace_state: string } }[] }>(`/traces?trace_id=${encodeURIComponent(one.id)}`);
    expect(byApi.traces).toMatchObject([{ trace_id: one.id, trace_info: { transactions: one.txs.size, trace_state: 'complete' } }]);
  }, 400_000);

  it('a hole the gap check finds is fetched again: the same command, run again, skips the complete lane and refills the other', async () => {
    // A block the lower lane stored, lost from the index's books: its receipts and the range's record gone.
    const hole = 7;
    const mutate = async (sql: string) => {
      await store.command(sql);
      await until('the mutation applied', async () => {
        const rows = await store.query<{ n: string }>(`SELECT count() AS n FROM system.mutations WHERE database = '${database}' AND is_done = 0`);
        return Number(rows[0].n) === 0 ? true : undefined;
      }, 60_000, 200);
    };
    await mutate(`ALTER TABLE ${database}.index_receipts DELETE WHERE mc_seqno = ${hole}`);
    await mutate(`ALTER TABLE ${database}.history_ranges DELETE WHERE from_seqno = ${LOWER_LANE.from}`);

    await start('backfill', { KAFKA_SESSION_TIMEOUT_MS: '10000' }, ['--from', '1', '--to', String(S - 1), '--lanes', '2', '--log-dir', join(dir, 'backfill')]);
    const again = procs.backfill;
    const code = await again.exited();
    expect(code, again.output().slice(-3000)).toBe(0);
    expect(again.output()).toMatch(new RegExp(`gap check found holes.*"holes":\\[${hole}\\]`));
    const summary = JSON.parse(again.output().split('\n').filter((l) => l.startsWith('{"from"')).at(-1)!) as { holes: number[]; floor: number; lane_results: { from: number; skipped: boolean }[] };
    expect(summary).toMatchObject({ holes: [], floor: 1 });
    expect(summary.lane_results.map((l) => [l.from, l.skipped])).toEqual([[LOWER_LANE.from, false], [LOWER_LANE.to + 1, true]]);
    const refetchLog = join(dir, 'backfill', `${prefix}history-${LOWER_LANE.from}-${LOWER_LANE.to}.`, 'refetch.log');
    expect(readFileSync(refetchLog, 'utf8')).toMatch(new RegExp(`"from":${hole},"to":${hole}`));
    // The refetched seqno is whole again, as the ledger has it.
    const ledger = ledgerBySeqno().get(hole) ?? [];
    expect(((await txsOfSeqno(hole)) ?? []).sort()).toEqual([...ledger].sort());
    expect(ledger.length).toBeGreaterThan(0);
  }, 300_000);
});
