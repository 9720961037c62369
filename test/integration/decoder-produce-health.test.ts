/**
 * A decoder whose produces Kafka does not acknowledge (an output topic deleted: the decoder never
 * creates topics by producing, so kafkajs retries without end) must not look healthy: /healthcheck
 * degraded within seconds and error after PRODUCE_STALLED_MS, the status page saying so (with and
 * without Prometheus) and the TonstreamServiceUnhealthy alert firing, on a Prometheus started from
 * deploy/prometheus (1 s scrapes) over the real decoder process. Once the topic is back the decoder
 * goes on by itself and its health is ok again.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, encodeRawBlock, ensureTopics, topicNames, topicSpecs } from '@tonstream/bus';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import type { Admin, Kafka, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStatusConfig } from '../../services/api/src/status/config.js';
import { readHealth } from '../../services/api/src/status/health.js';
import { eventually, freePort, ROOT, type ServiceProcess, startService } from '../support/processes.js';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
const OTHER_SERVICES = ['localnet', 'fetcher', 'writer', 'tracer', 'emulator', 'streamer', 'metadata', 'api'];

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_dph_${runId}_`;
const topics = topicNames(prefix);
const dir = mkdtempSync(join(tmpdir(), `tonstream-dph-${runId}-`));

let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let decoder: ServiceProcess;
let metricsPort: number;
let promPort: number;
let promEnv: Record<string, string>;

/** deploy/local/services.sh on a state dir of this test only: the decoder is its one live target. */
const prometheus = (command: 'up' | 'down') => execFileSync('bash', [join(ROOT, 'deploy/local/services.sh'), command, 'prometheus'], { stdio: 'pipe', env: { ...process.env, ...promEnv } });

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `it-dph-${runId}` });
  admin = kafka.admin();
  await admin.connect();
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  metricsPort = await freePort();
  promPort = await freePort();
  const nobody = await freePort();
  promEnv = {
    TONSTREAM_STATE_DIR: join(dir, 'state'),
    PROMETHEUS_URL: '',
    PROMETHEUS_PORT: String(promPort),
    PROMETHEUS_SCRAPE_INTERVAL: '1s',
    PROMETHEUS_TARGET_DECODER: `127.0.0.1:${metricsPort}`,
    ...Object.fromEntries(OTHER_SERVICES.map((s) => [`PROMETHEUS_TARGET_${s.toUpperCase()}`, `127.0.0.1:${nobody}`])),
  };
  prometheus('up');
  decoder = startService('decoder', { KAFKA_BROKERS, KAFKA_TOPIC_PREFIX: prefix, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' }, join(dir, 'logs'));
  await decoder.waitFor(/decoder started/);
});

afterAll(async () => {
  await decoder?.stop();
  if (promEnv) prometheus('down');
  await producer?.disconnect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin?.disconnect();
});

type Health = { status: string; reasons: string[] };
const health = async (): Promise<Health & { http: number }> => {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/healthcheck`);
  return { ...((await res.json()) as Health), http: res.status };
};
const alive = () => {
  if (decoder.child.exitCode !== null) throw new Error(`the decoder exited (${decoder.child.exitCode}):\n${decoder.output().slice(-3000)}`);
};
const viaPrometheus = () => readHealth(loadStatusConfig({ PROMETHEUS_URL: `http://127.0.0.1:${promPort}` }));

describe('decoder: produces Kafka does not acknowledge', () => {
  it('turn /healthcheck degraded, then error, on the status page and in an alert; ok again once the topic is back', async () => {
    await eventually('the decoder healthy', async () => ((await health()).status === 'ok' ? true : undefined), 60_000, 200, alive);
    await eventually('Prometheus scraping the decoder', async () => ((await viaPrometheus()).services.find((s) => s.name === 'decoder')?.state === 'ok' ? true : undefined), 60_000, 500, alive);

    await admin.deleteTopics({ topics: [topics.transactions] });
    const block = fixtureRawBlocks().find((f) => f.records.transactions.length > 0)!;
    await producer.send({ topic: topics.blocks, messages: [{ key: `${block.raw.workchain}:${block.raw.shard}:${block.raw.seqno}`, value: encodeRawBlock(block.raw) }] });
    const sentAt = Date.now();

    const degraded = await eventually('/healthcheck degraded', async () => {
      const h = await health();
      return h.status === 'ok' ? undefined : h;
    }, 20_000, 200, alive);
    expect(degraded.reasons.join('; ')).toMatch(new RegExp(`Kafka has not acknowledged a produce to ${topics.transactions}`));
    expect(Date.now() - sentAt).toBeLessThan(20_000);

    const failed = await eventually('/healthcheck error', async () => {
      const h = await health();
      return h.status === 'error' ? h : undefined;
    }, 60_000, 500, alive);
    expect(failed.http).toBe(503);
    expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toMatch(/^tonstream_health_status\{service="decoder"\} 2$/m);

    // The status page without Prometheus asks the decoder itself...
    const direct = await readHealth(loadStatusConfig({ STATUS_SERVICES: `decoder=http://127.0.0.1:${metricsPort}` }));
    expect(direct.services).toEqual([{ name: 'decoder', instance: `127.0.0.1:${metricsPort}`, state: 'error', reasons: [expect.stringMatching(/Kafka has not acknowledged a produce/)] }]);
    // ...and with Prometheus reads what the scrapes saw and the alert (30 s in error before it fires).
    const report = await eventually('TonstreamServiceUnhealthy firing', async () => {
      const r = await viaPrometheus();
      return r.alerts?.some((a) => a.name === 'TonstreamServiceUnhealthy') ? r : undefined;
    }, 90_000, 1_000, alive);
    expect(report.services.find((s) => s.name === 'decoder')?.state).toBe('error');
    expect(report.alerts?.find((a) => a.name === 'TonstreamServiceUnhealthy')?.summary).toBe(`decoder (127.0.0.1:${metricsPort}) reports error on /healthcheck`);

    // The topic back (as the decoder's own start would create it): the produce goes through, health is ok again.
    await ensureTopics(admin, topicSpecs(topics));
    await eventually('health ok again', async () => ((await health()).status === 'ok' ? true : undefined), 120_000, 500, alive);
    // The block's meta record goes out once its records are acknowledged (a produce after the one that
    // stalled, so after health is ok again). Produces are at least once: it may be there twice (the
    // writer stores a block once).
    await eventually('the block meta produced', async () => {
      const [meta] = await admin.fetchTopicOffsets(topics.blockMeta);
      return Number(meta.high) >= 1 ? true : undefined;
    }, 30_000, 200, alive);
  }, 360_000);
});
