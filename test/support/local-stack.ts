import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginCell, external, type MessageRelaxed, SendMode, storeMessage } from '@ton/core';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS, type PrefundedWallet } from '@tonstream/localnet';
import { createStore } from '@tonstream/store';
import { Redis } from 'ioredis';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { eventually, freePort, type ServiceProcess, startService } from './processes.js';
import { type PlacedTx, placedTransactions, raw, readLedger, traceFrom } from './ledger.js';

/**
 * The whole local stack as separate processes on free ports, over the shared Kafka, ClickHouse and
 * Redis under names of its own: localnet (no generated traffic, a ledger of every round) -> fetcher
 * -> decoder -> writer + tracer, the emulator, and the API (which sends to the liteserver and
 * publishes accepted externals to the emulator). `stop()` drops the database and the Redis keys.
 */
export type LocalStackOptions = {
  /** Names the temp dir, the database, topics and keys (a random suffix is added). */
  name: string;
  /** Milliseconds between localnet rounds. @default 1000 */
  roundMs?: number;
  /** Extra environment of the emulator (e.g. EMULATOR_TTL_MS). */
  emulatorEnv?: Record<string, string>;
  /** Extra environment of the localnet (e.g. LOCALNET_KEEP_STATE_ROUNDS). */
  localnetEnv?: Record<string, string>;
};


/** A prefunded wallet with its keys, signing for its next seqno. */
export type SigningWallet = { w: PrefundedWallet; contract: WalletContractV4 | WalletContractV5R1; secretKey: Buffer; seqno: number };

export type LocalStack = {
  dir: string;
  database: string;
  /** Prefix of the emulator's and the API's pending keys in Redis. */
  pendingPrefix: string;
  /** The API process, e.g. http://127.0.0.1:PORT */
  apiBase: string;
  /** A ton-lite-client of the localnet's liteserver. */
  client: LiteClient;
  redis: Redis;
  procs: Record<string, ServiceProcess>;
  /** Every transaction the chain made so far, from the localnet's ledger. */
  ledger(): PlacedTx[];
  /** The ledger's transactions of the trace rooted at the transaction `rootHash`, breadth first along message hashes. */
  ledgerTrace(rootHash: string): PlacedTx[];
  /** `eventually` that fails as soon as a service exits. */
  until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number, everyMs?: number): Promise<T>;
  /** The prefunded wallets of the localnet, each with seqno 0. */
  wallets(): Promise<SigningWallet[]>;
  stop(): Promise<void>;
};

export { raw } from './ledger.js';
export type { LedgerTx, PlacedTx } from './ledger.js';

/** A wallet external carrying `messages`, signed for the wallet's current seqno (not advanced). */
export function signedTransfer(k: SigningWallet, messages: MessageRelaxed[], seqno = k.seqno): Buffer {
  const args = { seqno, secretKey: k.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages };
  const body = k.contract instanceof WalletContractV4 ? k.contract.createTransfer(args) : k.contract.createTransfer(args);
  return beginCell().store(storeMessage(external({ to: k.contract.address, body }))).endCell().toBoc();
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const run = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `tonstream-${options.name}-${run}-`));
  const ledgerPath = join(dir, 'ledger.jsonl');
  const globalConfig = join(dir, 'localnet', 'global.config.json');
  const database = `tonstream_${options.name.replace(/[^a-z0-9]/g, '_')}_${run}`;
  const topicPrefix = `${options.name}${run}.`;
  const pendingPrefix = `${options.name}${run}:`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const clickhouseUrl = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
  const env = {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    CLICKHOUSE_URL: clickhouseUrl,
    REDIS_URL: redisUrl,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    PENDING_REDIS_PREFIX: pendingPrefix,
    FETCHER_GLOBAL_CONFIG: globalConfig,
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'info',
  };
  const procs: Record<string, ServiceProcess> = {};
  const redis = new Redis(redisUrl);
  let engine: LiteSingleEngine | undefined;

  const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
    procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
  };
  const assertAlive = () => {
    for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
  };
  const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000, everyMs = 300) => eventually(what, check, timeoutMs, everyMs, assertAlive);

  const ledger = (): PlacedTx[] => placedTransactions(readLedger(ledgerPath));

  const stop = async () => {
    engine?.close();
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    const store = createStore({ url: clickhouseUrl, database });
    await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await store.close();
    // The tracer keys its state by the topic prefix, the emulator and the API by the pending prefix.
    for (const pattern of [`${topicPrefix}*`, `${pendingPrefix}*`]) {
      const keys = await redis.keys(pattern);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  };

  try {
    const roundMs = String(options.roundMs ?? 1000);
    await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: roundMs, LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `${options.name}-${run}`, LOCALNET_LEDGER: ledgerPath, ...options.localnetEnv }, ['--reset']);
    await procs.localnet.waitFor(/localnet serving/);
    await start('writer');
    await procs.writer.waitFor(/writer started/);
    const apiPort = await freePort();
    await start('api', { API_HOST: '127.0.0.1', API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig, LOG_LEVEL: 'warn' });
    await start('tracer');
    await start('decoder');
    await start('fetcher');
    await start('emulator', { EMULATOR_GLOBAL_CONFIG: globalConfig, ...options.emulatorEnv });
    // The emulator creates the pending topic the API publishes to.
    await procs.emulator.waitFor(/emulator consuming/, 60_000);
    const apiBase = `http://127.0.0.1:${apiPort}`;
    await until('the API to reach the liteserver', async () => ((await fetch(`${apiBase}/api/v2/getMasterchainInfo`).catch(() => undefined))?.ok ? true : undefined), 60_000, 200);
    const [ls] = readGlobalConfig(readFileSync(globalConfig, 'utf8'));
    engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
    const client = new LiteClient({ engine });

    return {
      dir,
      database,
      pendingPrefix,
      apiBase,
      client,
      redis,
      procs,
      ledger,
      ledgerTrace: (rootHash) => traceFrom(ledger(), rootHash),
      until,
      async wallets() {
        const out: SigningWallet[] = [];
        for (const w of PREFUNDED_WALLETS) {
          const keys = await mnemonicToPrivateKey(w.mnemonic.split(' '));
          const publicKey = Buffer.from(w.publicKey, 'hex');
          const contract = w.version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey });
          if (raw(contract.address) !== w.address.toUpperCase()) throw new Error(`prefunded wallet ${w.address}: the key makes ${raw(contract.address)}`);
          out.push({ w, contract, secretKey: keys.secretKey, seqno: 0 });
        }
        return out;
      },
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
