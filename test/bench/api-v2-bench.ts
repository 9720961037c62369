/**
 * `npm run --silent bench:api:v2`: v2 API latency and throughput on the local network. Prints one JSON
 * line.
 *
 * The whole stack runs as processes (localnet -> fetcher -> decoder -> writer -> api, see
 * test/integration/api-v2-stack.ts) with wallet traffic. Once BENCH_ROUNDS masterchain blocks are
 * indexed, each method gets BENCH_CONNECTIONS keep-alive connections for BENCH_SECONDS (after
 * BENCH_WARMUP_SECONDS not counted), every request to a random account that has transacted:
 * - getAddressInformation: the liteserver (getMasterchainInfoExt + getAccountState);
 * - getTransactions (limit 10): the index (ClickHouse, watermark-bounded), plus the raw BoCs from
 *   the liteserver (getTransactions, up to 16 per query);
 * - runGetMethod (`seqno` on wallets): the liteserver (getMasterchainInfoExt + runSmcMethod);
 * - baseline_v3_transactions: the same index page through /api/v3/transactions, to tell the index's
 *   share of getTransactions from the liteserver's.
 * The liteserver-backed figures are bounded by the local network's emulated liteserver (one Node
 * process also producing blocks) and ton-lite-client's pure-JS AES on one ADNL connection.
 */
import { loadavg } from 'node:os';
import { startV2Stack } from '../integration/api-v2-stack.js';
import { loadGenerator, type LoadOptions, type LoadRequest, type LoadResult, runLoad } from './http-load.js';

const LOAD: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 64),
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** The first target for the index-backed methods. */
const TARGET_P99_MS = 50;
const ONLY = process.env.BENCH_METHODS?.split(',');

const log = (line: string) => process.stderr.write(`bench:api:v2: ${line}\n`);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)];

async function main(): Promise<void> {
  log('starting localnet, fetcher, decoder, writer and api');
  const stack = await startV2Stack('bench-api-v2', { trafficRate: Number(process.env.BENCH_TRAFFIC_RATE ?? 8) });
  try {
    await stack.indexedAt(ROUNDS, 180_000);
    const txs = stack.ledger().flatMap((r) => r.blocks.flatMap((b) => b.transactions));
    const accounts = [...new Set(txs.filter((t) => t.account.startsWith('0:')).map((t) => t.account))];
    const wallets = (await stack.store.query<{ account: string }>(
      `SELECT account FROM ${stack.database}.account_states_latest FINAL WHERE code_hash IN ('/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=', 'IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=')`,
    )).map((r) => r.account);
    log(`${accounts.length} accounts, ${wallets.length} wallets, ${txs.length} transactions at mc ${await stack.indexedAt(ROUNDS)}`);
    const methods: { name: string; source: string; next: () => LoadRequest }[] = [
      { name: 'getAddressInformation', source: 'liteserver', next: () => ({ path: `/api/v2/getAddressInformation?address=${pick(accounts)}` }) },
      { name: 'getTransactions', source: 'index+liteserver', next: () => ({ path: `/api/v2/getTransactions?address=${pick(accounts)}&limit=10` }) },
      {
        name: 'runGetMethod',
        source: 'liteserver',
        next: () => ({ path: '/api/v2/runGetMethod', method: 'POST', body: JSON.stringify({ address: pick(wallets), method: 'seqno', stack: [] }) }),
      },
      // Baseline from the same run: the same index page through v3 (no liteserver, plus address_book).
      { name: 'baseline_v3_transactions', source: 'index', next: () => ({ path: `/api/v3/transactions?account=${pick(accounts)}&limit=10` }) },
    ];
    const results: Record<string, LoadResult & { source: string }> = {};
    for (const m of methods.filter((x) => !ONLY || ONLY.includes(x.name))) {
      log(`${m.name}: ${LOAD.connections} connections, ${LOAD.seconds} s`);
      results[m.name] = { source: m.source, ...(await runLoad(stack.base, m.next, LOAD)) };
    }
    process.stdout.write(
      JSON.stringify({
        bench: 'api:v2',
        load_generator: loadGenerator(),
        connections: LOAD.connections,
        seconds: LOAD.seconds,
        target_p99_ms_index: TARGET_P99_MS,
        methods: results,
        bound: 'liteserver-backed methods: the local emulated liteserver (one Node process that also produces blocks) and ton-lite-client AES over one ADNL connection',
        loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
      }) + '\n',
    );
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
