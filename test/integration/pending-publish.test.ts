/**
 * The API's publisher of accepted externals (`ton.pending_externals`, the emulator's input) against
 * the real Kafka broker, with the network between them switched off and on by the test (kafkajs'
 * socket factory: "off" cuts the open connections and refuses new ones, as a broker that went away).
 * Whether Kafka is away at start or goes away later, v2 sendBoc and v3 POST /message answer at once
 * (the message has reached the chain; publishing must not hold the answer), /healthcheck says pending
 * externals are not published, and once Kafka is reachable again every external sent meanwhile is
 * published with the time it arrived; what does not fit in the queue is dropped oldest first and counted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect, type Server, Socket } from 'node:net';
import { Address, beginCell, Cell, external, storeMessage } from '@ton/core';
import { createKafka, decodePendingExternal, type PendingExternal, topicNames } from '@tonstream/bus';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, type Store } from '@tonstream/store';
import type { ISocketFactory } from 'kafkajs';
import type { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { noLiteserver } from '../../services/api/src/chain/liteserver.js';
import { createPendingPublisher, type PendingPublisher } from '../../services/api/src/pending-publish.js';
import { readWholeTopic } from '../support/kafka-topics.js';
import { eventually } from '../support/processes.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
/**
 * A send must answer within this while Kafka is away. Generous for a local request; a publish
 * waiting on Kafka instead takes kafkajs' retries (well over 10 s) before it gives up.
 */
const SEND_DEADLINE_MS = 5_000;
const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const logger = createLogger({ level: 'error', bindings: { module: 'pending-publish-test' } });
const cleanups: (() => Promise<unknown> | unknown)[] = [];
const topicsMade: string[] = [];
const database = `tonstream_pendingpub_${randomBytes(4).toString('hex')}`;
/** The v3 router reads the index watermark on every request: an empty, migrated database. */
let store: Store;

/** The network between kafkajs and the broker, which the test switches off and on. */
function networkSwitch(on: boolean) {
  const open = new Set<Socket>();
  const sw = {
    on,
    refused: 0,
    socketFactory: (({ host, port, onConnect }) => {
      if (!sw.on) {
        sw.refused++;
        const refused = new Socket();
        setImmediate(() => refused.destroy(Object.assign(new Error(`connect ECONNREFUSED ${host}:${port} (switched off by the test)`), { code: 'ECONNREFUSED' })));
        return refused;
      }
      const socket = connect({ host, port }, onConnect);
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      return socket;
    }) as ISocketFactory,
    switchOn: () => {
      sw.on = true;
    },
    switchOff: () => {
      sw.on = false;
      // As a broker that went away: the peer resets each connection.
      for (const s of open) s.destroy(Object.assign(new Error('read ECONNRESET (switched off by the test)'), { code: 'ECONNRESET' }));
    },
  };
  return sw;
}

type Setup = { base: string; publisher: PendingPublisher; registry: Registry; topic: string; net: ReturnType<typeof networkSwitch> };

/** The API app in this process with the publisher wired as main.ts wires it, over a liteserver that takes every message. */
async function startApi(name: string, networkOn: boolean, maxQueuedBytes?: number): Promise<Setup> {
  const net = networkSwitch(networkOn);
  const topics = topicNames(`pendingpub_${runId}_${name}.`);
  topicsMade.push(topics.pendingExternals);
  const registry = createRegistry('api');
  const kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `pending-publish-test-${runId}`, socketFactory: net.socketFactory });
  const publisher = createPendingPublisher({ kafka, topics, registry, logger, maxQueuedBytes, retryMs: 100, maxRetryMs: 1_000 });
  const chain = { ...noLiteserver(), sendMessage: async () => 1 };
  const app = createApp({ store, registry, logger, lite: publisher.wrap(chain), healthNotes: () => publisher.healthNotes(), checkResponses: 'reject' });
  const server: Server = createApiServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  cleanups.push(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    net.switchOn();
    await publisher.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, publisher, registry, topic: topics.pendingExternals, net };
}

/** A distinct external-in message to a random account. */
function externalBoc(): Buffer {
  const to = new Address(0, randomBytes(32));
  return beginCell().store(storeMessage(external({ to, body: beginCell().storeBuffer(randomBytes(16)).endCell() }))).endCell().toBoc();
}

/** Sends through v3 POST /message or v2 sendBoc; the answer must come within SEND_DEADLINE_MS. */
async function send(base: string, via: 'v2' | 'v3'): Promise<{ hash: string; sentAt: number }> {
  const boc = externalBoc().toString('base64');
  const sentAt = Date.now();
  const path = via === 'v3' ? '/api/v3/message' : '/api/v2/sendBoc';
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boc }), signal: AbortSignal.timeout(SEND_DEADLINE_MS) });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return { hash: Cell.fromBase64(boc).hash().toString('base64'), sentAt };
}

