/**
 * `npm run bootstrap -- --seqno S` against the local network (a process, no traffic, at rest two
 * rounds after S so its states at S stay kept): the states at S land in a fresh database and, once
 * the watermark reaches S, the v3 API answers every prefunded wallet (active since block 1, no
 * transaction) with the liteserver's balance and seqno 0. The same states dumped to files
 * (`--state-file`) give the same rows in another fresh database, also when that run is killed half
 * way and run again (it continues). Oracles: ton-lite-client's getAccountState at S and get method
 * `seqno`, the ledger (no transaction of the wallets), the chain's constant prefunded balance.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Address, Cell, parseTuple, serializeTuple } from '@ton/core';
import { decodeBlock } from '@tonstream/block';
import { connectLitePool, createLiteReads } from '@tonstream/lite-client';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_BALANCE, PREFUNDED_WALLETS } from '@tonstream/localnet';
import { describeAccount } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { createStore, recordBatch, saveWatermark, type Store, writeBatch } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, type Json, okJson, startApi } from './api-server.js';
import { dropDatabase } from '../support/clickhouse.js';
import { readLedger, raw } from '../support/ledger.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

const S = 11;
const ROOT = join(import.meta.dirname, '..', '..');
const clickhouseUrl = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const run = randomBytes(4).toString('hex');
const database = `tonstream_bootstrap_${run}`;
/** Fresh databases of the file path: the bootstrap creates and migrates them. */
const fromFiles = `tonstream_bootstrap_files_${run}`;
const resumed = `tonstream_bootstrap_resumed_${run}`;

let dir: string;
let localnet: ServiceProcess;
let api: ApiUnderTest;
let engine: LiteSingleEngine;
let client: LiteClient;
let globalConfig: string;
let ledgerPath: string;
let statesDir: string;

const BOOTSTRAP = join(ROOT, 'services/writer/dist/bootstrap-main.js');
const bootstrapEnv = (db: string) => ({ ...process.env, CLICKHOUSE_URL: clickhouseUrl, CLICKHOUSE_DATABASE: db });

/** The bootstrap as an operator runs it (its built entry), on `db`; by default from the liteserver at S. */
function bootstrap(args: string[] = ['--seqno', String(S), '--global-config', globalConfig], db = database): { summary: Json; stderr: string; seconds: number } {
  const started = Date.now();
  const out = spawnSync(process.execPath, [BOOTSTRAP, ...args, '--batch', '4'], { cwd: ROOT, env: bootstrapEnv(db), encoding: 'utf8', timeout: 120_000 });
  if (out.status !== 0) throw new Error(`bootstrap exited with ${out.status}:\n${out.stderr}`);
  return { summary: JSON.parse(out.stdout.trim().split('\n').pop()!) as Json, stderr: out.stderr, seconds: (Date.now() - started) / 1000 };
}

