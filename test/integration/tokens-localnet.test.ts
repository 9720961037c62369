import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, Cell, loadTransaction, parseTuple, serializeTuple, type TupleItem, TupleReader } from '@ton/core';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { createStore } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAskingAgainOn504 } from '../support/api-get.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

/**
 * Tokens end to end (issue 14): the local network mints, transfers and burns Jettons and mints and
 * transfers NFTs (its traffic generator), the pipeline derives the token tables, and every endpoint's
 * balances, owners and supplies must equal what the contracts' own get-methods answer through the
 * liteserver once the chain is at rest; transfer and burn amounts equal the bodies of the chain's
 * transactions, read from the liteserver with @ton/core.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const STOP_AT = 70;
/** Wallet actions per round: over 70 rounds, about ten Jetton burns (4 % of the mix) and dozens of the other Jetton and NFT kinds. */
const TRAFFIC_RATE = 4;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-tokens-${run}-`));
const database = `tonstream_tokens_${run}`;
const procs: ServiceProcess[] = [];
let base = '';
let lite: LiteClient;
let engine: LiteSingleEngine;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API answers, checked field by field
type Json = Record<string, any>;
const raw = (a: Address | null) => (a ? `${a.workChain}:${a.hash.toString('hex').toUpperCase()}` : null);

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/api/v3${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Json };
}
/** A read that must succeed; the API's 3 s query cap (504) is asked again, as in the other suites (ci47 met one). */
async function ok(path: string): Promise<Json> {
  const res = await getAskingAgainOn504(`${base}/api/v3${path}`);
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

/** A v2 method's result (toncenter's envelope checked). */
async function v2(method: string, address: string): Promise<Json> {
  const res = await fetch(`${base}/api/v2/${method}?address=${encodeURIComponent(address)}`);
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(200);
  expect(body.ok).toBe(true);
  return body.result as Json;
}

/** TEP-64 off-chain content (`0x01` + URI) read with @ton/core; anything else fails the test. */
function offchainUri(c: Cell): string {
  const s = c.beginParse();
  expect(s.loadUint(8)).toBe(1);
  return s.loadStringTail();
}

/** A transaction as the liteserver has it, with its inbound body read by @ton/core. */
async function chainTx(account: string, lt: string, hashB64: string) {
  const r = await lite.getAccountTransactions(Address.parse(account), lt, Buffer.from(hashB64, 'base64'), 1);
  const tx = loadTransaction(Cell.fromBoc(r.transactions)[0].beginParse());
  return { tx, body: tx.inMessage!.body.beginParse() };
}

beforeAll(async () => {
  const stateDir = join(dir, 'localnet');
  const ledger = join(dir, 'ledger.jsonl');
  const globalConfig = join(stateDir, 'global.config.json');
  const env = { KAFKA_BROKERS, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: `tokens${run}.`, FETCHER_GLOBAL_CONFIG: globalConfig, FETCHER_START_SEQNO: '1', LOG_LEVEL: 'info' };
  const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
    const p = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
    procs.push(p);
    return p;
  };
  const localnet = await start('localnet', {
    LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: stateDir, LOCALNET_ROUND_MS: '300', LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE),
    LOCALNET_SEED: `tokens-${run}`, LOCALNET_LEDGER: ledger, LOCALNET_STOP_AT_SEQNO: String(STOP_AT),
  }, ['--reset']);
  await localnet.waitFor(/localnet serving/);
  const apiPort = await freePort();
  await start('api', { API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig });
  await start('writer');
  await start('decoder');
  await start('fetcher');
  base = `http://127.0.0.1:${apiPort}`;
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
  const store = createStore({ url: CLICKHOUSE_URL, database });
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
});

