import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address } from '@ton/core';
import { readGlobalConfig } from '@tonstream/liteserver';
import { createStore, type Store, str } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, ROOT, type ServiceProcess, startService } from '../support/processes.js';

/**
 * The whole pipeline on real processes: localnet -> fetcher -> Kafka -> decoder -> writer -> ClickHouse.
 * While the chain runs, each service is killed with SIGKILL and restarted, and ClickHouse is stopped
 * for 30 s. The chain then comes to rest (LOCALNET_STOP_AT_SEQNO) and the index must hold exactly what
 * the chain's own ledger records: same blocks, transactions and messages, nothing twice, and the
 * latest state of every touched account equal to the liteserver's.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const STOP_AT = Number(process.env.E2E_STOP_AT_SEQNO ?? 80);
const ROUND_MS = 300;
const CLICKHOUSE_OUTAGE_MS = 30_000;

type LedgerTx = { hash: string; account: string; lt: string; in_msg: string | null; out_msgs: string[] };
type LedgerRound = { mc_seqno: number; blocks: { workchain: number; shard: string; seqno: number; root_hash: string; transactions: LedgerTx[] }[] };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-e2e-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const globalConfig = join(dir, 'localnet', 'global.config.json');
const database = `tonstream_e2e_${run}`;
let env: Record<string, string> = {};
const procs: Record<string, ServiceProcess> = {};
let store: Store;

function ledger(): LedgerRound[] {
  if (!existsSync(ledgerPath)) return [];
  return readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
}

/** Fails at once, with its output, when a service died on its own (not by our kill -9). */
function assertAlive() {
  for (const p of Object.values(procs)) {
    if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
  }
}

/** Waits for a condition while every service stays up. */
function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number, everyMs?: number): Promise<T> {
  return eventually(what, check, timeoutMs, everyMs, assertAlive);
}

function headSeqno(): number {
  const rounds = ledger();
  return rounds.length === 0 ? 0 : rounds[rounds.length - 1].mc_seqno;
}

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

async function restartAfterKill(name: string) {
  await procs[name].kill9();
  await new Promise((r) => setTimeout(r, 1_500));
  await start(name);
}

/** deploy/local/services.sh on the servers it manages (blank addresses: not the caller's external ones). */
function services(...args: string[]) {
  const env = { ...process.env, KAFKA_BROKERS: '', CLICKHOUSE_URL: '', REDIS_URL: '' };
  execFileSync('bash', [join(ROOT, 'deploy/local/services.sh'), ...args], { stdio: 'pipe', env });
}

async function count(sql: string): Promise<number> {
  return Number((await store.query<{ c: string }>(sql))[0].c);
}

beforeAll(async () => {
  env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: `e2e${run}.`,
    FETCHER_GLOBAL_CONFIG: globalConfig,
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'info',
  };
  store = createStore({ url: CLICKHOUSE_URL, database });
  await start(
    'localnet',
    {
      LOCALNET_PORT: String(await freePort()),
      LOCALNET_STATE_DIR: join(dir, 'localnet'),
      LOCALNET_ROUND_MS: String(ROUND_MS),
      LOCALNET_TRAFFIC_RATE: '12',
      LOCALNET_SEED: `e2e-${run}`,
      LOCALNET_LEDGER: ledgerPath,
      LOCALNET_STOP_AT_SEQNO: String(STOP_AT),
    },
    ['--reset'],
  );
  await procs.localnet.waitFor(/localnet serving/);
  await start('writer');
  await start('decoder');
  await start('fetcher');
}, 120_000);

afterAll(async () => {
  // Leave ClickHouse up for the next suite even if the test failed mid-outage.
  services('up', 'clickhouse');
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
}, 60_000);

