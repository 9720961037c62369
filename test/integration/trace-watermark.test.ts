/**
 * Traces and their actions are served together or not at all: the tracer's output as it publishes
 * it (trace and action messages naming their batch, and the batch's mark) produced here in the
 * order a test chooses, the real writer storing it in the real ClickHouse, and the API reading it.
 * A trace whose actions are not stored yet is served neither by /traces nor (its actions) by
 * /actions; once they are, both serve it.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, ensureTopics, topicNames, topicSpecs } from '@tonstream/bus';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { saveWatermark, type Store, str } from '@tonstream/store';
import type { ActionRecord, TraceBatch, TraceRecord } from '@tonstream/traces';
import { createWriter, createWriterMetrics, type Writer } from '@tonstream/writer-service';
import { type Admin, type Kafka, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';
import { type ApiUnderTest, getJson, okJson, startApi } from './api-server.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((s) => s.trim());
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_tw_${runId}_`;
const database = `tonstream_tw_${runId}`;
const topics = topicNames(prefix);
/** The index watermark: every batch below is indexed, so only the traces watermark holds traces back. */
const INDEXED = 20;

let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let writer: Writer;
let api: ApiUnderTest;
let store: Store;

const h = (n: number) => Buffer.alloc(32, n).toString('base64');
const account = (c: string) => `0:${c.repeat(64)}`;

/** A trace of one transaction that ended in masterchain block `mc`, complete unless `incomplete`. */
function trace(id: number, mc: number, incomplete = false): TraceRecord {
  const lt = String(1000 + id);
  return {
    trace_id: h(id), external_hash: h(100 + id), external_hash_norm: null, mc_seqno_start: mc, mc_seqno_end: mc,
    start_lt: lt, start_utime: 1_700_000_000 + id, end_lt: lt, end_utime: 1_700_000_000 + id,
    trace_info: { trace_state: incomplete ? 'pending' : 'complete', messages: 1, transactions: 1, pending_messages: incomplete ? 1 : 0, classification_state: incomplete ? 'unclassified' : 'ok' },
    is_incomplete: incomplete,
    nodes: [{ tx_hash: h(id), account: account('A'), lt, in_msg_hash: h(100 + id), parent: null, out_msgs: incomplete ? 1 : 0 }],
  };
}

function action(t: TraceRecord, n: number): ActionRecord {
  return {
    action_id: h(200 + n), trace_id: t.trace_id, type: 'ton_transfer', success: true, start_lt: t.start_lt, end_lt: t.end_lt, start_utime: t.start_utime, end_utime: t.end_utime,
    trace_end_lt: t.end_lt, trace_end_utime: t.end_utime, trace_mc_seqno_end: t.mc_seqno_end, transactions: [t.nodes[0].tx_hash], accounts: [account('A'), account('B')],
    details: { source: account('A'), destination: account('B'), value: String(n) }, parent_action_id: null, ancestor_type: [],
  };
}

/** What the tracer publishes for batch `mc` (services/tracer tracer.ts): each message names its batch. */
const header = (mc: number) => ({ mc_seqno: String(mc) });
const sendTraces = (mc: number, traces: TraceRecord[]) => producer.send({ topic: topics.traces, messages: traces.map((t) => ({ key: t.trace_id, value: JSON.stringify(t), headers: header(mc) })) });
const sendActions = (mc: number, actions: ActionRecord[]) =>
  producer.send({ topic: topics.actions, messages: [{ key: actions[0].trace_id, value: actions.map((a) => JSON.stringify(a)).join('\n'), headers: header(mc) }] });
const sendMark = (mark: TraceBatch) => producer.send({ topic: topics.traceBatches, messages: [{ key: String(mark.mc_seqno), value: JSON.stringify(mark) }] });

type Trace = { trace_id: string; is_incomplete: boolean; trace_info: { trace_state: string }; actions?: { action_id: string }[] };
const traces = async (q: string) => (await okJson<{ traces: Trace[] }>(api.base, `/api/v3/traces?${q}`)).traces;
const actions = async (q: string) => (await okJson<{ actions: { action_id: string }[] }>(api.base, `/api/v3/actions?${q}`)).actions;
const ids = (list: { trace_id?: string; action_id?: string }[]) => list.map((x) => x.action_id ?? x.trace_id);
const byId = (t: TraceRecord) => `trace_id=${encodeURIComponent(t.trace_id)}`;
/** The writer's view once its latest check ran (the condition the tests wait on, not a duration). */
const writerSays = (what: string, test: (d: Record<string, unknown>) => boolean) =>
  eventually(what, async () => (test(writer.health().details ?? {}) ? true : undefined), 30_000, 100);