/** Every account state row the bootstrap wrote at S, all columns (the history table keeps each version). */
async function rowsAtS(store: Store, db: string): Promise<Json[]> {
  return store.query<Json>(`SELECT account, last_trans_lt, account_state_hash, mc_block_seqno, balance, code_hash, record FROM ${db}.account_states FINAL WHERE mc_block_seqno = ${S} ORDER BY account`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tonstream-bootstrap-'));
  globalConfig = join(dir, 'localnet', 'global.config.json');
  ledgerPath = join(dir, 'ledger.jsonl');
  localnet = startService(
    'localnet',
    { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '500', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `bootstrap-${database}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(S + 2), METRICS_PORT: String(await freePort()) },
    join(dir, 'logs'),
    ['--reset'],
  );
  await localnet.waitFor(/localnet serving/);
  const [ls] = readGlobalConfig(globalConfig);
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  await once(engine, 'connect');
  client = new LiteClient({ engine });
  // The API first: it creates and migrates the database the bootstrap writes to.
  api = await startApi(clickhouseUrl, database);
  // At rest two rounds past S: no round evicts the states at S.
  await eventually(`the chain at rest at ${S + 2}`, async () => ((await client.getMasterchainInfo()).last.seqno >= S + 2 ? true : undefined), 60_000, 100);
  // The shard states at S as files, one per block, as an operator dumps them from a node.
  statesDir = join(dir, 'states');
  mkdirSync(statesDir);
  const reads = createLiteReads(await connectLitePool(readGlobalConfig(globalConfig), { timeoutMs: 30_000 }));
  try {
    const mcId = (await reads.lookupBlock(-1, 1n << 63n, { seqno: S })).id;
    const tops = decodeBlock((await reads.block(mcId)).data).shards;
    for (const top of tops) expect(top.workchain).toBe(0);
    const ids = [mcId, ...(await Promise.all(tops.map(async (t) => (await reads.lookupBlock(0, BigInt(`0x${t.shard}`), { seqno: t.seqno })).id)))];
    for (const id of ids) writeFileSync(join(statesDir, `state_${id.workchain}_${BigInt.asUintN(64, BigInt(id.shard)).toString(16)}_${id.seqno}.boc`), (await reads.state(id)).data);
  } finally {
    reads.close();
  }
}, 120_000);

afterAll(async () => {
  engine?.close();
  for (const db of [fromFiles, resumed]) await dropDatabase(clickhouseUrl, db).catch(() => undefined);
  await api?.stop();
  await localnet?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const q = (addresses: string[]) => addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&');

describe('state bootstrap at a masterchain seqno', () => {
  it('writes every account at S; v3 answers the idle prefunded wallets once the watermark reaches S', async () => {
    const first = bootstrap();
    console.log(`bootstrap at ${S}: ${JSON.stringify(first.summary)} (${first.seconds} s with the process start)`);
    expect(first.summary).toMatchObject({ mc_seqno: S, blocks: 3, skipped: 0 });
    expect(first.stderr).toMatch(/bootstrap: part 1\/3 -1:8000000000000000:11: \d+\/\d+ accounts/);
    const wallets = PREFUNDED_WALLETS.map((w) => raw(Address.parse(w.address)));
    expect(Number(first.summary.accounts)).toBeGreaterThanOrEqual(wallets.length + 2);

    // Below the watermark nothing is served: the database has no watermark yet.
    expect((await okJson(api.base, `/api/v3/accountStates?${q(wallets)}`)).accounts).toEqual([]);
    const mc = (await client.lookupBlockByID({ workchain: -1, shard: '-9223372036854775808', seqno: S })).id;
    await saveWatermark(api.store, { mc_seqno: S, gen_utime: 0 });
    await new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache

    const ledgerAccounts = new Set(readLedger(ledgerPath).flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => t.account))));
    const states = new Map(((await okJson(api.base, `/api/v3/accountStates?${q(wallets)}`)).accounts as Json[]).map((a) => [a.address, a]));
    const walletStates = new Map(((await okJson(api.base, `/api/v3/walletStates?${q(wallets)}`)).wallets as Json[]).map((a) => [a.address, a]));
    for (const [i, w] of PREFUNDED_WALLETS.entries()) {
      const address = Address.parse(w.address);
      const truth = await client.getAccountState(address, mc);
      expect(ledgerAccounts.has(wallets[i]), 'the wallet is idle').toBe(false);
      expect(truth.balance.coins).toBe(PREFUNDED_BALANCE);
      expect(states.get(wallets[i]), wallets[i]).toMatchObject({ status: 'active', balance: truth.balance.coins.toString() });
      const seqno = await client.runMethod(address, 'seqno', serializeTuple([]).toBoc(), mc);
      expect([seqno.exitCode, parseTuple(Cell.fromBase64(seqno.result!))]).toEqual([0, [{ type: 'int', value: 0n }]]);
      expect(walletStates.get(wallets[i]), wallets[i]).toMatchObject({
        is_wallet: true,
        wallet_type: w.version === 'v4r2' ? 'wallet v4 r2' : 'wallet v5 r1',
        status: 'active',
        seqno: 0,
        balance: truth.balance.coins.toString(),
      });
    }

    // Every account of the chain at S, ranked: each balance as the liteserver answers it at S.
    const top = await okJson<Json[]>(api.base, '/api/v3/topAccountsByBalance?limit=100');
    expect(top.length).toBe(Number(first.summary.accounts));
    for (const row of top) expect(row.balance, String(row.account)).toBe((await client.getAccountState(Address.parseRaw(String(row.account)), mc)).balance.coins.toString());
    expect(top.map((r) => BigInt(String(r.balance)))).toEqual(top.map((r) => BigInt(String(r.balance))).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(top.map((r) => r.account)).toEqual(expect.arrayContaining(wallets));

    // Run again: the recorded progress says every part is done, nothing is written.
    const again = bootstrap();
    expect(again.summary).toMatchObject({ mc_seqno: S, accounts: 0, already: first.summary.accounts });
    expect(again.stderr).toMatch(/part 3\/3 .*: done by an earlier run/);

    // A state indexed after S (a higher last_trans_lt, at S + 1), then the bootstrap again from the
    // start (--restart): the newer state stays, the rest are the same rows, nothing more once merged.
    const [{ record }] = await api.store.query<{ record: string }>(`SELECT record FROM ${database}.account_states_latest WHERE account = '${wallets[0]}' LIMIT 1`);
    const newer: AccountStateRecord = { ...(JSON.parse(record) as AccountStateRecord), last_trans_lt: '999999999', balance: '123', mc_block_seqno: S + 1 };
    await writeBatch(api.store, recordBatch({ accountStates: [{ ...newer, contract: describeAccount(newer) }] }));
    const second = bootstrap(['--seqno', String(S), '--global-config', globalConfig, '--restart']);
    expect(second.summary).toMatchObject({ mc_seqno: S, accounts: first.summary.accounts });
    await saveWatermark(api.store, { mc_seqno: S + 1, gen_utime: 0 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await okJson(api.base, `/api/v3/accountStates?${q([wallets[0]])}`)).accounts).toMatchObject([{ balance: '123', last_transaction_lt: '999999999' }]);
    await api.store.command(`OPTIMIZE TABLE ${database}.account_states_latest FINAL`);
    const [{ n }] = await api.store.query<{ n: string }>(`SELECT count() AS n FROM ${database}.account_states_latest`);
    expect(Number(n)).toBe(Number(first.summary.accounts));
    expect((await okJson(api.base, `/api/v3/accountStates?${q([wallets[0]])}`)).accounts).toMatchObject([{ balance: '123' }]);
  });

  it('--state-file: the states dumped to files give the liteserver path\'s rows in a fresh database, with the liteserver\'s balances', async () => {
    const files = bootstrap(['--seqno', String(S), '--state-file', statesDir], fromFiles);
    console.log(`bootstrap from files at ${S}: ${JSON.stringify(files.summary)} (${files.seconds} s with the process start)`);
    expect(files.summary).toMatchObject({ mc_seqno: S, blocks: 3, already: 0, skipped: 0 });
    expect(files.stderr).toMatch(/part 1\/3 -1:8000000000000000:11: \d+ accounts \(100\.0% of its addresses\), done/);
    const store = createStore({ url: clickhouseUrl, database: fromFiles });
    try {
      const got = await rowsAtS(store, fromFiles);
      expect(got.length).toBe(Number(files.summary.accounts));
      expect(got).toEqual(await rowsAtS(api.store, database));
      const mc = (await client.lookupBlockByID({ workchain: -1, shard: '-9223372036854775808', seqno: S })).id;
      for (const row of got) expect(String(row.balance), String(row.account)).toBe((await client.getAccountState(Address.parseRaw(String(row.account)), mc)).balance.coins.toString());
    } finally {
      await store.close();
    }
  });

  it('--state-file killed after its first batch, then run again: it continues where it stopped, the rows the same', async () => {
    const child = spawn(process.execPath, [BOOTSTRAP, '--seqno', String(S), '--state-file', statesDir, '--batch', '1'], { cwd: ROOT, env: bootstrapEnv(resumed), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // The first batch's progress line: written and recorded.
        if (/part 1\/3 .*: [1-9]\d* accounts/.test(stderr)) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`bootstrap exited (${code}) before its first progress line:\n${stderr}`)));
    });
    await once(child, 'exit');
    const store = createStore({ url: clickhouseUrl, database: resumed });
    try {
      const [{ n }] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${resumed}.bootstrap_progress WHERE part = '*'`);
      expect(Number(n), 'the killed run did not finish').toBe(0);
      const second = bootstrap(['--seqno', String(S), '--state-file', statesDir], resumed);
      expect(Number(second.summary.already)).toBeGreaterThan(0);
      expect(Number(second.summary.already) + Number(second.summary.accounts)).toBe((await rowsAtS(store, fromFiles)).length);
      expect(await rowsAtS(store, resumed)).toEqual(await rowsAtS(store, fromFiles));
    } finally {
      await store.close();
    }
  });

  it('--state-file refuses states of another block than S before writing anything', () => {
    const out = spawnSync(process.execPath, [BOOTSTRAP, '--seqno', String(S + 1), '--state-file', statesDir], { cwd: ROOT, env: bootstrapEnv(resumed), encoding: 'utf8', timeout: 60_000 });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(new RegExp(`is the masterchain state of block ${S}, not of ${S + 1}`));
  });
});
