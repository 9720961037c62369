/**
 * `npm run --silent bench:freshness`: how long after a block appears at the liteserver its
 * transactions are readable in ClickHouse, on the local network with the real processes
 * (localnet -> fetcher -> Kafka -> decoder -> writer -> ClickHouse). Prints one JSON line.
 *
 * A round's blocks appear at the liteserver when the localnet records the round in its ledger
 * (`produced_at_ms`, right after the round is committed). A round is readable once ClickHouse
 * answers with as many transactions for its masterchain seqno as the ledger lists. ClickHouse is
 * polled every POLL_MS, which bounds the resolution. A round is indexed once the watermark (what the
 * API serves as the last block) reaches it: `indexed_*` figures. The first WARMUP_ROUNDS are not counted
 * (consumer groups join, topics are created). Needs Kafka and ClickHouse up (`npm run services -- up`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, readWatermark } from '@tonstream/store';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1000);
const TRAFFIC = Number(process.env.BENCH_TRAFFIC_RATE ?? 20);
const POLL_MS = 25;
const WARMUP_ROUNDS = 5;

type LedgerRound = { mc_seqno: number; produced_at_ms: number; blocks: { transactions: unknown[] }[] };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const run = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `tonstream-freshness-${run}-`));
  const ledgerPath = join(dir, 'ledger.jsonl');
  const database = `tonstream_fresh_${run}`;
  const clickhouseUrl = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
  const env = {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    CLICKHOUSE_URL: clickhouseUrl,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: `fresh${run}.`,
    FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'warn',
  };
  const logs = join(dir, 'logs');
  const procs: ServiceProcess[] = [];
  const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
    const p = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, logs, args);
    procs.push(p);
    return p;
  };
  const store = createStore({ url: clickhouseUrl, database });
  try {
    const localnet = await start(
      'localnet',
      {
        LOG_LEVEL: 'info',
        LOCALNET_PORT: String(await freePort()),
        LOCALNET_STATE_DIR: join(dir, 'localnet'),
        LOCALNET_ROUND_MS: String(ROUND_MS),
        LOCALNET_TRAFFIC_RATE: String(TRAFFIC),
        LOCALNET_SEED: `fresh-${run}`,
        LOCALNET_LEDGER: ledgerPath,
      },
      ['--reset'],
    );
    await localnet.waitFor(/localnet serving/);
    await start('writer');
    await start('decoder');
    await start('fetcher');

    const readableAt = new Map<number, number>();
    const indexedAt = new Map<number, number>();
    const deadline = Date.now() + SECONDS * 1000;
    let rounds: LedgerRound[] = [];
    while (Date.now() < deadline) {
      for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${p.name} exited:\n${p.output().slice(-2000)}`);
      if (existsSync(ledgerPath)) rounds = readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
      const pending = rounds.filter((r) => !readableAt.has(r.mc_seqno));
      if (pending.length > 0) {
        const counts = await store
          .query<{ s: number; c: string }>(
            `SELECT mc_block_seqno AS s, count() AS c FROM ${database}.transactions_by_mc_seqno WHERE mc_block_seqno >= ${pending[0].mc_seqno} GROUP BY mc_block_seqno`,
          )
          .catch(() => []);
        const now = Date.now();
        const byRound = new Map(counts.map((c) => [Number(c.s), Number(c.c)]));
        for (const r of pending) {
          const expected = r.blocks.reduce((n, b) => n + b.transactions.length, 0);
          if ((byRound.get(r.mc_seqno) ?? 0) >= expected) readableAt.set(r.mc_seqno, now);
        }
      }
      const watermark = await readWatermark(store).catch(() => null);
      for (const r of rounds) if (watermark && r.mc_seqno <= watermark.mc_seqno && !indexedAt.has(r.mc_seqno)) indexedAt.set(r.mc_seqno, Date.now());
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const since = (at: Map<number, number>) =>
      rounds
        .filter((r) => r.mc_seqno > WARMUP_ROUNDS && at.has(r.mc_seqno))
        .map((r) => at.get(r.mc_seqno)! - r.produced_at_ms)
        .sort((a, b) => a - b);
    const indexed = since(indexedAt);
    const latencies = since(readableAt);
    if (latencies.length < 10) throw new Error(`only ${latencies.length} rounds became readable; logs in ${logs}`);
    const txs = rounds.reduce((n, r) => n + r.blocks.reduce((m, b) => m + b.transactions.length, 0), 0);
    process.stdout.write(
      JSON.stringify({
        bench: 'freshness',
        seconds: SECONDS,
        round_ms: ROUND_MS,
        traffic_rate: TRAFFIC,
        rounds_measured: latencies.length,
        rounds_not_yet_readable: rounds.filter((r) => r.mc_seqno > WARMUP_ROUNDS && !readableAt.has(r.mc_seqno)).length,
        transactions: txs,
        p50_ms: percentile(latencies, 50),
        p95_ms: percentile(latencies, 95),
        max_ms: latencies[latencies.length - 1],
        indexed_rounds: indexed.length,
        indexed_p50_ms: percentile(indexed, 50),
        indexed_p95_ms: percentile(indexed, 95),
        indexed_max_ms: indexed[indexed.length - 1],
        poll_ms: POLL_MS,
        target_p95_ms: 1000,
      }) + '\n',
    );
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
