/**
 * `npm run --silent bench:pending`: how fast an external becomes a readable pending trace, on the
 * local network with the real processes (localnet liteserver, Kafka, the emulator service, Redis).
 * Prints one JSON line.
 *
 * - api: one wallet transfer at a time is sent with `POST /api/v3/message` to the API process (which
 *   sends it to the liteserver and publishes it) and Redis is polled (every POLL_MS) until its trace
 *   key exists: POST -> readable, p50/p95 over BENCH_TRANSFERS. These transfers go to the chain, so
 *   each wallet sends its next one only once the previous has landed (localnet ledger) and the
 *   emulator's head cache has moved past it; the six prefunded wallets take turns.
 * - latency: one wallet transfer at a time is published to ton.pending_externals and Redis is polled
 *   until its trace key exists: publish -> readable, p50/p95 over BENCH_TRANSFERS.
 * - throughput: BENCH_BURST transfers published at once; emulations per second until all are readable.
 * - baseline: the same emulation in this process (createTraceEmulator over the same liteserver, no
 *   Kafka, no Redis): the floor the service adds its transport to.
 * Outside the api part, transfers come from the localnet's prefunded wallets, each signed with seqno
 * 0 and a unique comment, and are never sent to the chain (so every one stays emulatable). The
 * per-destination admission rate is lifted for the run. Needs Kafka and Redis (`npm run services -- up`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, external, internal, SendMode, storeMessage } from '@ton/core';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { Executor } from '@ton/sandbox';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { createKafka, pendingExternal, topicNames } from '@tonstream/bus';
import { createLiteState, createTraceEmulator, HEAD_TTL_MS } from '@tonstream/emulation';
import { connectLitePool, createLiteReads } from '@tonstream/lite-client';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS } from '@tonstream/localnet';
import { hasPendingTrace, pendingKeys } from '@tonstream/store';
import { Redis } from 'ioredis';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 200);
const BURST = Number(process.env.BENCH_BURST ?? 200);
const BASELINE = Number(process.env.BENCH_BASELINE ?? 50);
const WARMUP = 10;
const POLL_MS = 2;
const ROUND_MS = 1_000;

type Signer = { contract: WalletContractV4 | WalletContractV5R1; secretKey: Buffer };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function transfer(s: Signer, n: number, seqno = 0): Buffer {
  const args = {
    seqno,
    secretKey: s.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
    messages: [internal({ to: Address.parseRaw(PREFUNDED_WALLETS[0].address), value: 1_000_000n, bounce: false, body: `bench ${n} ${randomBytes(4).toString('hex')}` })],
  };
  const body = s.contract instanceof WalletContractV4 ? s.contract.createTransfer(args) : s.contract.createTransfer(args);
  return beginCell().store(storeMessage(external({ to: s.contract.address, body }))).endCell().toBoc();
}

async function until(ready: () => Promise<boolean>, deadline: number, what: string): Promise<void> {
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what} not ready in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  const run = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `tonstream-pending-bench-${run}-`));
  const logs = join(dir, 'logs');
  const globalConfig = join(dir, 'localnet', 'global.config.json');
  const ledgerPath = join(dir, 'ledger.jsonl');
  const prefix = `bench${run}:`;
  const topics = topicNames(`pbench${run}.`);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const procs: ServiceProcess[] = [];
  const redis = new Redis(redisUrl);
  const kafka = createKafka({ brokers: [process.env.KAFKA_BROKERS ?? '127.0.0.1:9092'], clientId: `pending-bench-${run}` });
  const producer = kafka.producer();
  const keys = pendingKeys(prefix);
  try {
    const localnet = startService(
      'localnet',
      { LOG_LEVEL: 'info', LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `bench-${run}`, LOCALNET_LEDGER: ledgerPath, METRICS_PORT: String(await freePort()) },
      logs,
      ['--reset'],
    );
    procs.push(localnet);
    await localnet.waitFor(/localnet serving/);
    const emulator = startService(
      'emulator',
      {
        KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
        KAFKA_TOPIC_PREFIX: `pbench${run}.`,
        REDIS_URL: redisUrl,
        PENDING_REDIS_PREFIX: prefix,
        EMULATOR_GLOBAL_CONFIG: globalConfig,
        EMULATOR_RATE_PER_DESTINATION: '1000000',
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
      },
      logs,
    );
    procs.push(emulator);
    await emulator.waitFor(/emulator consuming/, 60_000);
    const apiPort = await freePort();
    const api = startService(
      'api',
      {
        API_HOST: '127.0.0.1',
        API_PORT: String(apiPort),
        API_GLOBAL_CONFIG: globalConfig,
        KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
        KAFKA_TOPIC_PREFIX: `pbench${run}.`,
        REDIS_URL: redisUrl,
        PENDING_REDIS_PREFIX: prefix,
        LOG_LEVEL: 'warn',
      },
      logs,
    );
    procs.push(api);
    const apiBase = `http://127.0.0.1:${apiPort}`;
    await until(async () => (await fetch(`${apiBase}/api/v2/getMasterchainInfo`).catch(() => undefined))?.ok === true, Date.now() + 60_000, 'the API');
    await producer.connect();

    const signers: Signer[] = [];
    for (const w of PREFUNDED_WALLETS) {
      const { secretKey } = await mnemonicToPrivateKey(w.mnemonic.split(' '));
      const publicKey = Buffer.from(w.publicKey, 'hex');
      signers.push({ contract: w.version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey }), secretKey });
    }
    const bocs = (n: number, from: number) => Array.from({ length: n }, (_, i) => transfer(signers[(from + i) % signers.length], from + i));
    const send = (list: Buffer[]) =>
      producer.send({ topic: topics.pendingExternals, messages: list.map((b) => { const { destination, ...v } = pendingExternal(b); return { key: destination, value: JSON.stringify(v) }; }) });
    const readable = async (norm: string, deadline: number) => {
      while (!(await hasPendingTrace(redis, keys, norm))) {
        if (Date.now() > deadline) throw new Error(`pending trace ${norm} not readable in time`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    };

    // Latency, one at a time (after a warm-up: consumer fetch, caches, the executor's config).
    const latencies: number[] = [];
    const single = bocs(WARMUP + TRANSFERS, 0);
    for (const [i, boc] of single.entries()) {
      const norm = pendingExternal(boc).hash_norm;
      const t0 = performance.now();
      await send([boc]);
      await readable(norm, Date.now() + 30_000);
      if (i >= WARMUP) latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);

    // Throughput: a burst.
    const burst = bocs(BURST, 100_000);
    const norms = burst.map((b) => pendingExternal(b).hash_norm);
    const b0 = performance.now();
    await send(burst);
    for (const n of norms) await readable(n, Date.now() + 120_000);
    const burstMs = performance.now() - b0;

    // Baseline: emulation alone, in this process, on the same liteserver.
    const lite = createLiteReads(await connectLitePool(readGlobalConfig(readFileSync(globalConfig, 'utf8')).slice(0, 1)));
    const emulate = createTraceEmulator({ state: createLiteState({ lite }), executor: await Executor.create() });
    const base: number[] = [];
    const baseBocs = bocs(WARMUP + BASELINE, 200_000);
    const base0 = performance.now();
    for (const [i, boc] of baseBocs.entries()) {
      const t0 = performance.now();
      const out = await emulate.emulate(boc);
      if (out.kind !== 'emulated') throw new Error(`baseline emulation rejected: ${out.reason}`);
      if (i >= WARMUP) base.push(performance.now() - t0);
    }
    const baseTotalMs = performance.now() - base0;
    lite.close();
    base.sort((a, b) => a - b);

    // POST /api/v3/message -> readable, last: these transfers move the wallets' seqnos. Each wallet's next transfer waits for its previous one on
    // chain plus the emulator's head cache, so it is emulated against the seqno it was signed for.
    const landed = (hash: string) => existsSync(ledgerPath) && readFileSync(ledgerPath, 'utf8').includes(`"in_msg":"${hash}"`);
    // A round that runs the transfer before the emulator reads the wallet makes the emulation see the
    // used seqno and refuse it: such a transfer never becomes readable and is counted, not timed.
    const readableOrLanded = async (norm: string, hash: string): Promise<boolean> => {
      const deadline = Date.now() + 30_000;
      let landedAt: number | undefined;
      for (let polls = 0; !(await hasPendingTrace(redis, keys, norm)); polls++) {
        if (Date.now() > deadline) throw new Error(`pending trace ${norm} not readable in time`);
        if (landedAt === undefined && polls % 25 === 0 && landed(hash)) landedAt = Date.now();
        if (landedAt !== undefined && Date.now() - landedAt > 1_000) return false;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      return true;
    };
    const lastSent = new Map<number, string>();
    const viaApi: number[] = [];
    let landedFirst = 0;
    for (let i = 0; i < WARMUP + TRANSFERS; i++) {
      const w = i % signers.length;
      const previous = lastSent.get(w);
      if (previous) {
        await until(async () => landed(previous), Date.now() + 30_000, `transfer ${previous} on chain`);
        await new Promise((r) => setTimeout(r, HEAD_TTL_MS + 50));
      }
      const boc = transfer(signers[w], i, Math.floor(i / signers.length));
      const { hash, hash_norm } = pendingExternal(boc);
      const t0 = performance.now();
      const res = await fetch(`${apiBase}/api/v3/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boc: boc.toString('base64') }) });
      if (res.status !== 200) throw new Error(`POST /api/v3/message answered ${res.status}: ${await res.text()}`);
      const ms = (await readableOrLanded(hash_norm, hash)) ? performance.now() - t0 : undefined;
      if (ms === undefined) landedFirst++;
      else if (i >= WARMUP) viaApi.push(ms);
      lastSent.set(w, hash);
    }
    viaApi.sort((a, b) => a - b);

    console.log(
      JSON.stringify({
        bench: 'pending',
        transfers: TRANSFERS,
        api_message_to_readable_ms: { p50: round1(percentile(viaApi, 50)), p95: round1(percentile(viaApi, 95)), max: round1(viaApi[viaApi.length - 1]), timed: viaApi.length, landed_before_emulation: landedFirst },
        publish_to_readable_ms: { p50: round1(percentile(latencies, 50)), p95: round1(percentile(latencies, 95)), max: round1(latencies[latencies.length - 1]) },
        burst: { externals: BURST, seconds: round1(burstMs / 1000), emulations_per_second: round1((BURST * 1000) / burstMs) },
        baseline_in_process_emulation_ms: { p50: round1(percentile(base, 50)), p95: round1(percentile(base, 95)), emulations_per_second: round1(((BASELINE + WARMUP) * 1000) / baseTotalMs) },
        poll_ms: POLL_MS,
      }),
    );
  } finally {
    await producer.disconnect().catch(() => {});
    await Promise.all(procs.map((p) => p.stop()));
    const left = await redis.keys(`${prefix}*`);
    if (left.length > 0) await redis.del(...left);
    redis.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
