import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, Cell, Dictionary, parseTuple, serializeTuple, type TupleItem, TupleReader } from '@ton/core';
import { MultisigWallet } from '@ton/ton';
import { methodId } from '@tonstream/contracts';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { createStore, type Store, str } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { raw } from '../support/ledger.js';

/**
 * Vesting and multisig v1 end to end (issue 14): the local network's traffic deploys a vesting
 * wallet and a multisig v1 wallet and uses both; the pipeline derives the contract tables, and what
 * /vesting serves equals the wallet's own get_vesting_data and get_whitelist through the liteserver
 * once the chain is at rest; /accountStates gives the multisig v1 wallet no interface (toncenter's
 * list has no name for it) and lists its get-methods (get_n_k answers its owners and threshold).
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const STOP_AT = 30;
/** Wallet actions per round: the traffic deploys both wallets in its first rounds at any rate; this gives each a few orders and withdrawals. */
const TRAFFIC_RATE = 3;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-contracts-${run}-`));
const database = `tonstream_contracts_${run}`;
const procs: ServiceProcess[] = [];
let base = '';
let lite: LiteClient;
let engine: LiteSingleEngine;
let store: Store;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API answers, checked field by field
type Json = Record<string, any>;

async function ok(path: string): Promise<Json> {
  const res = await fetch(`${base}/api/v3${path}`);
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
  return body;
}

async function chainGet(address: string, method: string, args: TupleItem[] = []): Promise<TupleReader> {
  const last = (await lite.getMasterchainInfo()).last;
  const res = await lite.runMethod(Address.parse(address), method, serializeTuple(args).toBoc(), last);
  expect(res.exitCode, `${method} on ${address}`).toBe(0);
  return new TupleReader(parseTuple(Cell.fromBase64(res.result!)));
}

beforeAll(async () => {
  const stateDir = join(dir, 'localnet');
  const ledger = join(dir, 'ledger.jsonl');
  const globalConfig = join(stateDir, 'global.config.json');
  const env = { KAFKA_BROKERS, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: `contracts${run}.`, FETCHER_GLOBAL_CONFIG: globalConfig, FETCHER_START_SEQNO: '1', LOG_LEVEL: 'info' };
  const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
    const p = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
    procs.push(p);
    return p;
  };
  const localnet = await start('localnet', {
    LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: stateDir, LOCALNET_ROUND_MS: '300', LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE),
    LOCALNET_SEED: `contracts-${run}`, LOCALNET_LEDGER: ledger, LOCALNET_STOP_AT_SEQNO: String(STOP_AT),
  }, ['--reset']);
  await localnet.waitFor(/localnet serving/);
  const apiPort = await freePort();
  await start('api', { API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig });
  await start('writer');
  await start('decoder');
  await start('fetcher');
  base = `http://127.0.0.1:${apiPort}`;
  store = createStore({ url: CLICKHOUSE_URL, database });
  const [ls] = readGlobalConfig(readFileSync(globalConfig, 'utf8'));
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  lite = new LiteClient({ engine });
  const alive = () => {
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
  };
  const rounds = () => (existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').filter(Boolean).length : 0);
  await eventually('the chain at rest', async () => (rounds() >= STOP_AT - 1 ? true : undefined), 180_000, 500, alive);
  await eventually(`the index at mc ${STOP_AT}`, async () => {
    const res = await fetch(`${base}/api/v3/masterchainInfo`);
    return res.ok && Number(res.headers.get('x-index-mc-seqno')) >= STOP_AT ? true : undefined;
  }, 120_000, 500, alive);
}, 360_000);

afterAll(async () => {
  engine?.close();
  await Promise.all(procs.map((p) => p.stop()));
  await store?.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store?.close();
});

/** Accounts whose stored code has `iface` (the writer's contract_interfaces joined with the stored states). */
async function accountsWith(iface: string): Promise<string[]> {
  const rows = await store.query<{ account: string }>(
    `SELECT account FROM ${database}.account_states_latest WHERE code_hash IN (SELECT code_hash FROM ${database}.contract_interfaces WHERE has(interfaces, ${str(iface)})) GROUP BY account`,
  );
  return rows.map((r) => r.account);
}

/** Accounts whose latest stored code hash is `codeHash` (base64). */
async function accountsWithCode(codeHash: string): Promise<string[]> {
  const rows = await store.query<{ account: string }>(`SELECT DISTINCT account FROM ${database}.account_states_latest WHERE code_hash = ${str(codeHash)}`);
  return rows.map((r) => r.account);
}

describe('vesting and multisig v1 on the local network', () => {
  it('/vesting: schedule, amount, parties and whitelist equal get_vesting_data and get_whitelist', async () => {
    const wallets = await accountsWith('wallet_vesting');
    expect(wallets.length).toBeGreaterThan(0);
    for (const address of wallets) {
      const r = await chainGet(address, 'get_vesting_data');
      const expected = {
        address, start_time: r.readNumber(), total_duration: r.readNumber(), unlock_period: r.readNumber(), cliff_duration: r.readNumber(),
        total_amount: r.readBigNumber().toString(), sender_address: raw(r.readAddress()), owner_address: raw(r.readAddress()),
      };
      let list = (await chainGet(address, 'get_whitelist')).pop();
      const whitelist: string[] = [];
      while (list.type === 'tuple') {
        const [pair, tail] = list.items;
        if (pair.type !== 'tuple' || pair.items[0].type !== 'int' || pair.items[1].type !== 'int') throw new Error('not a (workchain, hash) pair');
        whitelist.push(`${pair.items[0].value}:${pair.items[1].value.toString(16).padStart(64, '0').toUpperCase()}`);
        list = tail;
      }
      const served = await ok(`/vesting?contract_address=${address}`);
      expect(served.vesting_contracts).toEqual([{ ...expected, whitelist }]);
      // Found by its owner and by its sender too.
      for (const party of [expected.owner_address, expected.sender_address]) {
        const found = await ok(`/vesting?wallet_address=${party}&limit=1000`);
        expect(found.vesting_contracts.map((v: Json) => v.address)).toContain(address);
      }
    }
  });

  it('/accountStates gives the multisig v1 wallet interfaces null (get-methods, none in toncenter\'s list) and lists get_n_k and get_public_keys', async () => {
    const multisigs = await accountsWithCode(new MultisigWallet([Buffer.alloc(32, 1)], 0, 1, 1).init.code!.hash().toString('base64'));
    expect(multisigs.length).toBeGreaterThan(0);
    const { accounts } = await ok(`/accountStates?${multisigs.map((a) => `address=${a}`).join('&')}`);
    expect(accounts.length).toBe(multisigs.length);
    for (const a of accounts) {
      expect(a.interfaces).toBeNull();
      expect(a.contract_methods).toEqual(expect.arrayContaining([methodId('get_n_k'), methodId('get_public_keys')]));
      const nk = await chainGet(a.address, 'get_n_k');
      const n = nk.readNumber();
      expect(nk.readNumber()).toBeLessThanOrEqual(n);
      const keys = Dictionary.loadDirect(Dictionary.Keys.Uint(8), Dictionary.Values.Buffer(33), (await chainGet(a.address, 'get_public_keys')).readCell());
      expect(keys.size).toBe(n);
    }
  });
});
