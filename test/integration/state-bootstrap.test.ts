/**
 * `npm run bootstrap -- --seqno S` against the local network (a process, no traffic): the states at
 * S land in a fresh database and, once the watermark reaches S, the v3 API answers every prefunded
 * wallet (active since block 1, no transaction) with the liteserver's balance and seqno 0. Oracles:
 * ton-lite-client's getAccountState at S and get method `seqno`, the ledger (no transaction of the
 * wallets), the chain's constant prefunded balance.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Address, Cell, parseTuple, serializeTuple } from '@ton/core';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_BALANCE, PREFUNDED_WALLETS } from '@tonstream/localnet';
import { describeAccount } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { recordBatch, saveWatermark, writeBatch } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, type Json, okJson, startApi } from './api-server.js';
import { readLedger, raw } from '../support/ledger.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

const S = 11;
const ROOT = join(import.meta.dirname, '..', '..');
const clickhouseUrl = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_bootstrap_${randomBytes(4).toString('hex')}`;

let dir: string;
let localnet: ServiceProcess;
let api: ApiUnderTest;
let engine: LiteSingleEngine;
let client: LiteClient;
let globalConfig: string;
let ledgerPath: string;

/** The bootstrap as an operator runs it (its built entry), on the suite's database. */
function bootstrap(): { summary: Json; stderr: string; seconds: number } {
  const started = Date.now();
  const out = spawnSync(process.execPath, [join(ROOT, 'services/writer/dist/bootstrap-main.js'), '--seqno', String(S), '--global-config', globalConfig, '--batch', '4'], {
    cwd: ROOT,
    env: { ...process.env, CLICKHOUSE_URL: clickhouseUrl, CLICKHOUSE_DATABASE: database },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (out.status !== 0) throw new Error(`bootstrap exited with ${out.status}:\n${out.stderr}`);
  return { summary: JSON.parse(out.stdout.trim().split('\n').pop()!) as Json, stderr: out.stderr, seconds: (Date.now() - started) / 1000 };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tonstream-bootstrap-'));
  globalConfig = join(dir, 'localnet', 'global.config.json');
  ledgerPath = join(dir, 'ledger.jsonl');
  localnet = startService(
    'localnet',
    { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '500', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `bootstrap-${database}`, LOCALNET_LEDGER: ledgerPath, METRICS_PORT: String(await freePort()) },
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
  // Past S, well within the 32 rounds (16 s) the local network keeps account states for.
  await eventually(`the chain past ${S}`, async () => ((await client.getMasterchainInfo()).last.seqno > S + 1 ? true : undefined), 60_000, 100);
}, 120_000);

afterAll(async () => {
  engine?.close();
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
    expect(first.stderr).toMatch(/bootstrap: -1:8000000000000000:11: /);
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

    // A state indexed after S (a higher last_trans_lt, at S + 1), then the bootstrap again: the newer
    // state stays, the rest are the same rows, nothing more once merged.
    const [{ record }] = await api.store.query<{ record: string }>(`SELECT record FROM ${database}.account_states_latest WHERE account = '${wallets[0]}' LIMIT 1`);
    const newer: AccountStateRecord = { ...(JSON.parse(record) as AccountStateRecord), last_trans_lt: '999999999', balance: '123', mc_block_seqno: S + 1 };
    await writeBatch(api.store, recordBatch({ accountStates: [{ ...newer, contract: describeAccount(newer) }] }));
    const second = bootstrap();
    expect(second.summary).toMatchObject({ mc_seqno: S, accounts: first.summary.accounts });
    await saveWatermark(api.store, { mc_seqno: S + 1, gen_utime: 0 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await okJson(api.base, `/api/v3/accountStates?${q([wallets[0]])}`)).accounts).toMatchObject([{ balance: '123', last_transaction_lt: '999999999' }]);
    await api.store.command(`OPTIMIZE TABLE ${database}.account_states_latest FINAL`);
    const [{ n }] = await api.store.query<{ n: string }>(`SELECT count() AS n FROM ${database}.account_states_latest`);
    expect(Number(n)).toBe(Number(first.summary.accounts));
    expect((await okJson(api.base, `/api/v3/accountStates?${q([wallets[0]])}`)).accounts).toMatchObject([{ balance: '123' }]);
  });
});
