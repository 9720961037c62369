/**
 * The index started at S > 50 on a local chain whose prefunded wallets and Jettons with holders exist
 * already, bootstrapped at S by `npm run bootstrap -- --at-index-start` (what `npm start` runs beside
 * the services: it waits for the index's first block, then writes every account's state there). The
 * chain stops at S, so the index's watermark is S and every answer is as of S:
 *
 * - every account the ledger holds at S (LOCALNET_LEDGER_ACCOUNTS: the chain's own record of its
 *   accounts, read with @ton/core), prefunded wallets included, answers /accountStates and
 *   /walletStates with the ledger's status, balance and last lt; wallets with the seqno the wallet's
 *   get method answers through the liteserver at S;
 * - /topAccountsByBalance is the ledger's ranking;
 * - /jetton/wallets?jetton_address= lists every holder of each Jetton with the balance, owner and
 *   master its get_wallet_data answers through the liteserver at S.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, Cell, parseTuple, serializeTuple, TupleReader } from '@ton/core';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS } from '@tonstream/localnet';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAskingAgainOn504 } from '../support/api-get.js';
import { dropDatabase } from '../support/clickhouse.js';
import { type LedgerAccount, ledgerAccountsAt, raw, readLedger } from '../support/ledger.js';
import { eventually, freePort, ROOT, type ServiceProcess, startService } from '../support/processes.js';

/** Past 50 rounds of traffic: Jetton mints (8 % of the actions) and transfers (20 %) have made holders by then. */
const S = 55;
const ROUND_MS = 300;
/** Wallet actions per round: 220 by S, about 17 mints and 44 transfers. */
const TRAFFIC_RATE = 4;
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-bootstrap-start-${run}-`));
const database = `tonstream_bootstrap_start_${run}`;
const ledgerPath = join(dir, 'ledger.jsonl');
const globalConfig = join(dir, 'localnet', 'global.config.json');
const procs: ServiceProcess[] = [];
let bootstrap: ChildProcess;
let bootstrapOut = '';
let bootstrapExit: number | null | undefined;
let base = '';
let engine: LiteSingleEngine;
let lite: LiteClient;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API answers, checked field by field
type Json = Record<string, any>;

const env = {
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  CLICKHOUSE_URL,
  CLICKHOUSE_DATABASE: database,
  KAFKA_TOPIC_PREFIX: `bsstart${run}.`,
  FETCHER_GLOBAL_CONFIG: globalConfig,
  FETCHER_START_SEQNO: String(S),
  LOG_LEVEL: 'info',
};
const alive = () => {
  for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
  if (bootstrapExit !== undefined && bootstrapExit !== 0) throw new Error(`the bootstrap exited with ${bootstrapExit}:\n${bootstrapOut}`);
};

async function ok(path: string): Promise<Json> {
  const res = await getAskingAgainOn504(`${base}/api/v3${path}`);
  const body = (await res.json()) as Json;
  expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 400)}`).toBe(200);
  return body;
}

const q = (addresses: string[]) => addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&');

/** A get method of `address` at masterchain block S through the liteserver; undefined when it fails (no such method, not active). */
async function getAt(address: string, method: string): Promise<TupleReader | undefined> {
  const mc = (await lite.lookupBlockByID({ workchain: -1, shard: '-9223372036854775808', seqno: S })).id;
  const res = await lite.runMethod(Address.parseRaw(address), method, serializeTuple([]).toBoc(), mc);
  return res.exitCode === 0 || res.exitCode === 1 ? new TupleReader(parseTuple(Cell.fromBase64(res.result!))) : undefined;
}

