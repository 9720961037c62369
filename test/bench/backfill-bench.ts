/**
 * `npm run --silent bench:backfill`: how fast `npm run backfill` fills history, and how it scales with
 * lanes (issue 29). Prints one JSON line.
 *
 * The local network (services/localnet as a process, traffic BENCH_TRAFFIC_RATE actions a round, rounds
 * as fast as the machine makes them) makes BENCH_HISTORY_ROUNDS rounds of history H plus the lanes'
 * overlap, then rests (LOCALNET_STOP_AT_SEQNO): the backfill's fetchers read a chain that no longer
 * moves, as an archive node's old blocks. It keeps every block and every account state of them
 * (LOCALNET_KEEP_ROUNDS, LOCALNET_KEEP_STATE_ROUNDS), so the fetchers publish blocks with their states,
 * as from an archive node. Then, for each lane count of BENCH_LANES (default 1, 2, 4), one after the
 * other, `services/backfill/dist/main.js --from 1 --to H --lanes N` runs as a process into a database
 * and a topic prefix of its own (migrated first: a backfill fills an existing index; there is no live
 * index, so its history floor is null and the backfill only warns that it cannot lower it).
 *
 * Per run: `seconds` and `tx_per_s` as the backfill's own summary gives them (from its start to the
 * last lane's gap check, processes' start included), `mc_blocks_per_s` = H / seconds, and `fill_*`
 * over the window from the first to the last receipt the lanes' writers stored (the processes'
 * start-up and the gap check left out). Transactions are checked against the chain's ledger
 * (LOCALNET_LEDGER, an oracle other than the index): `transactions_stored` counts the distinct rows in
 * ClickHouse for seqnos 1..H; `rows_per_tx` the rows of every table of the database per transaction it
 * holds (what ClickHouse inserts per transaction, to size it). The 1-lane run is the baseline: `scaling` gives each run's tx/s over it.
 * Load average and core count are on the line: the lanes share this machine's cores with the
 * localnet (at rest, it still answers the liteserver queries), Kafka, ClickHouse and Redis.
 *
 * A run that fails (exit code, timeout) keeps its place on the line with `error` and the tail of each
 * lane's logs on stderr, and the log folder is kept; the bench then exits 1. BENCH_KEEP=1 keeps the
 * databases and the log folder. `cpu_s`: CPU seconds of the backfill and its lanes' processes (not of
 * Kafka, ClickHouse, Redis or the localnet), and `tx_per_cpu_s` what a core gives per lane's work.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, migrate } from '@tonstream/store';
import { Redis } from 'ioredis';
import { dropDatabase } from '../support/clickhouse.js';
import { readLedger } from '../support/ledger.js';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';

/** Masterchain seqnos backfilled (1..H). 120 rounds at 40 actions: about 13,000 transactions. */
const H = Number(process.env.BENCH_HISTORY_ROUNDS ?? 120);
/** Each lane fetches and traces this far past its range (the backfill's default, 16): the chain goes on that far past H. */
const OVERLAP = Number(process.env.BENCH_OVERLAP ?? 16);
const LANES = (process.env.BENCH_LANES ?? '1,2,4').split(',').map(Number);
const TRAFFIC = Number(process.env.BENCH_TRAFFIC_RATE ?? 40);
/** The chain makes rounds as fast as it can: a round takes longer than this on 2 cores. */
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 100);
const CHAIN_TIMEOUT_MS = Number(process.env.BENCH_CHAIN_TIMEOUT_MS ?? 1_800_000);
const RUN_TIMEOUT_MS = Number(process.env.BENCH_RUN_TIMEOUT_MS ?? 1_800_000);
const KEEP = process.env.BENCH_KEEP === '1';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

type Summary = {
  seconds: number;
  transactions: number;
  tx_per_s: number;
  floor: number | null;
  holes: number[];
  lane_results: { from: number; to: number; transactions: number; seconds: number; restarts: Record<string, number>; skipped: boolean }[];
};

