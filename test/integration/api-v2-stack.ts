import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { createStore, type Store } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { type LedgerRound, readLedger } from '../support/ledger.js';

/**
 * The whole stack on the local network for the v2 suites: localnet -> fetcher -> Kafka -> decoder ->
 * writer -> ClickHouse -> api, as real processes, plus the independent sources tests check against:
 * the chain's ledger (one JSON line per round) and ton-lite-client on the localnet's liteserver.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
/** Fast rounds: transactions are indexed within a second or two. */
const ROUND_MS = 400;

/** `<LOCALNET_STATE_DIR>/wallets.json`: the prefunded wallets the local network writes at start. */
export type WalletEntry = { mnemonic: string; version: 'v4r2' | 'v5r1'; address: string; balance: string };

export type V2Stack = {
  /** `http://127.0.0.1:<port>` of the API process. */
  base: string;
  /** ton-lite-client on the localnet's liteserver (the chain's own answers). */
  lite: LiteClient;
  store: Store;
  database: string;
  ledger(): LedgerRound[];
  wallets(): WalletEntry[];
  /** The API's watermark (X-Index-Mc-Seqno), once it is at least `seqno`. */
  indexedAt(seqno: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
};

export type StackOptions = {
  /** Wallet actions started per round. @default 4 */
  trafficRate?: number;
  /** Rounds the chain runs before the fetcher starts at its head: older history is then not indexed. @default 0 (index from mc 1) */
  unindexedRounds?: number;
};

export async function startV2Stack(name: string, options: StackOptions = {}): Promise<V2Stack> {
  const { trafficRate = 4, unindexedRounds = 0 } = options;
  const run = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `tonstream-${name}-${run}-`));
  const stateDir = join(dir, 'localnet');
  const ledgerPath = join(dir, 'ledger.jsonl');
  const globalConfig = join(stateDir, 'global.config.json');
  const database = `tonstream_${name.replace(/-/g, '_')}_${run}`;
  const env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: `${name}${run}.`,
    FETCHER_GLOBAL_CONFIG: globalConfig,
    FETCHER_START_SEQNO: unindexedRounds > 0 ? 'head' : '1',
    LOG_LEVEL: 'info',
  };
  const procs: ServiceProcess[] = [];
  const start = async (service: string, extra: Record<string, string> = {}, args: string[] = []) => {
    const p = startService(service, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
    procs.push(p);
    return p;
  };
  const localnet = await start(
    'localnet',
    { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: stateDir, LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: String(trafficRate), LOCALNET_SEED: `${name}-${run}`, LOCALNET_LEDGER: ledgerPath },
    ['--reset'],
  );
  await localnet.waitFor(/localnet serving/);
  const apiPort = await freePort();
  await start('api', { API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig });
  await start('writer');
  await start('decoder');
  const rounds = () => (existsSync(ledgerPath) ? readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).length : 0);
  if (unindexedRounds > 0) await eventually(`${unindexedRounds} rounds before indexing`, async () => (rounds() >= unindexedRounds ? true : undefined), 120_000, 200);
  await start('fetcher');
  const base = `http://127.0.0.1:${apiPort}`;
  const [ls] = readGlobalConfig(readFileSync(globalConfig, 'utf8'));
  const engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  const lite = new LiteClient({ engine });
  const store = createStore({ url: CLICKHOUSE_URL, database });
  const alive = () => {
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
  };
  const stack: V2Stack = {
    base,
    lite,
    store,
    database,
    ledger: () => readLedger(ledgerPath),
    wallets: () => JSON.parse(readFileSync(join(stateDir, 'wallets.json'), 'utf8')) as WalletEntry[],
    indexedAt: (seqno, timeoutMs = 90_000) =>
      eventually(
        `the index at mc ${seqno}`,
        async () => {
          const res = await fetch(`${base}/api/v3/masterchainInfo`);
          const n = Number(res.headers.get('x-index-mc-seqno'));
          return res.ok && n >= seqno ? n : undefined;
        },
        timeoutMs,
        200,
        alive,
      ),
    async stop() {
      engine.close();
      await Promise.all(procs.map((p) => p.stop()));
      await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
      await store.close();
    },
  };
  await stack.indexedAt(unindexedRounds + 2);
  return stack;
}

/** POST a v2 method through /api/v2/jsonRPC as the clients do; the whole answer. */
export async function rpc(base: string, method: string, params: unknown, id: unknown = 1): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/v2/jsonRPC`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, jsonrpc: '2.0', method, params }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
