import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka } from '@tonstream/bus';
import { createStore, type Store, TRACE_COLUMNS, traceFromRow, type TraceRow } from '@tonstream/store';
import { TRACER_GROUP_ID } from '@tonstream/tracer-service';
import { WRITER_GROUP_ID } from '@tonstream/writer-service';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAskingAgainOn504 } from '../support/api-get.js';
import { groupCaughtUp } from '../support/kafka-groups.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { runPython } from './python.js';
import type { LedgerRound } from '../support/ledger.js';

/**
 * The tracer on the local network, on real processes: localnet (with traffic) -> fetcher -> decoder
 * -> writer + tracer -> api. The chain's own ledger (services/localnet/src/ledger.ts, message hashes
 * read with @ton/core) is the independent source: its transactions linked by message hashes form the
 * expected traces (a root is a transaction whose in message no ledger transaction sent). The tracer is
 * killed with SIGKILL while traces wait in Redis, then restarted.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const STOP_AT = Number(process.env.TRACER_E2E_STOP_AT_SEQNO ?? 60);
/** Traces rooted this many rounds before the chain stops have had time to complete (localnet delivers within a few rounds). */
const SETTLE_ROUNDS = 10;
/**
 * Wallet actions per round: with the chain's own system transactions, about 300 settled traces for the
 * test's 100, and about 100 Jetton and NFT transfers among them spanning blocks and shards.
 */
const TRAFFIC_RATE = 3;

type ExpectedTrace = { id: string; txs: Set<string>; rootSeqno: number; seqnos: Set<number>; shards: Set<string> };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-tracer-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_tracer_${run}`;
const prefix = `tracer${run}.`;
const procs: Record<string, ServiceProcess> = {};
let env: Record<string, string> = {};
let store: Store;
let redis: Redis;
let apiPort = 0;

function ledger(): LedgerRound[] {
  if (!existsSync(ledgerPath)) return [];
  return readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
}

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number, everyMs?: number) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

/** The ledger's traces: transactions joined through message hashes, each tree named by its root. */
function expectedTraces(rounds: LedgerRound[]): Map<string, ExpectedTrace> {
  const txs = rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => ({ ...t, seqno: r.mc_seqno, shard: `${b.workchain}:${b.shard}` }))));
  const sender = new Map<string, string>();
  for (const t of txs) for (const m of t.out_msgs) sender.set(m, t.hash);
  const byHash = new Map(txs.map((t) => [t.hash, t]));
  const rootOf = (hash: string): string => {
    const parent = byHash.get(hash)!.in_msg && sender.get(byHash.get(hash)!.in_msg!);
    return parent ? rootOf(parent) : hash;
  };
  const traces = new Map<string, ExpectedTrace>();
  for (const t of txs) {
    const id = rootOf(t.hash);
    let e = traces.get(id);
    if (!e) traces.set(id, (e = { id, txs: new Set(), rootSeqno: byHash.get(id)!.seqno, seqnos: new Set(), shards: new Set() }));
    e.txs.add(t.hash);
    e.seqnos.add(t.seqno);
    e.shards.add(t.shard);
  }
  return traces;
}

/** A GET of the API, its query timeout (504) asked again. */
async function api<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await getAskingAgainOn504(`http://127.0.0.1:${apiPort}/api/v3${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

