/**
 * The fetcher against the real local network and the real Kafka broker: the localnet runs as a
 * child process (its own state dir, any free port, 300 ms rounds, wallet traffic), the fetcher
 * in-process with a unique topic prefix. A first fetcher is stopped mid-stream, a second resumes
 * from the checkpoint; the blocks topic is then read back and checked block by block.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeBlock, parseBoc } from '@tonstream/block';
import type { BlockRecord } from '@tonstream/records';
import { CONSUMER_FETCH, createKafka, decodeRawBlock, type RawBlock, topicNames } from '@tonstream/bus';
import { loadFetcherConfig, type OpenedFetcher, openFetcher } from '@tonstream/fetcher-service';
import { createLogger } from '@tonstream/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const LOCALNET_MAIN = join(ROOT, 'services/localnet/dist/main.js');
const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
/** Masterchain blocks each fetcher publishes before it is stopped. */
const FIRST_RUN_BLOCKS = 8;
const SECOND_RUN_BLOCKS = 8;

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `fetchertest_${runId}.`;
const topics = topicNames(prefix);
const logger = createLogger({ level: 'warn', bindings: { module: 'fetcher-test' } });
let dir: string;
let localnet: ChildProcess;
let localnetLog = '';
let globalConfig: string;

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nlocalnet output:\n${localnetLog.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Rounds the localnet has produced (a line of its ledger each). */
const rounds = () => (existsSync(join(dir, 'ledger.jsonl')) ? readFileSync(join(dir, 'ledger.jsonl'), 'utf8').split('\n').filter(Boolean).length : 0);

function fetcherConfig() {
  return loadFetcherConfig({
    FETCHER_GLOBAL_CONFIG: globalConfig,
    KAFKA_BROKERS,
    KAFKA_TOPIC_PREFIX: prefix,
    FETCHER_START_SEQNO: '1',
    FETCHER_POLL_INTERVAL_MS: '100',
  });
}

beforeAll(async () => {
  if (!existsSync(LOCALNET_MAIN)) throw new Error(`${LOCALNET_MAIN} is missing: run \`npx tsc -b\` first (npm test does)`);
  dir = mkdtempSync(join(tmpdir(), 'tonstream-fetcher-test-'));
  globalConfig = join(dir, 'localnet', 'global.config.json');
  localnet = spawn(process.execPath, [LOCALNET_MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOCALNET_PORT: '0',
      LOCALNET_STATE_DIR: join(dir, 'localnet'),
      LOCALNET_ROUND_MS: '300',
      LOCALNET_TRAFFIC_RATE: '3',
      LOCALNET_LEDGER: join(dir, 'ledger.jsonl'),
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (b: Buffer) => (localnetLog = (localnetLog + b.toString()).slice(-20_000));
  localnet.stdout?.on('data', keep);
  localnet.stderr?.on('data', keep);
  await until('the localnet global config', 60_000, () => {
    if (localnet.exitCode !== null) throw new Error(`localnet exited with ${localnet.exitCode}:\n${localnetLog}`);
    return existsSync(globalConfig);
  });
});

afterAll(async () => {
  if (localnet && localnet.exitCode === null) {
    const exited = new Promise((r) => localnet.once('exit', r));
    localnet.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (localnet.exitCode === null) localnet.kill('SIGKILL');
  }
  const admin = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `fetcher-test-${runId}` }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topics.blocks, topics.checkpoints] }).catch(() => {});
  await admin.disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every message of the blocks topic with its partition and offset. */
async function readBlocks(): Promise<{ key: string; partition: number; offset: bigint; raw: RawBlock }[]> {
  const kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `fetcher-test-${runId}` });
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topics.blocks);
  await admin.disconnect();
  const pending = new Map(offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high) - 1n]));
  const out: { key: string; partition: number; offset: bigint; raw: RawBlock }[] = [];
  const consumer = kafka.consumer({ groupId: `fetcher-test-${runId}`, ...CONSUMER_FETCH });
  await consumer.connect();
  await consumer.subscribe({ topic: topics.blocks, fromBeginning: true });
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      out.push({ key: message.key!.toString(), partition, offset: BigInt(message.offset), raw: decodeRawBlock(message.value!) });
      if (pending.get(partition) !== undefined && BigInt(message.offset) >= pending.get(partition)!) pending.delete(partition);
      if (pending.size === 0) done();
    },
  });
  if (pending.size > 0) await until('the blocks topic to be read', 60_000, () => pending.size === 0);
  await all;
  await consumer.disconnect();
  return out;
}