/** Rows the writer stored, read from ClickHouse directly. */
const stored = async (table: 'traces' | 'actions', traceId: string) =>
  Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${database}.${table} WHERE trace_id = ${str(traceId)}`))[0].n);

beforeAll(async () => {
  const logger = createLogger({ level: 'error' });
  kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `it-tw-${runId}`, logger });
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics));
  api = await startApi(CLICKHOUSE_URL, database);
  store = api.store;
  writer = createWriter({ kafka, topics, store, logger, metrics: createWriterMetrics(createRegistry('writer')), groupId: `${prefix}writer`, flushMs: 50 });
  await writer.start();
  await saveWatermark(store, { mc_seqno: INDEXED, gen_utime: 1_700_000_100 });
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await writer?.stop();
  await api?.stop();
  await admin?.deleteTopics({ topics: Object.values(topics) }).catch(() => {});
  await admin?.disconnect();
});

describe('the traces watermark', () => {
  const complete = trace(1, 10);
  const completeActions = [action(complete, 1), action(complete, 2)];
  const incomplete = trace(2, 9, true); // given up on in batch 10: published incomplete, without actions

  it('serves neither a trace nor its actions while the actions of its batch are not stored', async () => {
    await sendTraces(10, [complete, incomplete]);
    await sendMark({ mc_seqno: 10, first_mc_seqno: 0, traces: 2, actions: 2 });
    await writerSays('batch 10 waiting for its actions', (d) => d.traces_watermark_waiting === 'trace batch 10: 2 of 2 traces and 0 of 2 actions stored');
    expect(await stored('traces', complete.trace_id)).toBe(1);
    expect(await traces(byId(complete))).toEqual([]);
    expect(await traces(`${byId(complete)}&include_actions=true`)).toEqual([]);
    expect(await traces(byId(incomplete))).toEqual([]);
    expect(await traces('')).toEqual([]);
    expect(await actions(byId(complete))).toEqual([]);
    const res = await getJson(api.base, `/api/v3/traces?${byId(complete)}`);
    expect(res.headers.get('x-traces-mc-seqno')).toBe('0');
    expect(res.headers.get('x-index-mc-seqno')).toBe(String(INDEXED));
  });

  it('serves both once they are stored: the complete trace with its actions, the incomplete one as toncenter shows it', async () => {
    await sendActions(10, completeActions);
    const [served] = await eventually('the trace served', async () => ((await traces(byId(complete))).length > 0 ? await traces(`${byId(complete)}&include_actions=true`) : undefined), 30_000, 100);
    // The same moment /traces serves it, its actions are there, in both places.
    expect(ids(served.actions!)).toEqual(ids(completeActions));
    expect(ids(await actions(byId(complete)))).toEqual(ids(completeActions).reverse());
    expect(await traces(byId(incomplete))).toMatchObject([{ trace_id: incomplete.trace_id, is_incomplete: true, trace_info: { trace_state: 'pending' } }]);
    expect(await actions(byId(incomplete))).toEqual([]);
    expect((await getJson(api.base, '/api/v3/actions')).headers.get('x-traces-mc-seqno')).toBe('10');
    expect(writer.health().details).toMatchObject({ traces_watermark_mc_seqno: 10, traces_watermark_waiting: null });
  });

  it('counts a replayed batch once, passes a skipped block its mark covers, and waits for records whose mark came first', async () => {
    // The tracer restarted before saving batch 10: it publishes it again, identical.
    await sendTraces(10, [complete, incomplete]);
    await sendActions(10, completeActions);
    await sendMark({ mc_seqno: 10, first_mc_seqno: 0, traces: 2, actions: 2 });
    // Block 11 was given up on without traces; batch 12's mark covers 11..12 and arrives before its trace.
    const later = trace(3, 12);
    await sendMark({ mc_seqno: 12, first_mc_seqno: 11, traces: 1, actions: 1 });
    await writerSays('batch 12 waiting for its trace', (d) => d.traces_watermark_waiting === 'trace batch 12: 0 of 1 traces and 0 of 1 actions stored');
    await sendActions(12, [action(later, 3)]);
    await writerSays('batch 12 waiting for its trace', (d) => d.traces_watermark_waiting === 'trace batch 12: 0 of 1 traces and 1 of 1 actions stored');
    expect(await stored('actions', later.trace_id)).toBe(1);
    expect(await actions(byId(later))).toEqual([]);
    expect(ids(await traces(''))).toEqual([incomplete.trace_id, complete.trace_id]);
    await sendTraces(12, [later]);
    await writerSays('the traces watermark at 12', (d) => d.traces_watermark_mc_seqno === 12);
    await eventually('batch 12 served', async () => ((await traces(byId(later))).length === 1 ? true : undefined), 30_000, 100);
    expect(ids(await actions(byId(later)))).toEqual([h(203)]);
  });

  it('serves a complete batch above the index watermark only once the index reaches it', async () => {
    const above = trace(4, INDEXED + 1);
    await sendTraces(INDEXED + 1, [above]);
    await sendMark({ mc_seqno: INDEXED + 1, first_mc_seqno: 13, traces: 1, actions: 0 });
    await writerSays('the traces watermark above the index', (d) => d.traces_watermark_mc_seqno === INDEXED + 1);
    expect(await traces(byId(above))).toEqual([]);
    await saveWatermark(store, { mc_seqno: INDEXED + 1, gen_utime: 1_700_000_200 });
    await eventually('the trace served', async () => ((await traces(byId(above))).length === 1 ? true : undefined), 30_000, 100);
  });
});
