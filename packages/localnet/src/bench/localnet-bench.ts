/**
 * `npm run --silent bench:localnet`: transactions per second the local chain produces with the
 * traffic generator at a high rate, on one thread, and where the time goes. Prints one JSON line:
 *  - tx_per_s: all transactions of the measured rounds over their wall time (signing, execution,
 *    block building, history);
 *  - share_sandbox: time in the @ton/sandbox executor (WASM emulator); share_block_build: in
 *    buildBlock and the history records; share_traffic: signing and planning the externals.
 * BENCH_RATE (actions per round, default 300) and BENCH_ROUNDS (measured rounds, default 20) tune it.
 */
import { createChain } from '../chain.js';
import { createTraffic } from '../traffic/traffic.js';

const RATE = Number(process.env.BENCH_RATE ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** Rounds before measuring: wallets, the Jetton minter and the NFT collection get deployed. */
const WARMUP_ROUNDS = 6;

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const chain = await createChain({ seed: 'bench', now: 1_750_000_000, historyRounds: 64 });
  const traffic = await createTraffic(chain, { seed: 'bench', ratePerRound: RATE });
  for (let i = 0; i < WARMUP_ROUNDS; i++) await traffic.step();

  let txs = 0;
  let executeMs = 0;
  let buildMs = 0;
  let trafficMs = 0;
  let blockBytes = 0;
  const start = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await traffic.submitRound();
    trafficMs += performance.now() - t0;
    const r = await chain.produceRound();
    txs += r.transactions;
    executeMs += r.timing.executeMs;
    buildMs += r.timing.buildMs;
    blockBytes += [r.mc, ...r.shards].reduce((n, b) => n + b.boc.length, 0);
  }
  const wallMs = performance.now() - start;
  traffic.stop();
  const stats = traffic.stats();
  console.log(
    JSON.stringify({
      bench: 'localnet',
      rate_per_round: RATE,
      rounds: ROUNDS,
      shards: chain.shards.length,
      transactions: txs,
      tx_per_s: round((txs * 1000) / wallMs),
      ms_per_round: round(wallMs / ROUNDS),
      tx_per_round: round(txs / ROUNDS),
      share_sandbox: round(executeMs / wallMs, 3),
      share_block_build: round(buildMs / wallMs, 3),
      share_traffic: round(trafficMs / wallMs, 3),
      share_other: round(1 - (executeMs + buildMs + trafficMs) / wallMs, 3),
      block_kib_per_round: round(blockBytes / 1024 / ROUNDS),
      externals_rejected: stats.rejected,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