type Run = {
  lanes: number;
  seconds?: number;
  wall_seconds?: number;
  transactions?: number;
  tx_per_s?: number;
  mc_blocks_per_s?: number;
  fill_seconds?: number;
  fill_tx_per_s?: number;
  fill_mc_blocks_per_s?: number;
  transactions_stored?: number;
  matches_ledger?: boolean;
  holes?: number[];
  floor?: number | null;
  lane_seconds?: number[];
  /** CPU seconds of the backfill and its lanes' processes; tx per CPU second. */
  cpu_s?: number;
  tx_per_cpu_s?: number;
  /** Rows in the database's tables (every table, views' included, as its parts stand) per transaction it holds: what ClickHouse takes per transaction. */
  rows_per_tx?: number;
  restarts?: Record<string, number>;
  loadavg_1m?: { before: number; after: number };
  error?: string;
};

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * CPU seconds of this process's children that have exited and been waited for, with theirs
 * (/proc/self/stat cutime + cstime, in clock ticks of 1/100 s on Linux): the delta over a run is what
 * the backfill process and its lanes' processes used (not the servers, nor the localnet, still running).
 */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
const round2 = (n: number) => Math.round(n * 100) / 100;

/** The backfill's JSON summary: the one stdout line that parses and has tx_per_s (its logs are JSON too, on stderr). */
function summaryOf(output: string): Summary | undefined {
  for (const line of output.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const v = JSON.parse(line) as Partial<Summary>;
      if (typeof v.tx_per_s === 'number' && Array.isArray(v.lane_results)) return v as Summary;
    } catch {
      // a partial line
    }
  }
  return undefined;
}