describe('fetcher on the localnet and Kafka', () => {
  it('publishes every committed block once with verified hashes and account states, and resumes from its checkpoint', async () => {
    // First run: from seqno 1 until FIRST_RUN_BLOCKS masterchain blocks are out, then stopped mid-stream.
    const first: OpenedFetcher = await openFetcher(fetcherConfig(), { logger });
    const run1 = first.fetcher.run();
    await until('the first fetcher to publish', 90_000, () => (first.fetcher.status().publishedSeqno ?? 0) >= FIRST_RUN_BLOCKS);
    expect(first.fetcher.status().plan).toEqual({ from: 1, to: undefined, reason: 'start_seqno' });
    await first.close();
    await run1;
    const stoppedAt = first.fetcher.status();
    expect(stoppedAt.phase).toBe('stopped');
    expect(first.fetcher.health()).toEqual({ status: 'ok', reasons: [] });

    // The chain moves on while no fetcher runs.
    const resumeAt = rounds() + 2;
    await until('the chain two rounds on', 60_000, () => rounds() >= resumeAt);

    // Second run: resumes right after the checkpoint the first one wrote last.
    const second = await openFetcher(fetcherConfig(), { logger });
    const run2 = second.fetcher.run();
    await until('the second fetcher to start', 60_000, () => second.fetcher.status().plan);
    const plan = second.fetcher.status().plan!;
    expect(plan.reason).toBe('checkpoint');
    expect(plan.from).toBeGreaterThanOrEqual(stoppedAt.checkpointSeqno! + 1);
    expect(plan.from).toBeLessThanOrEqual(stoppedAt.checkpointSeqno! + 2);
    const last = await until('the second fetcher to publish', 90_000, () => {
      const p = second.fetcher.status().publishedSeqno ?? 0;
      return p >= plan.from + SECOND_RUN_BLOCKS && p;
    });
    await second.close();
    await run2;

    const messages = await readBlocks();
    const byKey = new Map<string, { raw: RawBlock; rec: BlockRecord; count: number }>();
    for (const m of messages) {
      const { raw } = m;
      expect(m.key).toBe(`${raw.workchain}:${raw.shard}:${raw.seqno}`);
      // Hashes verify: file hash over the bytes, root hash computed from the cells.
      expect(createHash('sha256').update(raw.boc).digest('base64')).toBe(raw.file_hash);
      const decoded = decodeBlock(raw.boc);
      expect(decoded.block.root_hash).toBe(raw.root_hash);
      expect([decoded.block.workchain, decoded.block.shard, decoded.block.seqno]).toEqual([raw.workchain, raw.shard, raw.seqno]);
      // Account states: one per touched account, each hashing to the state its last transaction left.
      expect(raw.account_states.map((a) => a.account)).toEqual(decoded.accounts.map((a) => a.account));
      const after = new Map(decoded.transactions.map((t) => [t.hash, t.account_state_hash_after]));
      for (const a of raw.account_states) {
        const touched = decoded.accounts.find((t) => t.account === a.account)!;
        expect([a.last_trans_lt, a.last_trans_hash]).toEqual([touched.last_trans_lt, touched.last_trans_hash]);
        if (a.boc.length > 0) {
          const cells = parseBoc(a.boc);
          expect(Buffer.from(cells.hash(cells.roots[0])).toString('base64')).toBe(after.get(a.last_trans_hash));
        }
      }
      const seen = byKey.get(m.key);
      if (seen) {
        expect(Buffer.compare(seen.raw.boc, raw.boc)).toBe(0);
        seen.count++;
      } else byKey.set(m.key, { raw, rec: decoded.block, count: 1 });
    }

    // Masterchain blocks 1..last, each once, except the one the first run may have sent unconfirmed.
    const mc = [...byKey.values()].filter((b) => b.raw.workchain === -1).sort((a, b) => a.raw.seqno - b.raw.seqno);
    expect(mc.map((b) => b.raw.seqno)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    const dups = [...byKey.values()].filter((b) => b.count > 1);
    for (const d of dups) expect(d.raw.mc_seqno, `duplicate ${d.raw.workchain}:${d.raw.shard}:${d.raw.seqno}`).toBe(plan.from);
    expect(dups.every((d) => d.count === 2)).toBe(true);

    // No gaps: every block's parents were published too (seqno 0 is the zero state), and every
    // shard top a masterchain block lists was published by then.
    const shardBlocks = [...byKey.values()].filter((b) => b.raw.workchain !== -1);
    expect(shardBlocks.length).toBeGreaterThanOrEqual(2 * last);
    for (const b of [...shardBlocks, ...mc]) {
      for (const p of b.rec.prev_refs) {
        if (p.seqno === 0) continue;
        const parent = byKey.get(`${p.workchain}:${p.shard}:${p.seqno}`);
        expect(parent, `parent ${p.workchain}:${p.shard}:${p.seqno} of ${b.raw.workchain}:${b.raw.shard}:${b.raw.seqno}`).toBeDefined();
        expect(parent!.raw.root_hash).toBe(p.root_hash);
        expect(parent!.raw.mc_seqno).toBeLessThanOrEqual(b.raw.mc_seqno);
      }
    }
    for (const m of mc) {
      const tops = decodeBlock(m.raw.boc).shards;
      expect(tops.length).toBeGreaterThan(0);
      for (const t of tops) {
        const top = byKey.get(`${t.workchain}:${t.shard}:${t.seqno}`);
        expect(top?.raw.root_hash, `top ${t.shard}:${t.seqno} of mc ${m.raw.seqno}`).toBe(t.root_hash);
        expect(top!.raw.mc_seqno).toBeLessThanOrEqual(m.raw.seqno);
      }
      expect(m.raw.mc_seqno).toBe(m.raw.seqno);
    }

    // Per partition, masterchain order: mc_seqno never goes down (the resumed block may repeat).
    const partitions = new Map<number, number[]>();
    for (const m of [...messages].sort((a, b) => (a.offset < b.offset ? -1 : 1))) partitions.set(m.partition, [...(partitions.get(m.partition) ?? []), m.raw.mc_seqno]);
    for (const seqnos of partitions.values()) expect(seqnos).toEqual([...seqnos].sort((a, b) => a - b));

    // Traffic made real account states.
    const states = messages.flatMap((m) => m.raw.account_states);
    expect(states.filter((s) => s.boc.length > 0).length).toBeGreaterThan(10);
  });
});
