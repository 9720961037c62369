/**
 * The writer process behind a proxy to the real ClickHouse that, for a while, answers inserts as a
 * replicated ClickHouse in trouble does: 242 TABLE_IS_READ_ONLY, 999 KEEPER_EXCEPTION, 319
 * UNKNOWN_STATUS_OF_INSERT (after passing the insert on: it did happen), and a proxy's own 502 page
 * without any ClickHouse code. Each is transient: the writer must retry the same batch with its
 * health degraded and nothing committed, not exit; once the answers are good again every record is
 * stored exactly once and the offsets are committed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, encodeRawBlock, topicNames } from '@tonstream/bus';
import { createDecoder, createDecoderMetrics, type Decoder } from '@tonstream/decoder-service';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, type Store } from '@tonstream/store';
import { type Admin, type Kafka, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
const CLICKHOUSE_URL = new URL(process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123');

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_wte_${runId}_`;
const database = `tonstream_wte_${runId}`;
const topics = topicNames(prefix);
const logger = createLogger({ level: 'warn', write: () => {} });

/** How ClickHouse 18.16 answers an error over HTTP (newer servers differ only in the text). */
const clickhouseError = (code: number, text: string) => ({ status: 500, headers: { 'x-clickhouse-exception-code': String(code) }, body: `Code: ${code}, e.displayText() = DB::Exception: ${text}, e.what() = DB::Exception\n` });
type Fault = { name: string; passOn: boolean; answer: { status: number; headers: Record<string, string>; body: string } };
const FAULTS: Fault[] = [
  { name: '242', passOn: false, answer: clickhouseError(242, 'Table is in readonly mode') },
  { name: '999', passOn: false, answer: clickhouseError(999, 'Connection loss, path: /clickhouse/tables/01/transactions/block_numbers') },
  { name: '319', passOn: true, answer: clickhouseError(319, 'Unknown status, client must retry. Reason: Connection loss') },
  { name: '502', passOn: false, answer: { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>' } },
];

/**
 * An HTTP proxy to ClickHouse. While `failing`, each insert gets the next fault in turn (a 319 only
 * after ClickHouse stored the rows); everything else (migrations, the watermark) passes through.
 */
function faultyProxy() {
  const served = new Map<string, number>();
  let turn = 0;
  const state = { failing: false, served };
  const forward = (req: IncomingMessage, body: Buffer, done: (status: number, headers: IncomingHttpHeaders, data: Buffer) => void) => {
    const up = request({ host: CLICKHOUSE_URL.hostname, port: CLICKHOUSE_URL.port, method: req.method, path: req.url, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(res.statusCode ?? 502, res.headers, Buffer.concat(chunks)));
    });
    up.on('error', () => done(502, {}, Buffer.from('upstream error')));
    up.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const query = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
      if (state.failing && /^INSERT INTO/i.test(query)) {
        const fault = FAULTS[turn++ % FAULTS.length];
        served.set(fault.name, (served.get(fault.name) ?? 0) + 1);
        const answer = () => res.writeHead(fault.answer.status, fault.answer.headers).end(fault.answer.body);
        if (fault.passOn) forward(req, body, answer);
        else answer();
        return;
      }
      forward(req, body, (status, headers, data) => res.writeHead(status, headers).end(data));
    });
  });
  return { server, state };
}

let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let store: Store;
let proxy: ReturnType<typeof faultyProxy>;
let proxyServer: Server;
let decoder: Decoder;
let writer: ServiceProcess;
let metricsPort: number;

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `it-wte-${runId}` });
  admin = kafka.admin();
  await admin.connect();
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  store = createStore({ url: CLICKHOUSE_URL.origin, database });
  proxy = faultyProxy();
  proxyServer = proxy.server;
  // Longer than the client keeps idle sockets: no resets of reused connections, only the faults above.
  proxyServer.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  metricsPort = await freePort();
  writer = startService(
    'writer',
    { KAFKA_BROKERS, KAFKA_TOPIC_PREFIX: prefix, CLICKHOUSE_URL: `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}`, CLICKHOUSE_DATABASE: database, METRICS_PORT: String(metricsPort), WRITER_FLUSH_MS: '100', LOG_LEVEL: 'info' },
    join(tmpdir(), `tonstream-wte-${runId}`),
  );
  await writer.waitFor(/writer started/);
  decoder = createDecoder({ kafka, topics, logger, metrics: createDecoderMetrics(createRegistry('decoder')), groupId: `${prefix}decoder` });
  await decoder.start();
});

afterAll(async () => {
  await writer?.stop();
  await decoder?.stop();
  proxyServer?.close();
  await producer?.disconnect();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => {});
  await store?.close();
  await admin?.deleteTopics({ topics: Object.values(topics) }).catch(() => {});
  await admin?.disconnect();
});

const health = async () => (await (await fetch(`http://127.0.0.1:${metricsPort}/healthcheck`)).json()) as { status: string; reasons: string[] };
const alive = () => {
  if (writer.child.exitCode !== null) throw new Error(`the writer exited (${writer.child.exitCode}):\n${writer.output().slice(-3000)}`);
};
/** Offsets the writer's group committed on the transactions topic, summed over partitions. */
async function committedTransactions(): Promise<number> {
  const [t] = await admin.fetchOffsets({ groupId: `${prefix}tonstream-writer`, topics: [topics.transactions] });
  return t.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
}
async function endOfTransactions(): Promise<number> {
  return (await admin.fetchTopicOffsets(topics.transactions)).reduce((n, p) => n + Number(p.high), 0);
}

describe('writer: transient ClickHouse and proxy errors', () => {
  it('retries 242, 999, 319 and a proxy 502 with health degraded and nothing committed, then stores every record once', async () => {
    const blocks = fixtureRawBlocks().filter((f) => f.records.transactions.length > 0);
    const expected = blocks.flatMap((f) => f.records.transactions.map((t) => t.hash)).sort();
    proxy.state.failing = true;
    await producer.send({ topic: topics.blocks, messages: blocks.map((f) => ({ key: `${f.raw.workchain}:${f.raw.shard}:${f.raw.seqno}`, value: encodeRawBlock(f.raw) })) });

    // Every kind of fault answered, and one more after the last: the writer went on retrying after each.
    const servedAll = () => FAULTS.every((f) => (proxy.state.served.get(f.name) ?? 0) >= 1) && [...proxy.state.served.values()].reduce((a, b) => a + b, 0) > FAULTS.length;
    await eventually('every fault served', async () => (servedAll() ? true : undefined), 90_000, 200, alive);
    const h = await health();
    expect(h.status).toBe('degraded');
    expect(h.reasons.join('; ')).toMatch(/ClickHouse unavailable, retrying/);
    expect(await endOfTransactions()).toBeGreaterThan(0);
    expect(await committedTransactions()).toBe(0);

    proxy.state.failing = false;
    await eventually('every transaction stored and its offset committed', async () => {
      const rows = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.transactions FINAL`);
      return Number(rows[0].c) === expected.length && (await committedTransactions()) === (await endOfTransactions()) ? true : undefined;
    }, 90_000, 300, alive);
    const stored = await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions FINAL ORDER BY hash`);
    expect(stored.map((r) => r.hash)).toEqual(expected);
    // (The fixture blocks are no chain, so the watermark may stay degraded for reasons of its own.)
    await eventually('the retry gone from health', async () => (!(await health()).reasons.some((r) => /unavailable/.test(r)) ? true : undefined), 30_000, 200, alive);
  });
});
