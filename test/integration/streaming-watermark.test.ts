import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { sseClient } from './streaming-clients.js';
import { readLedger } from '../support/ledger.js';
import { expectedTransactions } from './streaming-ledger.js';

/**
 * The streamer while the watermark does not move (no writer yet: nothing is stored): confirmed blocks
 * wait for their finalized step, and at STREAMER_MAX_UNFINALIZED_BLOCKS it stops reading instead of
 * holding more (health says why). Once a writer runs, the watermark moves and a client that stayed
 * connected gets every transaction confirmed and then finalized, once each, across the pause.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const MAX_UNFINALIZED = 12;
/**
 * The streamer pauses at about round MAX_UNFINALIZED, the test waits 8 rounds more, and the chain must
 * then still run a while with traffic for the followed wallets (a round after heldAt + 8 is asserted).
 */
const STOP_AT = 50;
/** Wallet actions per round: the wallets of the first rounds keep sending in the later ones (dozens of their transactions after round 25). */
const TRAFFIC_RATE = 2;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-streaming-watermark-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_stwm_${run}`;
const env = { KAFKA_BROKERS, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: `stwm${run}.`, FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'), FETCHER_START_SEQNO: '1', LOG_LEVEL: 'info' };
const procs: Record<string, ServiceProcess> = {};
let base = '';

const ledger = () => readLedger(ledgerPath);
const head = () => ledger().at(-1)?.mc_seqno ?? 0;
const assertAlive = () => {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
};
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 180_000) => eventually(what, check, timeoutMs, 300, assertAlive);
const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
};
type StreamerHealth = { problems: string[]; last_confirmed: number | null; unfinalized_blocks: number; fanout: { lastWhole: { confirmed: number; finalized: number } } };
const health = async () => ((await (await fetch(`${base}/api/streaming/healthz`)).json()) as { components: { streamer: StreamerHealth } }).components.streamer;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  await start('streamer', { STREAMER_PORT: String(port), STREAMER_MAX_UNFINALIZED_BLOCKS: String(MAX_UNFINALIZED), STREAMER_WATERMARK_POLL_MS: '200' });
  await procs.streamer.waitFor(/streamer reading/);
  await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '300', LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE), LOCALNET_SEED: `stwm-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(STOP_AT) }, ['--reset']);
  await procs.localnet.waitFor(/localnet serving/);
  await start('decoder');
  await start('fetcher');
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await fetch(CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(() => undefined);
}, 60_000);

describe('streamer without a moving watermark', () => {
  it('pauses at the bound of unfinalized blocks, then finalizes every confirmed transaction once the watermark moves', async () => {
    await until('traffic on the chain', async () => (head() >= 3 ? true : undefined));
    const accounts = new Set(ledger().flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => t.account))).filter((a) => a.startsWith('0:')));
    const client = sseClient(`${base}/api/streaming/v2/sse`, { types: ['transactions'], addresses: [...accounts], min_finality: 'confirmed' });
    // Where the stream stands once the subscription is in place (its `connected` frame): the chain's
    // head, or the streamer's last confirmed round if further (a round's ledger line can come after the
    // streamer confirmed it). Blocks confirmed before are not the client's to receive.
    await until('the subscription in place', async () => (client.connected() ? true : undefined));
    const subscribedAt = Math.max(head(), (await health()).fanout.lastWhole.confirmed);

    // No writer, no watermark: confirmed blocks pile up to the bound, and reading stops there.
    const paused = await until('the streamer pauses', async () => {
      const h = await health();
      return h.problems.some((p) => p.startsWith('paused:')) ? h : undefined;
    });
    expect(paused.unfinalized_blocks).toBe(MAX_UNFINALIZED);
    const heldAt = paused.last_confirmed!;
    await until('the chain moves on', async () => (head() >= heldAt + 8 ? true : undefined));
    const still = await health();
    expect(still.last_confirmed).toBe(heldAt);
    expect(still.unfinalized_blocks).toBe(MAX_UNFINALIZED);
    expect(still.fanout.lastWhole.finalized).toBeLessThan(heldAt - MAX_UNFINALIZED + 1);

    // A writer: the watermark moves, the held blocks are finalized and reading goes on to the end.
    await start('writer');
    await until('the streamer finalizes the last round', async () => ((await health()).fanout.lastWhole.finalized >= STOP_AT ? true : undefined));
    expect((await health()).problems).toEqual([]);
    client.close();
    await client.done;

    const upper = new Set([...accounts].map((a) => a.toUpperCase()));
    const want = expectedTransactions(ledger(), upper, subscribedAt, STOP_AT);
    expect([...want.values()].some((t) => t.round > heldAt + 8)).toBe(true);
    type Tx = { hash: string; mc_block_seqno: number };
    for (const stage of ['confirmed', 'finalized']) {
      const got = client.frames
        .map((f) => f.data)
        .filter((e) => e.type === 'transactions' && e.finality === stage)
        .flatMap((e) => e.transactions as Tx[])
        .filter((t) => t.mc_block_seqno > subscribedAt && t.mc_block_seqno <= STOP_AT);
      expect(got.length, stage).toBe(new Set(got.map((t) => t.hash)).size);
      expect(new Set(got.map((t) => t.hash)), stage).toEqual(new Set(want.keys()));
    }
  }, 300_000);
});
