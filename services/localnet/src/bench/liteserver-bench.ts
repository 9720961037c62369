/**
 * Part of `npm run --silent bench:localnet`: liteserver round trips per second against the running
 * localnet process (services/localnet/dist/main.js in a child process, with its timer and traffic
 * on, on a temporary state dir and free ports), over ONE ton-lite-client connection with
 * BENCH_CONCURRENCY (16) queries in flight. Prints one JSON line: getBlock over the blocks of the
 * last rounds (the figure), and getMasterchainInfo (tiny answers) as the baseline of the same run.
 * Env: BENCH_MIN_MS per figure (3000), BENCH_TRAFFIC_RATE (20, the service default).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { Functions, type tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MIN_MS = Number(process.env.BENCH_MIN_MS ?? 3000);
const TRAFFIC_RATE = Number(process.env.BENCH_TRAFFIC_RATE ?? 20);
/** Rounds the chain runs before measuring, so blocks carry the traffic's transactions. */
const WARMUP_ROUNDS = 6;
/** Masterchain blocks whose blocks (and their shard blocks) the getBlock figure cycles through. */
const BLOCK_ROUNDS = 5;
const STARTUP_TIMEOUT_MS = 60_000;
/** ton-lite-client's default 5 s is short for 16 queries in flight through its pure-JS AES. */
const CLIENT_TIMEOUT_MS = 60_000;
const MC_SHARD = '-9223372036854775808';

type Figure = { round_trips_per_s: number; mb_per_s: number; queries: number; seconds: number };

const round = (x: number, digits = 1) => Number(x.toFixed(digits));

async function measure(one: (i: number) => Promise<number>): Promise<Figure> {
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => one(i)));
  let queries = 0;
  let bytes = 0;
  const start = performance.now();
  const worker = async () => {
    while (performance.now() - start < MIN_MS) {
      const answerBytes = await one(queries);
      bytes += answerBytes;
      queries++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { round_trips_per_s: round(queries / seconds), mb_per_s: round(bytes / seconds / 1e6, 2), queries, seconds: round(seconds, 2) };
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'localnet-bench-'));
  const mainJs = join(dirname(fileURLToPath(import.meta.url)), '..', 'main.js');
  const child = spawn(process.execPath, [mainJs], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOCALNET_STATE_DIR: stateDir, LOCALNET_PORT: '0', METRICS_PORT: '0', LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE), LOG_LEVEL: 'warn' },
  });
  const exited = once(child, 'exit');
  try {
    const configPath = join(stateDir, 'global.config.json');
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (!existsSync(configPath)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`localnet did not write ${configPath}`);
      await sleep(50);
    }
    const [ls] = readGlobalConfig(configPath);
    const engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
    await once(engine, 'connect');
    const client = new LiteClient({ engine });
    const start = (await client.getMasterchainInfo()).last.seqno;
    let head = start;
    while (head < start + WARMUP_ROUNDS) {
      await sleep(200);
      head = (await client.getMasterchainInfo()).last.seqno;
    }

    const ids: tonNode_blockIdExt[] = [];
    for (let seqno = head - BLOCK_ROUNDS + 1; seqno <= head; seqno++) {
      const mc = (await client.lookupBlockByID({ workchain: -1, shard: MC_SHARD, seqno })).id;
      ids.push(mc);
      const shards = (await client.getAllShardsInfo(mc)).shards;
      for (const [wc, tops] of Object.entries(shards)) {
        for (const [shard, shardSeqno] of Object.entries(tops)) ids.push((await client.lookupBlockByID({ workchain: Number(wc), shard, seqno: shardSeqno })).id);
      }
    }
    const args = { timeout: CLIENT_TIMEOUT_MS };
    let blockBytes = 0;
    for (const id of ids) blockBytes += (await engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id }, args)).data.length;

    const getBlock = await measure(async (i) => {
      const id = ids[i % ids.length];
      const r = await engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id }, args);
      if (r.id.seqno !== id.seqno || r.data.length === 0) throw new Error('wrong getBlock answer');
      return r.data.length;
    });
    const getMasterchainInfo = await measure(async () => {
      const r = await engine.query(Functions.liteServer_getMasterchainInfo, { kind: 'liteServer.getMasterchainInfo' }, args);
      if (r.last.seqno < head) throw new Error('wrong getMasterchainInfo answer');
      return 0;
    });
    const end = (await client.getMasterchainInfo()).last.seqno;
    engine.close();
    console.log(
      JSON.stringify({
        bench: 'localnet_liteserver',
        client: 'ton-lite-client',
        connections: 1,
        concurrency: CONCURRENCY,
        traffic_rate: TRAFFIC_RATE,
        blocks: ids.length,
        block_bytes_avg: Math.round(blockBytes / ids.length),
        rounds_during_bench: end - head,
        get_block: getBlock,
        get_masterchain_info: getMasterchainInfo,
      }),
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
  // ton-lite-client leaves a timer per query running for its full timeout; do not wait for them.
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
