/**
 * `npm run --silent bench:liteserver`: liteserver round trips per second over ONE connection with
 * N queries in flight, for getMasterchainInfo (tiny answer) and getBlock (500 KB answer). Prints
 * one JSON line with two clients on the same server (a child process) in the same run:
 *  - ton_lite_client: the unmodified ton-lite-client engine, what localnet users see (its pure-JS
 *    aes-js and per-packet array spreads dominate on large answers);
 *  - node_crypto_client: our test client on node:crypto, closer to the server's own ceiling.
 * Env: BENCH_CONCURRENCY (default 16), BENCH_MIN_MS per figure (default 3000).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { LiteSingleEngine } from 'ton-lite-client';
import { Functions } from 'ton-lite-client/dist/schema.js';
import { createLiteServer } from '../server.js';
import { connectRawClient } from '../test-support/raw-client.js';
import { MC_SHARD, blockBytes, blockIdExt, masterchainInfo } from '../test-support/fixtures.js';
import { TlWriter } from '../tl-buffer.js';

const SERVE_ARG = '--serve';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MIN_MS = Number(process.env.BENCH_MIN_MS ?? 3000);
const BLOCK_SIZE_BYTES = 500 * 1024;
/** Queries before timing starts (JIT, socket buffers). */
const WARMUP_QUERIES = 50;
/** ton-lite-client's per-query timeout; its default 5 s is too short for 16 × 500 KB through aes-js. */
const CLIENT_TIMEOUT_MS = 60_000;

type Figure = { round_trips_per_s: number; mb_per_s: number; queries: number; seconds: number };

/** Keep `CONCURRENCY` queries in flight for at least MIN_MS; every answer is checked by `one`. */
async function measure(one: () => Promise<number>): Promise<Figure> {
  for (let i = 0; i < WARMUP_QUERIES; i += CONCURRENCY) await Promise.all(Array.from({ length: CONCURRENCY }, one));
  let queries = 0;
  let bytes = 0;
  const start = performance.now();
  const worker = async () => {
    while (performance.now() - start < MIN_MS) {
      const answerBytes = await one(); // not `bytes += await one()`: that reads `bytes` before awaiting
      bytes += answerBytes;
      queries++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { round_trips_per_s: round(queries / seconds), mb_per_s: round(bytes / seconds / 1e6), queries, seconds: round(seconds, 2) };
}

function round(x: number, digits = 1): number {
  return Number(x.toFixed(digits));
}

/** Child process: the server, so client and server get a core each as they would in the localnet. */
async function serve() {
  const block = blockBytes(1, BLOCK_SIZE_BYTES);
  const info = masterchainInfo(1000);
  const server = await createLiteServer({
    handlers: {
      'liteServer.getMasterchainInfo': () => info,
      'liteServer.getBlock': (p) => ({ kind: 'liteServer.blockData', id: p.id, data: block }),
    },
  });
  process.send!({ address: server.address, port: server.port, publicKey: server.publicKey.toString('base64') });
  process.once('disconnect', () => void server.close());
}

async function main() {
  const child = fork(fileURLToPath(import.meta.url), [SERVE_ARG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [ready] = (await once(child, 'message')) as [{ address: string; port: number; publicKey: string }];
  const server = { address: ready.address, port: ready.port, publicKey: Buffer.from(ready.publicKey, 'base64') };
  const id = blockIdExt(-1, MC_SHARD, 1);

  const raw = await connectRawClient(server.address, server.port, server.publicKey);
  const infoCall = Buffer.from([0x2e, 0xe6, 0xb5, 0x89]); // liteServer.getMasterchainInfo
  const blockCall = new TlWriter();
  Functions.liteServer_getBlock.encodeRequest({ kind: 'liteServer.getBlock', id }, blockCall as never);
  const blockCallBytes = Buffer.from(blockCall.build());
  const nodeCryptoClient = {
    get_masterchain_info: await measure(async () => {
      const answer = await raw.query(infoCall);
      if (answer.readInt32LE(0) !== (0x85832881 | 0)) throw new Error('wrong answer');
      return 0;
    }),
    get_block_500kb: await measure(async () => {
      const answer = await raw.query(blockCallBytes);
      if (answer.length < BLOCK_SIZE_BYTES) throw new Error('wrong answer');
      return answer.length;
    }),
  };
  raw.close();

  // Second: ton-lite-client leaves one timer per query pending for CLIENT_TIMEOUT_MS, which slows
  // everything after it in this process.
  const engine = new LiteSingleEngine({ host: `tcp://${server.address}:${server.port}`, publicKey: server.publicKey });
  await once(engine, 'connect');
  const args = { timeout: CLIENT_TIMEOUT_MS };
  const tonLiteClient = {
    get_masterchain_info: await measure(async () => {
      const r = await engine.query(Functions.liteServer_getMasterchainInfo, { kind: 'liteServer.getMasterchainInfo' }, args);
      if (r.last.seqno !== 1000) throw new Error('wrong answer');
      return 0;
    }),
    get_block_500kb: await measure(async () => {
      const r = await engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id }, args);
      if (r.data.length !== BLOCK_SIZE_BYTES) throw new Error('wrong answer');
      return r.data.length;
    }),
  };
  engine.close();
  child.disconnect();

  console.log(
    JSON.stringify({
      bench: 'liteserver_roundtrip',
      connections: 1,
      concurrency: CONCURRENCY,
      block_bytes: BLOCK_SIZE_BYTES,
      ton_lite_client: tonLiteClient,
      node_crypto_client: nodeCryptoClient,
    }),
  );
  // ton-lite-client leaves a timer per query running for its full timeout; do not wait for them.
  process.exit(0);
}

(process.argv[2] === SERVE_ARG ? serve() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
