import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, Cell, external, internal, type MessageRelaxed, SendMode, storeMessage, toNano } from '@ton/core';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS } from '@tonstream/localnet';
import { createStore, type Store, writeMetadataEntries } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJetton, jettonMintBody, jettonTransferBody } from '../../packages/localnet/src/traffic/assets.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { wsClient } from './streaming-clients.js';
import { readLedger } from '../support/ledger.js';
import { raw } from '../support/ledger.js';

/**
 * Issue 16: `address_book` and `metadata` in notifications, filled from the index. A Jetton is minted
 * on the local network and its master's off-chain metadata written as the metadata worker would;
 * then a transfer streams to a client with include_address_book + include_metadata and to one
 * without. The first must get, on every `transactions` and `jettons_change` notification, the
 * `metadata` the v3 API's /metadata answers for the same addresses (§6: jettons_change for owner and
 * master; transactions for account, in_msg source and out_msgs destinations) and the book's
 * `interfaces` / `domain` the v3 address book says (the `address_book` of /transactions for the
 * same transaction); the second neither field. Stack: localnet -> fetcher -> decoder -> writer, the
 * API and the streamer over the same database.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const ROUND_MS = 600;
const TYPES = ['transactions', 'jettons_change'];
const METADATA = { name: 'Streamed Coin', symbol: 'STRM', description: 'metadata written by the test', decimals: '9', image: 'https://localnet.invalid/strm.png' };

type Note = Record<string, unknown> & { type?: string; finality?: string };
type Metadata = Record<string, { is_indexed: boolean; token_info: (Record<string, unknown> & { extra?: Record<string, unknown> })[] }>;
const withoutBalance = (m: Metadata): unknown => JSON.parse(JSON.stringify(m), (k, v: unknown) => (k === 'balance' ? undefined : v));
type BookRow = { user_friendly: string | null; domain: string | null; interfaces: string[] };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-streaming-meta-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const globalConfig = join(dir, 'localnet', 'global.config.json');
const database = `tonstream_stmeta_${run}`;
const prefix = `stmeta${run}.`;
const procs: Record<string, ServiceProcess> = {};
let env: Record<string, string> = {};
let store: Store;
let engine: LiteSingleEngine;
let client: LiteClient;
let apiBase = '';
let base = '';


const ledgerTxs = () => readLedger(ledgerPath).flatMap((r) => r.blocks.flatMap((b) => b.transactions));

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 300) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

async function api<T>(path: string, params: [string, string][]): Promise<T> {
  const res = await fetch(`${apiBase}/api/v3/${path}?${new URLSearchParams(params).toString()}`);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

beforeAll(async () => {
  env = { KAFKA_BROKERS, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: prefix, FETCHER_GLOBAL_CONFIG: globalConfig, FETCHER_START_SEQNO: '1', LOG_LEVEL: 'info' };
  store = createStore({ url: CLICKHOUSE_URL, database });
  await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `stmeta-${run}`, LOCALNET_LEDGER: ledgerPath }, ['--reset']);
  await procs.localnet.waitFor(/localnet serving/);
  await start('writer');
  await procs.writer.waitFor(/writer started/);
  await start('decoder');
  await start('fetcher');
  const apiPort = await freePort();
  await start('api', { API_HOST: '127.0.0.1', API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig, LOG_LEVEL: 'warn' });
  apiBase = `http://127.0.0.1:${apiPort}`;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // A generous bound on the lookup: this test checks what the lookup finds, not its deadline (unit-tested).
  await start('streamer', { STREAMER_PORT: String(port), STREAMER_CHECK_API_KEYS: 'false', STREAMER_MAX_CONNECTIONS_ANONYMOUS: '-1', STREAMER_REPLAY_MS: '0', STREAMER_EXTRAS_WAIT_MS: '5000' });
  await procs.streamer.waitFor(/streamer reading/);
  await until('the API up', async () => ((await fetch(`${apiBase}/api/v3/masterchainInfo`).catch(() => undefined))?.ok ? true : undefined), 60_000);
  const [ls] = readGlobalConfig(globalConfig);
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  client = new LiteClient({ engine });
}, 240_000);

afterAll(async () => {
  engine?.close();
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
}, 60_000);

describe('address_book and metadata, streamed', () => {
  it('a client with include_* gets the v3 metadata and interfaces of a Jetton transfer; one without gets neither', async () => {
    const w = PREFUNDED_WALLETS.find((x) => x.version === 'v5r1')!;
    const keys = await mnemonicToPrivateKey(w.mnemonic.split(' '));
    const wallet = WalletContractV5R1.create({ workchain: 0, publicKey: Buffer.from(w.publicKey, 'hex') });
    const me = wallet.address;
    const receiver = Address.parseRaw(PREFUNDED_WALLETS.find((x) => x.address !== w.address)!.address);
    const name = `stmeta-${run}`;
    const jetton = createJetton(me, name);
    let seqno = 0;
    const send = async (messages: MessageRelaxed[]) => {
      const body = wallet.createTransfer({ seqno, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages });
      const boc = beginCell().store(storeMessage(external({ to: me, body }))).endCell().toBoc();
      await client.sendMessage(boc);
      seqno += 1;
      return Cell.fromBoc(boc)[0].hash().toString('base64');
    };
    const master = raw(jetton.minter);
    const senderWallet = raw(jetton.walletOf(me));
    const owner = raw(me);

    await send([internal({ to: jetton.minter, value: toNano('0.5'), bounce: false, init: jetton.minterInit, body: jettonMintBody({ queryId: 1n, minter: jetton.minter, to: me, amount: 1000n, response: me }) })]);
    // The master's off-chain document, as the metadata worker stores it once fetched.
    const uri = `https://localnet.invalid/${name}.json`;
    // Master and wallet stored before the transfer: what the streamer looks up is what the index holds
    // (an address that became a token less than STREAMER_EXTRAS_TTL_MS ago may still be cached as none).
    await until('the minted master and wallet indexed', async () => {
      const masters = await api<{ jetton_masters: unknown[] }>('jetton/masters', [['address', master]]);
      const wallets = await api<{ jetton_wallets: { balance: string }[] }>('jetton/wallets', [['address', senderWallet]]);
      return masters.jetton_masters.length > 0 && wallets.jetton_wallets[0]?.balance === '1000' ? true : undefined;
    });
    await writeMetadataEntries(store, [{ uri, status: 'ok', reason: '', content: JSON.stringify(METADATA), attempts: 1, next_attempt_at: 0, updated_at: Date.now() }]);
    const apiMetadata = await api<Metadata>('metadata', [['address', owner], ['address', master]]);
    // The v3 endpoint serves what was written (independent of the streamer).
    expect(apiMetadata[master].is_indexed).toBe(true);
    expect(apiMetadata[master].token_info[0]).toMatchObject({ type: 'jetton_masters', name: METADATA.name, symbol: METADATA.symbol, description: METADATA.description, image: METADATA.image });
    expect(Object.keys(apiMetadata)).toEqual([master]);

    const asking = await wsClient(`${base.replace('http', 'ws')}/api/streaming/v2/ws`);
    const plain = await wsClient(`${base.replace('http', 'ws')}/api/streaming/v2/ws`);
    expect(await asking.request({ operation: 'subscribe', id: 'a', types: TYPES, addresses: [owner], min_finality: 'confirmed', include_address_book: true, include_metadata: true })).toEqual({ id: 'a', status: 'subscribed' });
    expect(await plain.request({ operation: 'subscribe', id: 'p', types: TYPES, addresses: [owner], min_finality: 'confirmed' })).toEqual({ id: 'p', status: 'subscribed' });

    const extHash = await send([internal({ to: jetton.walletOf(me), value: toNano('0.1'), body: jettonTransferBody({ queryId: 7n, amount: 250n, to: receiver, response: me, comment: 'streamed' }) })]);
    // The owner's transaction that consumed the external: it sends to its Jetton wallet.
    const rootTx = await until('the transfer on chain', async () => ledgerTxs().find((t) => t.in_msg === extHash));
    const hasAll = (events: Note[]) => {
      const got = (type: string, finality: string, pick: (e: Note) => boolean) => events.some((e) => e.type === type && e.finality === finality && pick(e));
      const ofRoot = (e: Note) => (e.transactions as { hash: string }[]).some((t) => t.hash === rootTx.hash);
      const ofSender = (e: Note) => (e.jetton as { address: string }).address === senderWallet;
      return ['confirmed', 'finalized'].every((f) => got('transactions', f, ofRoot) && got('jettons_change', f, ofSender)) ? true : undefined;
    };
    await until('the client with include_* has the transfer confirmed and finalized', async () => hasAll(asking.notifications() as Note[]));
    await until('the plain client has it', async () => hasAll(plain.notifications() as Note[]));

    // The v3 API's answers for the same addresses, over the same database.
    const v3Tx = await api<{ transactions: { hash: string }[]; address_book: Record<string, BookRow> }>('transactions', [['hash', rootTx.hash]]);
    expect(v3Tx.transactions.map((t) => t.hash)).toEqual([rootTx.hash]);
    const v3Wallet = await api<{ address_book: Record<string, BookRow> }>('jetton/wallets', [['address', senderWallet]]);
    const v3Book: Record<string, BookRow> = { ...v3Wallet.address_book, ...v3Tx.address_book };
    // Detected from the code hashes (docs/toncenter-v3.md §4's names): the reference for what the book must say.
    expect(v3Book[master].interfaces).toContain('jetton_master');
    expect(v3Book[senderWallet].interfaces).toContain('jetton_wallet');

    const notes = (asking.notifications() as Note[]).filter((n) => n.type === 'jettons_change' || (n.transactions as { hash: string }[]).some((t) => t.hash === rootTx.hash));
    let jettonNotes = 0;
    for (const n of notes) {
      const book = n.address_book as Record<string, BookRow>;
      expect(book, JSON.stringify(n)).toBeDefined();
      for (const [address, row] of Object.entries(book)) {
        expect(v3Book[address], address).toBeDefined();
        expect({ address, ...row }).toEqual({ address, ...v3Book[address] });
      }
      if (n.type === 'jettons_change') {
        if ((n.jetton as { address: string }).address !== senderWallet) continue;
        jettonNotes += 1;
        expect(Object.keys(book).sort()).toEqual([senderWallet, owner, master].sort());
        // §6.5: metadata of owner and master, exactly what /metadata answers for them.
        expect(n.metadata).toEqual(apiMetadata);
      } else {
        const txs = n.transactions as { account: string; in_msg: { source: string | null } | null; out_msgs: { destination: string | null }[] }[];
        const addresses = [...new Set(txs.flatMap((t) => [t.account, t.in_msg?.source ?? null, ...t.out_msgs.map((m) => m.destination)]).filter((a): a is string => a !== null))];
        expect(addresses).toContain(senderWallet);
        const v3 = await api<Metadata>('metadata', addresses.map((a) => ['address', a]));
        const streamed = n.metadata as Metadata;
        expect(Object.keys(streamed).sort()).toEqual([senderWallet, master].sort());
        // A Jetton wallet's entry carries its balance as stored when it was looked up: as minted, or after the transfer.
        expect(['1000', '750']).toContain(streamed[senderWallet].token_info[0].extra?.balance);
        expect(withoutBalance(streamed)).toEqual(withoutBalance(v3));
      }
    }
    expect(jettonNotes).toBe(2);
    // The chain keeps producing blocks, so a snapshot may hold the next emission mid-lookup: wait for a drained queue.
    const extras = await until('the streamer\'s emit queue drained', async () => {
      const health = (await (await fetch(`${base}/api/streaming/healthz`)).json()) as { components: { streamer: { extras: Record<string, unknown> } } };
      return health.components.streamer.extras.queued === 0 ? health.components.streamer.extras : undefined;
    });
    console.log(JSON.stringify({ extras }));
    expect(extras).toMatchObject({ failures: 0, late: 0, queued: 0 });
    for (const n of plain.notifications()) expect('address_book' in n || 'metadata' in n, JSON.stringify(n)).toBe(false);
    asking.close();
    plain.close();
  }, 300_000);
});