async function healthcheck(base: string): Promise<string> {
  return (await fetch(`${base}/healthcheck`)).text();
}

/** Every value in `topic`, read from the beginning with a consumer of the real broker. */
async function readTopic(topic: string): Promise<PendingExternal[]> {
  return readWholeTopic(createKafka({ brokers: KAFKA_BROKERS, clientId: `pending-publish-test-${runId}` }), topic, decodePendingExternal);
}

/** Waits until `topic` holds every hash of `sent`; returns what it holds. */
async function published(topic: string, sent: { hash: string }[]): Promise<PendingExternal[]> {
  return eventually(`${sent.length} externals in ${topic}`, async () => {
    const values = await readTopic(topic);
    const hashes = new Set(values.map((v) => v.hash));
    return sent.every((s) => hashes.has(s.hash)) ? values : undefined;
  }, 90_000, 250);
}

async function metric(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? Number.NaN;
}

beforeAll(async () => {
  store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  await store?.command(`DROP DATABASE IF EXISTS ${database}`);
  await store?.close();
  const admin = createKafka({ brokers: KAFKA_BROKERS, clientId: `pending-publish-test-${runId}` }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: topicsMade }).catch(() => {});
  await admin.disconnect();
});

describe('pending externals publisher', () => {
  it('Kafka away at start: sends answer at once; once Kafka is reachable, what was sent is published', async () => {
    const api = await startApi('atstart', false);
    const sent = [await send(api.base, 'v3'), await send(api.base, 'v2'), await send(api.base, 'v3')];
    expect(api.net.on, 'still switched off when the sends answered').toBe(false);
    expect(api.net.refused, 'the publisher tried Kafka').toBeGreaterThan(0);
    expect(await healthcheck(api.base)).toMatch(/^OK; pending externals not published: Kafka not reached \(3 queued, 0 dropped/);
    expect(await metric(api.registry, 'tonstream_api_pending_publish_up')).toBe(0);

    api.net.switchOn();
    const values = await published(api.topic, sent);
    // At least once: a send whose answer was lost as Kafka came back is sent again, and the emulator
    // admits a hash_norm once (services/emulator/src/admission.ts). Nothing else may appear.
    expect([...new Set(values.map((v) => v.hash))].sort()).toEqual(sent.map((s) => s.hash).sort());
    // Published with the time each arrived, not the time Kafka came back: the emulator judges staleness by it.
    for (const s of sent) expect(values.find((v) => v.hash === s.hash)!.received_at).toBeLessThan(s.sentAt + SEND_DEADLINE_MS);
    await eventually('the publisher connected', async () => (api.publisher.state().publishing ? true : undefined), 30_000, 100);
    expect(await healthcheck(api.base)).toBe('OK');
    expect(await metric(api.registry, 'tonstream_api_pending_publish_up')).toBe(1);
    expect(await metric(api.registry, 'tonstream_api_pending_published_total')).toBe(3);
  });

  it('Kafka lost after it was reached: sends answer at once; published again once it is back', async () => {
    const api = await startApi('later', true);
    const first = await send(api.base, 'v3');
    await published(api.topic, [first]);

    api.net.switchOff();
    const during = [await send(api.base, 'v2'), await send(api.base, 'v3'), await send(api.base, 'v2')];
    expect(api.net.on).toBe(false);
    await eventually('/healthcheck noting the publisher is cut off', async () => ((await healthcheck(api.base)).includes('pending externals not published') ? true : undefined), 60_000, 200);

    api.net.switchOn();
    const values = await published(api.topic, [first, ...during]);
    expect(new Set(values.map((v) => v.hash))).toEqual(new Set([first, ...during].map((s) => s.hash)));
    await eventually('/healthcheck OK again', async () => ((await healthcheck(api.base)) === 'OK' ? true : undefined), 30_000, 100);
    expect(await metric(api.registry, 'tonstream_api_pending_publish_dropped_total', { reason: 'queue_full' })).toBe(0);
  });

  it('drops the oldest externals beyond the queue bound while Kafka is away, counted', async () => {
    // Room for two values (each ~300 bytes of JSON), not three.
    const api = await startApi('bound', false, 700);
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await send(api.base, i % 2 === 0 ? 'v3' : 'v2'));
    expect(api.publisher.state()).toMatchObject({ queued: 2, dropped: 3, published: 0 });
    expect(await metric(api.registry, 'tonstream_api_pending_publish_dropped_total', { reason: 'queue_full' })).toBe(3);
    expect(await healthcheck(api.base)).toContain('(2 queued, 3 dropped since start)');

    api.net.switchOn();
    const values = await published(api.topic, sent.slice(3));
    expect([...new Set(values.map((v) => v.hash))].sort()).toEqual(sent.slice(3).map((s) => s.hash).sort());
  });
});