beforeAll(async () => {
  const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
    const p = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
    procs.push(p);
    return p;
  };
  const localnet = await start('localnet', {
    LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE),
    LOCALNET_SEED: `bootstrap-start-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_LEDGER_ACCOUNTS: '1', LOCALNET_STOP_AT_SEQNO: String(S),
  }, ['--reset']);
  await localnet.waitFor(/localnet serving/);
  const apiPort = await freePort();
  await start('api', { API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig, LOG_LEVEL: 'warn' });
  await start('writer');
  await start('decoder');
  // The fetcher begins at S: the index starts there, whenever the chain gets there.
  await start('fetcher');
  base = `http://127.0.0.1:${apiPort}`;
  // As npm start runs it: at once, waiting for the index's start by itself.
  bootstrap = spawn(process.execPath, [join(ROOT, 'services/writer/dist/bootstrap-main.js'), '--at-index-start'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  bootstrap.stdout!.on('data', (d: Buffer) => (bootstrapOut += d.toString()));
  bootstrap.stderr!.on('data', (d: Buffer) => (bootstrapOut += d.toString()));
  bootstrap.once('exit', (code) => (bootstrapExit = code));
  const [ls] = readGlobalConfig(readFileSync(globalConfig, 'utf8'));
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  lite = new LiteClient({ engine });
  await eventually(`the index at ${S}`, async () => {
    const res = await fetch(`${base}/api/v3/masterchainInfo`).catch(() => undefined);
    return res?.ok && Number(res.headers.get('x-index-mc-seqno')) >= S ? true : undefined;
  }, 120_000, 300, alive);
  await eventually('the bootstrap done', async () => (bootstrapExit === 0 ? true : undefined), 60_000, 200, alive);
  console.log(`bootstrap --at-index-start: ${bootstrapOut.trim().split('\n').pop()}`);
}, 240_000);

afterAll(async () => {
  engine?.close();
  if (bootstrap && bootstrap.exitCode === null) bootstrap.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.stop()));
  await dropDatabase(CLICKHOUSE_URL, database).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('an index started at S > 50, bootstrapped at S (--at-index-start)', () => {
  let atS: Map<string, LedgerAccount>;
  beforeAll(() => {
    atS = ledgerAccountsAt(readLedger(ledgerPath), S);
  });

  it('bootstrapped where the index began, every account of the chain; a second run finds it done', () => {
    const summary = JSON.parse(bootstrapOut.trim().split('\n').pop()!) as Json;
    expect(summary).toMatchObject({ mc_seqno: S, blocks: 3, skipped: 0 });
    expect(summary.accounts).toBe(atS.size);
    const again = spawnSync(process.execPath, [join(ROOT, 'services/writer/dist/bootstrap-main.js'), '--at-index-start'], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.trim())).toEqual({ mc_seqno: S, done_before: true });
  });

  it('/accountStates and /walletStates: every account the ledger holds at S, prefunded wallets included, with its status, balance and last lt; wallets with their seqno', async () => {
    const addresses = [...atS.keys()];
    const prefunded = PREFUNDED_WALLETS.map((w) => raw(Address.parse(w.address)));
    for (const w of prefunded) expect(atS.get(w), w).toMatchObject({ status: 'active' });
    const states = new Map<string, Json>();
    const wallets = new Map<string, Json>();
    for (let i = 0; i < addresses.length; i += 100) {
      const chunk = addresses.slice(i, i + 100);
      for (const a of (await ok(`/accountStates?${q(chunk)}`)).accounts as Json[]) states.set(a.address, a);
      for (const w of (await ok(`/walletStates?${q(chunk)}`)).wallets as Json[]) wallets.set(w.address, w);
    }
    for (const [address, a] of atS) {
      expect(states.get(address), address).toMatchObject({ status: a.status, balance: a.balance, last_transaction_lt: a.last_trans_lt });
      expect(wallets.get(address), address).toMatchObject({ status: a.status, balance: a.balance });
    }
    let checked = 0;
    for (const [address, w] of wallets) {
      if (!w.is_wallet) continue;
      const seqno = await getAt(address, 'seqno');
      expect(w.seqno, address).toBe(seqno === undefined ? null : Number(seqno.readBigNumber()));
      checked++;
    }
    for (const [i, w] of PREFUNDED_WALLETS.entries()) {
      expect(wallets.get(prefunded[i]), prefunded[i]).toMatchObject({ is_wallet: true, wallet_type: w.version === 'v4r2' ? 'wallet v4 r2' : 'wallet v5 r1' });
    }
    console.log(`${atS.size} accounts at ${S}, ${checked} wallets, ${prefunded.filter((w) => atS.get(w)!.last_trans_lt === '0').length} prefunded wallets without a transaction`);
  });

  it('/topAccountsByBalance: the ledger\'s ranking at S (balance, then account)', async () => {
    const expected = [...atS.values()]
      .sort((a, b) => (BigInt(a.balance) > BigInt(b.balance) ? -1 : BigInt(a.balance) < BigInt(b.balance) ? 1 : a.address < b.address ? -1 : 1))
      .map((a) => [a.address, a.balance]);
    const top = (await ok('/topAccountsByBalance?limit=1000')) as unknown as Json[];
    // An address a transaction touched without leaving an account there (a bounced message to it) has
    // a `nonexist` state, which the index ranks at 0 (as every state it holds, api-v3-accounts); the
    // ledger lists accounts only (ci49, ci51): such a row is checked against the liteserver instead.
    const others = top.filter((r) => !atS.has(r.account as string));
    for (const r of others) {
      expect(r.balance, r.account as string).toBe('0');
      const v2 = await getAskingAgainOn504(`${base}/api/v2/getAddressState?address=${encodeURIComponent(r.account as string)}`);
      expect(((await v2.json()) as { result: string }).result, r.account as string).toBe('uninitialized');
    }
    expect(top.filter((r) => atS.has(r.account as string)).map((r) => [r.account, r.balance])).toEqual(expected);
  });

  it('/jetton/wallets?jetton_address=: every holder of each Jetton with the balance, owner and master get_wallet_data answers at S', async () => {
    const byMaster = new Map<string, Map<string, { balance: string; owner: string }>>();
    for (const [address, a] of atS) {
      if (a.status !== 'active') continue;
      const r = await getAt(address, 'get_wallet_data');
      if (!r) continue;
      let data;
      try {
        data = { balance: r.readBigNumber().toString(), owner: raw(r.readAddress()), master: raw(r.readAddress()) };
      } catch {
        continue; // another contract's get_wallet_data (not a Jetton wallet's layout)
      }
      if (!byMaster.has(data.master)) byMaster.set(data.master, new Map());
      byMaster.get(data.master)!.set(address, { balance: data.balance, owner: data.owner });
    }
    const holders = Math.max(0, ...[...byMaster.values()].map((m) => m.size));
    expect(holders, 'a Jetton with several holders at S').toBeGreaterThanOrEqual(3);
    for (const [master, chain] of byMaster) {
      const { jetton_wallets } = await ok(`/jetton/wallets?jetton_address=${encodeURIComponent(master)}&limit=1000`);
      const listed = new Map((jetton_wallets as Json[]).map((w) => [w.address, { balance: w.balance, owner: w.owner }]));
      expect(listed, master).toEqual(chain);
    }
    console.log(`${byMaster.size} Jetton(s) at ${S}, holders: ${[...byMaster.values()].map((m) => m.size).join(', ')}`);
  });
});