/** The last lines of every log file of the lanes' processes (`<log dir>/<lane prefix>/<service>.log`). */
function laneLogTails(logDir: string, lines = 15): string {
  if (!existsSync(logDir)) return `(no lane logs in ${logDir})`;
  const out: string[] = [];
  for (const lane of readdirSync(logDir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const file of readdirSync(join(logDir, lane.name)).filter((f) => f.endsWith('.log'))) {
      const text = readFileSync(join(logDir, lane.name, file), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      out.push(`--- ${lane.name}/${file}\n${text}`);
    }
  }
  return out.join('\n');
}

/**
 * SIGKILLs the lanes' processes a backfill left running (it was stopped at a timeout: a backfill ends
 * its lanes when it finishes, not on SIGTERM), by the pid files it keeps per lane
 * (`<log dir>/<lane prefix>/pids`), each only while it still runs a service's main.js.
 */
function stopLaneLeftovers(logDir: string): void {
  if (!existsSync(logDir)) return;
  for (const lane of readdirSync(logDir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const pidFile = join(logDir, lane.name, 'pids');
    if (!existsSync(pidFile)) continue;
    for (const pid of readFileSync(pidFile, 'utf8').split('\n').map(Number).filter((n) => n > 0)) {
      try {
        if (!/services\/\w+\/dist\/main\.js/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) continue;
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

async function main(): Promise<void> {
  const run = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `tonstream-backfill-bench-${run}-`));
  const ledgerPath = join(dir, 'ledger.jsonl');
  const logs = join(dir, 'logs');
  const globalConfig = join(dir, 'localnet', 'global.config.json');
  const procs: ServiceProcess[] = [];
  const databases: string[] = [];
  const prefixes: string[] = [];
  let failed = false;
  try {
    const top = H + OVERLAP;
    const localnet = startService(
      'localnet',
      {
        LOG_LEVEL: 'info',
        METRICS_PORT: String(await freePort()),
        LOCALNET_PORT: String(await freePort()),
        LOCALNET_STATE_DIR: join(dir, 'localnet'),
        LOCALNET_ROUND_MS: String(ROUND_MS),
        LOCALNET_TRAFFIC_RATE: String(TRAFFIC),
        LOCALNET_SEED: `backfill-bench-${run}`,
        LOCALNET_LEDGER: ledgerPath,
        LOCALNET_STOP_AT_SEQNO: String(top),
        LOCALNET_KEEP_ROUNDS: String(Math.max(256, top + 1)),
        LOCALNET_KEEP_STATE_ROUNDS: String(top + 1),
      },
      logs,
      ['--reset'],
    );
    procs.push(localnet);
    await localnet.waitFor(/localnet serving/);
    const chainStarted = Date.now();
    process.stderr.write(`backfill bench: the local network makes ${top} rounds (traffic ${TRAFFIC}) ...\n`);
    await localnet.waitFor(/LOCALNET_STOP_AT_SEQNO reached/, CHAIN_TIMEOUT_MS);
    const chainSeconds = (Date.now() - chainStarted) / 1000;
    const ledger = readLedger(ledgerPath).filter((r) => r.mc_seqno >= 1 && r.mc_seqno <= H);
    if (ledger.length !== H) throw new Error(`the ledger has ${ledger.length} rounds of 1..${H}`);
    const expected = ledger.reduce((n, r) => n + r.blocks.reduce((m, b) => m + b.transactions.length, 0), 0);
    const blocks = ledger.reduce((n, r) => n + r.blocks.length, 0);
    process.stderr.write(`backfill bench: ${H} rounds, ${blocks} blocks, ${expected} transactions in ${Math.round(chainSeconds)} s; backfilling 1..${H} with ${LANES.join(', ')} lanes\n`);

    const runs: Run[] = [];
    for (const lanes of LANES) {
      const database = `tonstream_bench_backfill_${run}_${lanes}`;
      const prefix = `bfbench${run}l${lanes}.`;
      databases.push(database);
      prefixes.push(prefix);
      const store = createStore({ url: CLICKHOUSE_URL, database });
      const result: Run = { lanes };
      runs.push(result);
      const laneLogs = join(logs, `lanes-${lanes}`);
      try {
        await migrate(store);
        const before = loadavg()[0];
        const cpuBefore = childrenCpuSeconds();
        const started = Date.now();
        const backfill = startService(
          'backfill',
          {
            KAFKA_BROKERS,
            CLICKHOUSE_URL,
            CLICKHOUSE_DATABASE: database,
            REDIS_URL,
            KAFKA_TOPIC_PREFIX: prefix,
            FETCHER_GLOBAL_CONFIG: globalConfig,
            LOG_LEVEL: 'info',
          },
          join(logs, `backfill-${lanes}`),
          ['--from', '1', '--to', String(H), '--lanes', String(lanes), '--overlap', String(OVERLAP), '--log-dir', laneLogs],
        );
        procs.push(backfill);
        const code = await new Promise<number | null | 'timeout'>((resolve) => {
          const timer = setTimeout(() => resolve('timeout'), RUN_TIMEOUT_MS);
          backfill.child.once('close', (c) => {
            clearTimeout(timer);
            resolve(c);
          });
        });
        const wall = (Date.now() - started) / 1000;
        if (code === 'timeout') {
          await backfill.stop();
          stopLaneLeftovers(laneLogs);
        }
        result.wall_seconds = round1(wall);
        result.cpu_s = round1(childrenCpuSeconds() - cpuBefore);
        result.loadavg_1m = { before: round2(before), after: round2(loadavg()[0]) };
        const summary = summaryOf(backfill.output());
        if (code !== 0 || !summary) {
          result.error = code === 'timeout' ? `no exit within ${RUN_TIMEOUT_MS} ms` : `exit code ${code}${summary ? '' : ', no summary'}`;
          process.stderr.write(`backfill bench: ${lanes} lanes failed (${result.error}); backfill output:\n${backfill.output().slice(-4000)}\nlane logs (${laneLogs}):\n${laneLogTails(laneLogs)}\n`);
          failed = true;
        }
        if (summary) {
          result.seconds = round1(summary.seconds);
          result.transactions = summary.transactions;
          result.tx_per_s = Math.round(summary.transactions / summary.seconds);
          result.mc_blocks_per_s = round1(H / summary.seconds);
          result.holes = summary.holes;
          result.floor = summary.floor;
          result.lane_seconds = summary.lane_results.map((l) => round1(l.seconds));
          const restarts: Record<string, number> = {};
          for (const l of summary.lane_results) for (const [s, n] of Object.entries(l.restarts)) restarts[s] = (restarts[s] ?? 0) + n;
          result.restarts = restarts;
        }
        const [stored] = await store.query<{ n: string }>(`SELECT uniqExact(mc_block_seqno, lt, account) AS n FROM ${database}.transactions_by_mc_seqno WHERE mc_block_seqno >= 1 AND mc_block_seqno <= ${H}`);
        result.transactions_stored = Number(stored?.n ?? 0);
        if (result.cpu_s) result.tx_per_cpu_s = Math.round(result.transactions_stored / result.cpu_s);
        result.matches_ledger = result.transactions_stored === expected && (result.transactions === undefined || result.transactions === expected);
        if (!result.matches_ledger) {
          failed = true;
          result.error ??= `${result.transactions_stored} transactions stored (summary ${result.transactions}), the ledger has ${expected}`;
        }
        const [window] = await store.query<{ first: string; last: string }>(`SELECT min(written_ms) AS first, max(written_ms) AS last FROM ${database}.index_receipts WHERE mc_seqno >= 1 AND mc_seqno <= ${H}`);
        const fill = (Number(window?.last ?? 0) - Number(window?.first ?? 0)) / 1000;
        if (fill > 0) {
          result.fill_seconds = round1(fill);
          result.fill_tx_per_s = Math.round(result.transactions_stored / fill);
          result.fill_mc_blocks_per_s = round1(H / fill);
        }
        const [rows] = await store.query<{ n: string }>(`SELECT sum(rows) AS n FROM system.parts WHERE database = '${database}' AND active`);
        const [all] = await store.query<{ n: string }>(`SELECT uniqExact(mc_block_seqno, lt, account) AS n FROM ${database}.transactions_by_mc_seqno`);
        if (Number(all?.n) > 0) result.rows_per_tx = round1(Number(rows?.n ?? 0) / Number(all.n));
        process.stderr.write(`backfill bench: ${JSON.stringify(result)}\n`);
      } catch (err) {
        failed = true;
        result.error = (err as Error).message;
        process.stderr.write(`backfill bench: ${lanes} lanes: ${(err as Error).stack}\nlane logs (${laneLogs}):\n${laneLogTails(laneLogs)}\n`);
      } finally {
        await store.close();
      }
    }

    const base = runs.find((r) => r.lanes === 1 && r.tx_per_s !== undefined);
    const ratio = (r: Run, key: 'tx_per_s' | 'fill_tx_per_s') => (base?.[key] && r[key] !== undefined ? round2(r[key]! / base[key]!) : null);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'backfill',
        history_mc_blocks: H,
        blocks,
        transactions: expected,
        traffic_rate: TRAFFIC,
        overlap: OVERLAP,
        chain_seconds: round1(chainSeconds),
        runs,
        scaling: Object.fromEntries(
          runs.filter((r) => r.lanes !== 1).map((r) => [`lanes_${r.lanes}_over_1`, { tx_per_s: ratio(r, 'tx_per_s'), fill_tx_per_s: ratio(r, 'fill_tx_per_s') }]),
        ),
        per_lane_tx_per_s: Object.fromEntries(runs.filter((r) => r.tx_per_s !== undefined).map((r) => [`lanes_${r.lanes}`, Math.round(r.tx_per_s! / r.lanes)])),
        cores: cpus().length,
        note: 'seconds/tx_per_s: the backfill command from start to the last gap check (process start-up included); fill_*: first to last receipt stored; lanes share the cores with the localnet, Kafka, ClickHouse and Redis',
      })}\n`,
    );
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    if (!KEEP) {
      for (const database of databases) await dropDatabase(CLICKHOUSE_URL, database).catch(() => undefined);
      // The lanes' tracers keep their state in Redis under their topic prefix (which extends the run's).
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        for (const prefix of prefixes) {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
        }
      } catch {
        // Redis away: nothing the bench measured depends on it
      } finally {
        redis.disconnect();
      }
      if (failed) process.stderr.write(`backfill bench: logs kept in ${logs}\n`);
      else rmSync(dir, { recursive: true, force: true });
    } else process.stderr.write(`backfill bench: kept ${databases.join(', ')} and ${dir}\n`);
  }
  if (failed) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
