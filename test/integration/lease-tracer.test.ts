import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, topicNames } from '@tonstream/bus';
import { createStore, type Store, TRACE_COLUMNS, traceFromRow, type TraceRow } from '@tonstream/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWholeTopic } from '../support/kafka-topics.js';
import { leaseAcquired, leaseReport, standingBy, takeoverAfterKill9 } from '../support/lease.js';
import { ledgerTraces, readLedger, tracesUnlikeLedger } from '../support/ledger.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

/**
 * Two tracers with the lease on the local network (localnet -> fetcher -> decoder -> writer + tracers):
 * one works, the other waits as a healthy standby; the holder is killed with SIGKILL while traces wait
 * in Redis, and the standby takes over from the saved state. Every trace of the chain's ledger is then
 * stored once and complete, and published once but for the one block the holder may have published
 * and not saved.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** 30 rounds: the kill around mc 10, traces rooted up to 20 settled (localnet delivers within a few rounds). */
const STOP_AT = 30;
const SETTLED_AT = STOP_AT - 10;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-lease-tracer-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_lease_tracer_${run}`;
const prefix = `leasetracer${run}.`;
const procs: Record<string, ServiceProcess> = {};
const killed = new Set<ServiceProcess>();
const ports: Record<string, number> = {};
let store: Store;
let redis: Redis;

const assertAlive = () => {
  for (const p of Object.values(procs)) if (!killed.has(p) && p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
};
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 200) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, service: string, extra: Record<string, string> = {}, args: string[] = []) {
  ports[name] = await freePort();
  const env = { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: prefix, FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'), FETCHER_START_SEQNO: '1' };
  procs[name] = startService(service, { ...env, METRICS_PORT: String(ports[name]), ...extra }, join(dir, 'logs', name), args);
}

// A 4 s lease (a holder may stall ~1.5 s on a loaded machine and keep it) and the broker's least
// session (6 s): the standby takes over, then gets the partitions, within seconds.
const TTL_MS = 4_000;
const TRACER = { LEASE: 'on', LEASE_TTL_MS: String(TTL_MS), KAFKA_SESSION_TIMEOUT_MS: '6000' };

beforeAll(async () => {
  store = createStore({ url: CLICKHOUSE_URL, database });
  redis = new Redis(REDIS_URL);
  const localnet = { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '400', LOCALNET_TRAFFIC_RATE: '3', LOCALNET_SEED: `lease-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(STOP_AT) };
  await start('localnet', 'localnet', localnet, ['--reset']);
  await procs.localnet.waitFor(/localnet serving/);
  await start('writer', 'writer');
  await procs.writer.waitFor(/writer started/);
  await start('tracerA', 'tracer', TRACER);
  await leaseAcquired(procs.tracerA);
  await start('tracerB', 'tracer', TRACER);
  await standingBy(procs.tracerB);
  await start('decoder', 'decoder');
  await start('fetcher', 'fetcher');
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}, 60_000);

describe('two tracers behind the lease', () => {
  it('the standby takes over from a killed holder; every ledger trace stored once and complete', async () => {
    const doneKey = `${prefix}tracer:done_mc_seqno`;
    expect(await leaseReport(ports.tracerB)).toMatchObject({ httpStatus: 200, status: 'ok', reasons: [expect.stringMatching(/^standby: lease /)], held: 0 });
    expect((await leaseReport(ports.tracerA)).held).toBe(1);
    await until('the holder tracing with traces pending in Redis', async () => (Number(await redis.get(doneKey)) >= 10 && (await redis.hlen(`${prefix}tracer:traces`)) > 0 ? true : undefined), 90_000, 20);
    killed.add(procs.tracerA);
    const { takeoverMs, fence } = await takeoverAfterKill9(procs.tracerA, procs.tracerB);
    const loaded = JSON.parse(await procs.tracerB.waitFor(/"msg":"tracer state loaded"/)) as { last_mc_seqno: number };
    console.log(JSON.stringify({ suite: 'lease-tracer', lease_ttl_ms: TTL_MS, takeover_ms: takeoverMs, fence, resumed_after_mc_seqno: loaded.last_mc_seqno }));
    expect(fence).toBe(2);
    expect(takeoverMs).toBeLessThan(TTL_MS + 3_000);

    await procs.localnet.waitFor(/LOCALNET_STOP_AT_SEQNO reached/, 120_000);
    await until('the standby caught up with the chain', async () => (Number(await redis.get(doneKey)) >= STOP_AT ? true : undefined), 60_000);
    expect((await leaseReport(ports.tracerB)).held).toBe(1);
    const expected = ledgerTraces(readLedger(ledgerPath));
    const settled = [...expected.values()].filter((e) => e.endSeqno <= SETTLED_AT);
    expect(settled.length).toBeGreaterThan(50);
    await until(`the ${settled.length} settled traces stored`, async () => {
      const [{ c }] = await store.query<{ c: string }>(`SELECT uniqExact(trace_id) AS c FROM ${database}.traces WHERE trace_id IN (${settled.map((e) => `'${e.id}'`).join(',')})`);
      return Number(c) === settled.length ? true : undefined;
    });

    // Stored once and complete: every stored trace one of the ledger's with its transactions.
    const stored = (await store.query<TraceRow>(`SELECT ${TRACE_COLUMNS} FROM ${database}.traces FINAL`)).map(traceFromRow);
    expect(new Set(stored.map((t) => t.trace_id)).size).toBe(stored.length);
    expect(tracesUnlikeLedger(stored, expected)).toEqual([]);
    const storedIds = new Set(stored.map((t) => t.trace_id));
    expect(settled.filter((e) => !storedIds.has(e.id)).map((e) => e.id)).toEqual([]);

    // Published once: only the block after the holder's last save can have gone out twice (published, killed before the save).
    const kafka = createKafka({ brokers: [KAFKA_BROKERS], clientId: database });
    const topics = topicNames(prefix);
    const marks = await readWholeTopic(kafka, topics.traceBatches, (v) => (JSON.parse(v.toString()) as { mc_seqno: number }).mc_seqno);
    const traces = await readWholeTopic(kafka, topics.traces, (v) => JSON.parse(v.toString()) as { trace_id: string; mc_seqno_end: number });
    const twice = <T>(xs: T[]) => [...new Set(xs.filter((x, i) => xs.indexOf(x) !== i))];
    expect(twice(marks).filter((s) => s !== loaded.last_mc_seqno + 1)).toEqual([]);
    expect(new Set(marks)).toEqual(new Set(Array.from({ length: Math.max(...marks) }, (_, k) => k + 1)));
    const replayed = new Set(twice(traces.map((t) => t.trace_id)));
    expect(traces.filter((t) => replayed.has(t.trace_id) && t.mc_seqno_end !== loaded.last_mc_seqno + 1)).toEqual([]);
  }, 240_000);
});