beforeAll(async () => {
  env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    REDIS_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: prefix,
    FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'info',
  };
  store = createStore({ url: CLICKHOUSE_URL, database });
  redis = new Redis(REDIS_URL);
  await start(
    'localnet',
    {
      LOCALNET_PORT: String(await freePort()),
      LOCALNET_STATE_DIR: join(dir, 'localnet'),
      LOCALNET_ROUND_MS: '400',
      LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE),
      LOCALNET_SEED: `tracer-${run}`,
      LOCALNET_LEDGER: ledgerPath,
      LOCALNET_STOP_AT_SEQNO: String(STOP_AT),
    },
    ['--reset'],
  );
  await procs.localnet.waitFor(/localnet serving/);
  apiPort = await freePort();
  await start('writer');
  await procs.writer.waitFor(/writer started/);
  await start('api', { API_PORT: String(apiPort) });
  await start('tracer');
  await start('decoder');
  await start('fetcher');
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
  const keys = await redis.keys(`${prefix}tracer:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}, 60_000);

describe('tracer on the local network', () => {
  it('stores every trace of the ledger once and complete, through a kill -9 while traces wait in Redis', async () => {
    const tracesKey = `${prefix}tracer:traces`;
    const doneKey = `${prefix}tracer:done_mc_seqno`;
    // Kill the tracer while it holds pending traces (messages in flight between blocks and shards).
    for (let kill = 0; kill < 2; kill++) {
      await until('the tracer holding pending traces in Redis', async () => (Number(await redis.get(doneKey)) > 8 + kill * 15 && (await redis.hlen(tracesKey)) > 0 ? true : undefined), 180_000, 20);
      const pending = await redis.hlen(tracesKey);
      await procs.tracer.kill9();
      console.log(`tracer-e2e: killed the tracer at mc ${await redis.get(doneKey)} with ${pending} traces pending in Redis`);
      // The chain moves on while no tracer runs (unless it is at rest already).
      const resumeAt = Math.min(ledger().length + 2, STOP_AT);
      await eventually('the chain two rounds on without a tracer', async () => (ledger().length >= resumeAt ? true : undefined), 60_000, 100);
      await start('tracer');
    }
    await procs.localnet.waitFor(/LOCALNET_STOP_AT_SEQNO reached/, 240_000);
    const rounds = ledger();
    expect(rounds.map((r) => r.mc_seqno)).toEqual(Array.from({ length: STOP_AT }, (_, k) => k + 1));
    const expected = expectedTraces(rounds);
    const settled = [...expected.values()].filter((e) => e.rootSeqno <= STOP_AT - SETTLE_ROUNDS);
    expect(settled.length).toBeGreaterThan(100);

    const db = database;
    await until(
      `the ${settled.length} settled traces stored`,
      async () => {
        const rows = await store.query<{ c: string }>(`SELECT uniqExact(trace_id) AS c FROM ${db}.traces WHERE trace_id IN (${settled.map((e) => `'${e.id}'`).join(',')})`);
        return Number(rows[0].c) === settled.length ? true : undefined;
      },
      240_000,
      1_000,
    );
    await until('the tracer caught up with the chain', async () => (Number(await redis.get(doneKey)) >= STOP_AT ? true : undefined), 60_000, 200);
    // Traces published twice (re-reads after the kills) all land before the tracer and the writer have committed the ends of their topics.
    const admin = createKafka({ brokers: [KAFKA_BROKERS], clientId: database }).admin();
    await admin.connect();
    for (const group of [TRACER_GROUP_ID, WRITER_GROUP_ID]) await until(`${group} caught up`, async () => ((await groupCaughtUp(admin, `${prefix}${group}`)) ? true : undefined), 60_000, 200);
    await admin.disconnect();

    // Stored exactly once: each trace id one row after FINAL; every stored trace is one of the ledger's,
    // with the ledger's transactions, its id the root transaction's hash.
    const stored = await store.query<TraceRow>(`SELECT ${TRACE_COLUMNS} FROM ${db}.traces FINAL`);
    const ids = stored.map((r) => r.trace_id);
    expect(new Set(ids).size).toBe(ids.length);
    const byId = new Map(stored.map((r) => [r.trace_id, traceFromRow(r)]));
    const wrong: string[] = [];
    for (const [id, t] of byId) {
      const e = expected.get(id);
      if (!e) wrong.push(`${id}: not a root of the ledger`);
      else if (JSON.stringify(t.nodes.map((n) => n.tx_hash).sort()) !== JSON.stringify([...e.txs].sort())) wrong.push(`${id}: ${t.nodes.length} transactions, the ledger has ${e.txs.size}`);
      else if (t.trace_info.transactions !== e.txs.size || t.is_incomplete || t.trace_info.trace_state !== 'complete') wrong.push(`${id}: ${JSON.stringify(t.trace_info)} incomplete=${t.is_incomplete}`);
    }
    expect(wrong).toEqual([]);
    for (const e of settled) expect(byId.has(e.id), `trace ${e.id} rooted at mc ${e.rootSeqno} is stored`).toBe(true);
    const spanning = settled.filter((e) => e.seqnos.size > 1 && e.shards.size > 1);
    expect(spanning.length, 'traces spanning masterchain blocks and shards').toBeGreaterThan(0);
    console.log(`tracer-e2e: ${stored.length} traces stored (${settled.length} settled in the ledger, ${spanning.length} spanning blocks and shards), ${[...byId.values()].reduce((n, t) => n + t.nodes.length, 0)} transactions`);

    // Redis holds nothing of a completed trace: only traces still waiting for messages, none of them stored.
    const pending = await redis.hkeys(tracesKey);
    expect(pending.filter((id) => byId.has(id))).toEqual([]);
    for (const id of pending) expect(expected.has(id), `pending trace ${id} is a root of the ledger`).toBe(true);
    const edges = Object.values(await redis.hgetall(`${prefix}tracer:edges`)).map((e) => (JSON.parse(e) as { trace_id: string }).trace_id);
    expect(edges.filter((id) => byId.has(id))).toEqual([]);

    // The API: a trace spanning blocks and shards, by id, by one of its transactions and with its actions.
    const wide = spanning.sort((a, b) => b.txs.size - a.txs.size)[0];
    type Trace = { trace_id: string; trace_info: { transactions: number; trace_state: string }; trace: { tx_hash: string }; transactions: Record<string, unknown>; actions?: { trace_id: string; action_id: string }[] };
    const byTraceId = await api<{ traces: Trace[] }>(`/traces?trace_id=${encodeURIComponent(wide.id)}&include_actions=true`);
    expect(byTraceId.status).toBe(200);
    expect(byTraceId.body.traces).toHaveLength(1);
    const t = byTraceId.body.traces[0];
    expect(t).toMatchObject({ trace_id: wide.id, trace_info: { transactions: wide.txs.size, trace_state: 'complete' }, trace: { tx_hash: wide.id } });
    expect(Object.keys(t.transactions).sort()).toEqual([...wide.txs].sort());
    expect(t.actions!.length).toBeGreaterThan(0);
    const child = [...wide.txs].find((h) => h !== wide.id)!;
    const byTx = await api<{ traces: Trace[] }>(`/traces?tx_hash=${encodeURIComponent(child)}`);
    expect(byTx.body.traces.map((x) => x.trace_id)).toEqual([wide.id]);
    const actions = await api<{ actions: { trace_id: string; action_id: string; accounts?: string[] }[] }>(`/actions?trace_id=${encodeURIComponent(wide.id)}&include_accounts=true&limit=1000`);
    expect(actions.status).toBe(200);
    expect(actions.body.actions.map((a) => a.action_id).sort()).toEqual(t.actions!.map((a) => a.action_id).sort());
    const account = actions.body.actions[0].accounts![0];
    const byAccount = await api<{ actions: { action_id: string }[] }>(`/actions?account=${encodeURIComponent(account)}&limit=1000`);
    expect(byAccount.body.actions.map((a) => a.action_id)).toContain(actions.body.actions[0].action_id);
    const txs = await api<{ transactions: { hash: string; trace_id?: string }[] }>(`/transactions?hash=${encodeURIComponent(child)}`);
    expect(txs.body.transactions.map((x) => x.trace_id)).toEqual([wide.id]);
    // Other access paths find the same trace: by account, by the masterchain block it ended in, the latest page.
    const rootAccount = rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions)).find((x) => x.hash === wide.id)!.account;
    const byAccountTraces = await api<{ traces: Trace[] }>(`/traces?account=${encodeURIComponent(rootAccount)}&limit=1000`);
    expect(byAccountTraces.body.traces.map((x) => x.trace_id)).toContain(wide.id);
    const endSeqno = Math.max(...wide.seqnos);
    const byMc = await api<{ traces: Trace[] }>(`/traces?mc_seqno=${endSeqno}&limit=1000`);
    expect(byMc.body.traces.map((x) => x.trace_id)).toContain(wide.id);
    const endingThere = settled.filter((e) => Math.max(...e.seqnos) === endSeqno).map((e) => e.id).sort();
    expect(byMc.body.traces.map((x) => x.trace_id).filter((id) => endingThere.includes(id)).sort()).toEqual(endingThere);
    const latest = await api<{ traces: Trace[] }>('/traces?limit=5&sort=desc');
    expect(latest.body.traces).toHaveLength(5);
    const lts = latest.body.traces.map((x) => BigInt((x as unknown as { end_lt: string }).end_lt));
    expect([...lts].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(lts);
    const one = actions.body.actions[0];
    const byActionId = await api<{ actions: { action_id: string }[] }>(`/actions?action_id=${encodeURIComponent(one.action_id)}`);
    expect(byActionId.body.actions.map((a) => a.action_id)).toEqual([one.action_id]);
    const byTxActions = await api<{ actions: { action_id: string; transactions: string[] }[] }>(`/actions?tx_hash=${encodeURIComponent(child)}&limit=1000`);
    expect(byTxActions.body.actions.length).toBeGreaterThan(0);
    for (const a of byTxActions.body.actions) expect(a.transactions).toContain(child);

    // The served OpenAPI document holds for these answers on real traces: schemathesis (PyPI) on the three operations.
    // No crash cache in the working tree: the run's only outputs go to the test's own directory.
    writeFileSync(join(dir, 'schemathesis.toml'), '[cache]\nenabled = false\n');
    const run = await runPython([
      '-m', 'schemathesis.cli', '--config-file', join(dir, 'schemathesis.toml'), 'run', `http://127.0.0.1:${apiPort}/api/v3/openapi.json`, '--url', `http://127.0.0.1:${apiPort}`,
      '--include-path-regex', '^/api/v3/(traces|events|actions)$',
      '--checks', 'not_a_server_error,response_schema_conformance', '--phases', 'examples,coverage,fuzzing',
      '--seed', '20261124', '--max-examples', '15', '--generation-database', 'none', '--workers', '1',
      '--request-timeout', '10', '--header', 'X-Timeout: 3000', '--no-color',
      '--report', 'json', '--report-json-path', join(dir, 'schemathesis.json'),
    ], { HYPOTHESIS_STORAGE_DIRECTORY: join(dir, 'hypothesis') }, 300_000);
    const output = `${run.stdout}\n${run.stderr}`;
    const report = JSON.parse(readFileSync(join(dir, 'schemathesis.json'), 'utf8')) as { operations: { selected: number; tested: number }; failures: unknown[]; errors: unknown[] };
    expect(report.operations, output).toMatchObject({ selected: 3, tested: 3 });
    expect(report.failures, output).toEqual([]);
    expect(report.errors, output).toEqual([]);
    expect(run.code, output).toBe(0);

    const both = await api<{ error: string }>(`/traces?trace_id=${encodeURIComponent(wide.id)}&tx_hash=${encodeURIComponent(child)}`);
    expect(both.status).toBe(422);
    // Its waits alone allow minutes (the chain, the stored traces, schemathesis' 300 s): the default 120 s cut it short on a loaded machine.
  }, 900_000);
});