describe('Jettons on the local network', () => {
  it('/jetton/masters: supply, mintable and admin equal get_jetton_data; every wallet a transfer named is listed', async () => {
    const { jetton_masters } = await ok('/jetton/masters?limit=100');
    expect(jetton_masters.length).toBeGreaterThan(0);
    for (const m of jetton_masters) {
      const r = await chainGet(m.address, 'get_jetton_data');
      expect(m.total_supply).toBe(r.readBigNumber().toString());
      expect(m.mintable).toBe(r.readBigNumber() !== 0n);
      expect(m.admin_address).toBe(raw(r.readAddressOpt()));
      r.readCell();
      expect(m.jetton_wallet_code_hash).toBe(r.readCell().hash().toString('base64'));
      // (The supply need not be the holders' sum: the chain stops with transfers and mints in flight.)
      const { jetton_wallets } = await ok(`/jetton/wallets?jetton_address=${m.address}&limit=1000`);
      const listed = new Set(jetton_wallets.map((w: Json) => w.address));
      const { jetton_transfers } = await ok(`/jetton/transfers?jetton_master=${m.address}&limit=1000`);
      for (const t of jetton_transfers) expect(listed.has(t.source_wallet), t.source_wallet).toBe(true);
    }
  });

  it('/jetton/wallets: every wallet\'s balance, owner and jetton equal get_wallet_data; sort=desc orders by balance', async () => {
    const { jetton_masters } = await ok('/jetton/masters');
    const master = jetton_masters[0].address;
    const { jetton_wallets, address_book, metadata } = await ok(`/jetton/wallets?jetton_address=${master}&sort=desc&limit=1000`);
    expect(jetton_wallets.length).toBeGreaterThan(1);
    for (const w of jetton_wallets) {
      const r = await chainGet(w.address, 'get_wallet_data');
      expect({ balance: w.balance, owner: w.owner, jetton: w.jetton }).toEqual({ balance: r.readBigNumber().toString(), owner: raw(r.readAddress()), jetton: raw(r.readAddress()) });
      expect(address_book[w.address].interfaces).toEqual(['jetton_wallet']);
      expect(metadata[w.address].token_info[0]).toMatchObject({ type: 'jetton_wallets', extra: { owner: w.owner, jetton: w.jetton, balance: w.balance } });
    }
    const balances = jetton_wallets.map((w: Json) => BigInt(w.balance));
    expect(balances).toEqual([...balances].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
  });

  it('/jetton/wallets?owner_address=…: only that owner\'s wallets; a misspelt filter is a 422 under X-Strict-Params', async () => {
    const { jetton_wallets } = await ok('/jetton/wallets?limit=1000');
    const owner = jetton_wallets[0].owner;
    const mine = await ok(`/jetton/wallets?owner_address=${owner}`);
    expect(mine.jetton_wallets.length).toBeGreaterThan(0);
    expect(mine.jetton_wallets.every((w: Json) => w.owner === owner)).toBe(true);
    const strict = await get(`/jetton/wallets?owner_id=${owner}`, { 'x-strict-params': 'true' });
    expect(strict.status).toBe(422);
    expect(strict.body.error).toMatch(/owner_id/);
  });

  it('/jetton/transfers and /jetton/burns: amounts, parties and query ids equal the chain\'s transaction bodies', async () => {
    const { jetton_masters } = await ok('/jetton/masters');
    const master = jetton_masters[0].address;
    const { jetton_transfers } = await ok(`/jetton/transfers?jetton_master=${master}&limit=1000`);
    expect(jetton_transfers.length).toBeGreaterThan(0);
    for (const t of jetton_transfers) {
      const { tx, body } = await chainTx(t.source_wallet, t.transaction_lt, t.transaction_hash);
      expect(body.loadUint(32)).toBe(0x0f8a7ea5);
      expect(t.query_id).toBe(body.loadUintBig(64).toString());
      expect(t.amount).toBe(body.loadCoins().toString());
      expect(t.destination).toBe(raw(body.loadAddress()));
      expect(t.source).toBe(raw(tx.inMessage!.info.src as Address));
      expect(t.transaction_aborted).toBe(false);
    }
    const { jetton_burns } = await ok(`/jetton/burns?jetton_master=${master}&limit=1000`);
    expect(jetton_burns.length).toBeGreaterThan(0);
    for (const b of jetton_burns) {
      const { tx, body } = await chainTx(b.jetton_wallet, b.transaction_lt, b.transaction_hash);
      expect(body.loadUint(32)).toBe(0x595f07bc);
      expect(b.query_id).toBe(body.loadUintBig(64).toString());
      expect(b.amount).toBe(body.loadCoins().toString());
      expect(b.owner).toBe(raw(tx.inMessage!.info.src as Address));
    }
    // By owner: each transfer names the owner as sender or receiver.
    const owner = jetton_transfers[0].source;
    const byOwner = await ok(`/jetton/transfers?owner_address=${owner}&direction=out&limit=1000`);
    expect(byOwner.jetton_transfers.length).toBeGreaterThan(0);
    expect(byOwner.jetton_transfers.every((t: Json) => t.source === owner)).toBe(true);
    // By Jetton wallet, alone and with the owner: the chain-checked transfers sent from that wallet.
    const key = (ts: Json[]) => ts.map((t) => t.transaction_hash).sort();
    const wallet = jetton_transfers[0].source_wallet;
    const fromWallet = jetton_transfers.filter((t: Json) => t.source_wallet === wallet);
    expect(key((await ok(`/jetton/transfers?jetton_wallet=${wallet}&limit=1000`)).jetton_transfers)).toEqual(key(fromWallet));
    const ownerOfWallet = fromWallet[0].source;
    expect(key((await ok(`/jetton/transfers?owner_address=${ownerOfWallet}&jetton_wallet=${wallet}&limit=1000`)).jetton_transfers)).toEqual(key(fromWallet.filter((t: Json) => t.source === ownerOfWallet)));
    const burnt = jetton_burns[0].jetton_wallet;
    expect(key((await ok(`/jetton/burns?jetton_wallet=${burnt}&limit=1000`)).jetton_burns)).toEqual(key(jetton_burns.filter((b: Json) => b.jetton_wallet === burnt)));
    expect(key((await ok(`/jetton/burns?owner_address=${jetton_burns[0].owner}&jetton_wallet=${burnt}&limit=1000`)).jetton_burns)).toEqual(
      key(jetton_burns.filter((b: Json) => b.jetton_wallet === burnt && b.owner === jetton_burns[0].owner)),
    );
  });
});

describe('NFTs on the local network', () => {
  it('/nft/items: init, index, collection and owner equal get_nft_data; the collection answers each item\'s address by index', async () => {
    const { nft_collections } = await ok('/nft/collections');
    expect(nft_collections.length).toBeGreaterThan(0);
    const collection = nft_collections[0].address;
    const { nft_items } = await ok(`/nft/items?collection_address=${collection}&limit=1000`);
    expect(nft_items.length).toBeGreaterThan(0);
    for (const item of nft_items) {
      const r = await chainGet(item.address, 'get_nft_data');
      expect({ init: item.init, index: item.index, collection: item.collection_address, owner: item.owner_address }).toEqual({
        init: r.readBigNumber() !== 0n, index: r.readBigNumber().toString(), collection: raw(r.readAddress()), owner: raw(r.readAddressOpt()),
      });
      const byIndex = await chainGet(collection, 'get_nft_address_by_index', [{ type: 'int', value: BigInt(item.index) }]);
      expect(raw(byIndex.readAddress())).toBe(item.address);
    }
    // Items minted so far: the collection's next index is past every indexed one.
    expect(BigInt(nft_collections[0].next_item_index)).toBeGreaterThan(BigInt(nft_items.map((i: Json) => Number(i.index)).sort((a: number, b: number) => b - a)[0]));
    const owner = nft_items[0].owner_address;
    const owned = await ok(`/nft/items?owner_address=${owner}`);
    expect(owned.nft_items.every((i: Json) => i.owner_address === owner)).toBe(true);
  });

  it('/nft/transfers: new owners and query ids equal the chain\'s bodies; the latest transfer of an item names its current owner', async () => {
    const { nft_collections } = await ok('/nft/collections');
    const collection = nft_collections[0].address;
    const { nft_transfers } = await ok(`/nft/transfers?collection_address=${collection}&limit=1000`);
    expect(nft_transfers.length).toBeGreaterThan(0);
    const latest = new Map<string, Json>();
    for (const t of nft_transfers) {
      const { tx, body } = await chainTx(t.nft_address, t.transaction_lt, t.transaction_hash);
      expect(body.loadUint(32)).toBe(0x5fcc3d14);
      expect(t.query_id).toBe(body.loadUintBig(64).toString());
      expect(t.new_owner).toBe(raw(body.loadAddress()));
      expect(t.old_owner).toBe(raw(tx.inMessage!.info.src as Address));
      if (!t.transaction_aborted && !latest.has(t.nft_address)) latest.set(t.nft_address, t);
    }
    for (const [item, t] of latest) {
      const r = await chainGet(item, 'get_nft_data');
      r.readBigNumber(); r.readBigNumber(); r.readAddress();
      expect(raw(r.readAddressOpt())).toBe(t.new_owner);
    }
    // By item, alone and with an owner and a direction: the chain-checked transfers of that item.
    const key = (ts: Json[]) => ts.map((t) => t.transaction_hash).sort();
    const item = nft_transfers[0].nft_address;
    const ofItem = nft_transfers.filter((t: Json) => t.nft_address === item);
    expect(key((await ok(`/nft/transfers?item_address=${item}&limit=1000`)).nft_transfers)).toEqual(key(ofItem));
    const receiver = ofItem[0].new_owner;
    expect(key((await ok(`/nft/transfers?owner_address=${receiver}&item_address=${item}&direction=in&limit=1000`)).nft_transfers)).toEqual(key(ofItem.filter((t: Json) => t.new_owner === receiver)));
  });

  it('/nft/collections: owner, next index and content equal get_collection_data; items\' content equals the collection\'s get_nft_content', async () => {
    const { nft_collections } = await ok('/nft/collections');
    expect(nft_collections.length).toBeGreaterThan(0);
    for (const c of nft_collections) {
      const r = await chainGet(c.address, 'get_collection_data');
      expect({ next_item_index: c.next_item_index, collection_content: c.collection_content, owner_address: c.owner_address }).toEqual({
        next_item_index: r.readBigNumber().toString(), collection_content: { uri: offchainUri(r.readCell()) }, owner_address: raw(r.readAddressOpt()),
      });
      const { nft_items } = await ok(`/nft/items?collection_address=${c.address}&limit=1000`);
      expect(nft_items.length).toBeGreaterThan(0);
      for (const item of nft_items) {
        const d = await chainGet(item.address, 'get_nft_data');
        d.readBigNumber(); d.readBigNumber(); d.readAddress(); d.readAddressOpt();
        const full = await chainGet(c.address, 'get_nft_content', [{ type: 'int', value: BigInt(item.index) }, { type: 'cell', cell: d.readCell() }]);
        expect(item.content).toEqual({ uri: offchainUri(full.readCell()) });
      }
    }
  });

  it('/accountStates: interfaces of the token contracts', async () => {
    const { nft_collections } = await ok('/nft/collections');
    const { jetton_masters } = await ok('/jetton/masters');
    const { accounts } = await ok(`/accountStates?address=${nft_collections[0].address}&address=${jetton_masters[0].address}&include_boc=false`);
    const byAddress = Object.fromEntries(accounts.map((a: Json) => [a.address, a.interfaces]));
    expect(byAddress[nft_collections[0].address]).toEqual(['nft_collection']);
    expect(byAddress[jetton_masters[0].address]).toEqual(['jetton_master']);
  });
});

describe('v2 getTokenData on the local network: all four token kinds equal their get-methods', () => {
  const friendly = (a: Address | null) => a?.toString() ?? null;

  it('Jetton master and Jetton wallet', async () => {
    const { jetton_masters } = await ok('/jetton/masters');
    const master = jetton_masters[0].address;
    const m = await chainGet(master, 'get_jetton_data');
    const masterData = await v2('getTokenData', master);
    const supply = m.readBigNumber().toString();
    const mintable = m.readBigNumber() !== 0n;
    const admin = friendly(m.readAddressOpt());
    expect(masterData).toEqual({
      '@type': 'ext.tokens.jettonMasterData', address: Address.parse(master).toString(), contract_type: 'jetton_master', total_supply: supply, mintable, admin_address: admin,
      jetton_content: { type: 'offchain', data: offchainUri(m.readCell()) }, jetton_wallet_code: m.readCell().toBoc().toString('base64'),
    });
    const { jetton_wallets } = await ok(`/jetton/wallets?jetton_address=${master}&limit=1`);
    const wallet = jetton_wallets[0].address;
    const w = await chainGet(wallet, 'get_wallet_data');
    expect(await v2('getTokenData', wallet)).toEqual({
      '@type': 'ext.tokens.jettonWalletData', address: Address.parse(wallet).toString(), contract_type: 'jetton_wallet',
      balance: w.readBigNumber().toString(), owner: friendly(w.readAddress()), jetton: friendly(w.readAddress()), jetton_wallet_code: w.readCell().toBoc().toString('base64'),
    });
  });

  it('NFT collection and NFT item (its content completed by the collection)', async () => {
    const { nft_collections } = await ok('/nft/collections');
    const collection = nft_collections[0].address;
    const c = await chainGet(collection, 'get_collection_data');
    const next = c.readBigNumber().toString();
    const content = offchainUri(c.readCell());
    expect(await v2('getTokenData', collection)).toEqual({
      '@type': 'ext.tokens.nftCollectionData', address: Address.parse(collection).toString(), contract_type: 'nft_collection',
      next_item_index: next, owner_address: friendly(c.readAddressOpt()), collection_content: { type: 'offchain', data: content },
    });
    const { nft_items } = await ok(`/nft/items?collection_address=${collection}&limit=1`);
    const item = nft_items[0].address;
    const n = await chainGet(item, 'get_nft_data');
    const init = n.readBigNumber() !== 0n;
    const index = n.readBigNumber();
    const itemCollection = friendly(n.readAddress());
    const owner = friendly(n.readAddressOpt());
    const full = await chainGet(collection, 'get_nft_content', [{ type: 'int', value: index }, { type: 'cell', cell: n.readCell() }]);
    expect(await v2('getTokenData', item)).toEqual({
      '@type': 'ext.tokens.nftItemData', address: Address.parse(item).toString(), contract_type: 'nft_item', init, index: index.toString(),
      collection_address: itemCollection, owner_address: owner, content: { type: 'offchain', data: offchainUri(full.readCell()) },
    });
  });
});