describe('pipeline end to end on the local network', () => {
  it('indexes exactly what the chain produced through kill -9 of every service and a ClickHouse outage', async () => {
    await until('chain at mc 12', async () => (headSeqno() >= 12 ? true : undefined));
    await restartAfterKill('fetcher');
    await until('chain at mc 24', async () => (headSeqno() >= 24 ? true : undefined));
    await restartAfterKill('decoder');
    await until('chain at mc 36', async () => (headSeqno() >= 36 ? true : undefined));
    await restartAfterKill('writer');
    await until('chain at mc 45', async () => (headSeqno() >= 45 ? true : undefined));

    services('down', 'clickhouse');
    const stillUp = await store.ping().catch(() => false);
    expect(stillUp, 'ClickHouse still answers after services.sh down: the outage needs the ClickHouse deploy/local/services.sh manages').toBe(false);
    await new Promise((r) => setTimeout(r, CLICKHOUSE_OUTAGE_MS));
    services('up', 'clickhouse');
    expect(await procs.writer.child.exitCode).toBeNull(); // the writer waited instead of dying

    await procs.localnet.waitFor(/LOCALNET_STOP_AT_SEQNO reached/, 120_000);
    const rounds = ledger();
    expect(rounds.map((r) => r.mc_seqno)).toEqual(Array.from({ length: STOP_AT }, (_, k) => k + 1));
    const blocks = rounds.flatMap((r) => r.blocks);
    const txs = blocks.flatMap((b) => b.transactions);
    const messages = txs.flatMap((t) => [...(t.in_msg ? [`${t.in_msg}|in|${t.hash}`] : []), ...t.out_msgs.map((m) => `${m}|out|${t.hash}`)]);
    expect(txs.length).toBeGreaterThan(400);

    const db = database;
    await until(
      `all ${txs.length} transactions and ${blocks.length} blocks in ClickHouse`,
      async () => {
        const [t, b] = await Promise.all([count(`SELECT count() AS c FROM ${db}.transactions FINAL`), count(`SELECT count() AS c FROM ${db}.blocks FINAL`)]);
        return t >= txs.length && b >= blocks.length ? true : undefined;
      },
      240_000,
      1_000,
    );
    // Let any in-flight duplicate deliveries land before checking that nothing is doubled.
    await new Promise((r) => setTimeout(r, 3_000));

    const storedBlocks = await store.query<{ k: string }>(`SELECT concat(toString(workchain), ':', hex(shard), ':', toString(seqno), ':', root_hash) AS k FROM ${db}.blocks FINAL`);
    expect(storedBlocks.map((r) => r.k).sort()).toEqual(blocks.map((b) => `${b.workchain}:${b.shard}:${b.seqno}:${b.root_hash}`).sort());
    const storedTxs = await store.query<{ hash: string }>(`SELECT hash FROM ${db}.transactions FINAL`);
    expect(storedTxs.map((r) => r.hash).sort()).toEqual(txs.map((t) => t.hash).sort());
    const storedByHash = await store.query<{ hash: string }>(`SELECT hash FROM ${db}.transactions_by_hash FINAL`);
    expect(storedByHash.length).toBe(txs.length);
    const storedMsgs = await store.query<{ k: string }>(`SELECT concat(hash, '|', direction, '|', tx_hash) AS k FROM ${db}.messages FINAL`);
    expect(storedMsgs.map((r) => r.k).sort()).toEqual(messages.sort());

    // Raw rows: replays after the kills may have inserted duplicates; merged, not one may remain.
    for (const table of ['blocks', 'transactions', 'transactions_by_hash', 'transactions_by_mc_seqno', 'messages', 'messages_by_account', 'account_states_latest']) {
      await store.command(`OPTIMIZE TABLE ${db}.${table} FINAL`);
      const [raw, dedup] = await Promise.all([count(`SELECT count() AS c FROM ${db}.${table}`), count(`SELECT count() AS c FROM ${db}.${table} FINAL`)]);
      expect(raw, table).toBe(dedup);
    }

    // Latest account state of every touched account equals the liteserver's (the chain is at rest).
    const [ls] = readGlobalConfig(globalConfig);
    const engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
    await once(engine, 'connect'); // queries before the connection exists fail with "Engine is closed"
    const client = new LiteClient({ engine });
    try {
      const head = (await client.getMasterchainInfo()).last;
      expect(head.seqno).toBe(STOP_AT);
      const accounts = [...new Set(txs.map((t) => t.account))];
      const states = await store.query<{ account: string; status: string; balance: string; last_trans_lt: string; last_trans_hash: string }>(
        `SELECT account, status, balance, last_trans_lt, last_trans_hash FROM ${db}.account_states_latest FINAL WHERE account IN (${accounts.map(str).join(',')})`,
      );
      expect(states.length).toBe(accounts.length);
      let existing = 0;
      for (const s of states) {
        const live = await client.getAccountState(Address.parseRaw(s.account), head);
        if (live.state === null) {
          // Not an account on chain (e.g. only bounced messages reached it): nothing to compare but that.
          expect({ account: s.account, status: s.status, balance: s.balance }).toEqual({ account: s.account, status: 'nonexist', balance: '0' });
          continue;
        }
        existing++;
        expect({ account: s.account, balance: s.balance, lt: s.last_trans_lt, hash: s.last_trans_hash }).toEqual({
          account: s.account,
          balance: live.balance.coins.toString(),
          lt: live.lastTx!.lt.toString(),
          hash: Buffer.from(live.lastTx!.hash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
        });
      }
      expect(existing).toBeGreaterThan(accounts.length / 2);
      console.log(`e2e: ${rounds.length} rounds, ${blocks.length} blocks, ${txs.length} transactions, ${messages.length} messages, ${accounts.length} accounts (${existing} on chain) indexed exactly`);
    } finally {
      engine.close();
    }
  }, 600_000);
});
