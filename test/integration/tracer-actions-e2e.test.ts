import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, Cell, external, internal, type MessageRelaxed, SendMode, storeMessage, storeMessageRelaxed, toNano } from '@ton/core';
import { storeJettonTransferMessage } from '@ton-community/assets-sdk';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS, type PrefundedWallet } from '@tonstream/localnet';
import { createStore, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJetton, createNftSet, jettonBurnBody, jettonMintBody, NFT_GAS, nftMintBody, nftTransferBody } from '../../packages/localnet/src/traffic/assets.js';
import { createMultisig } from '../../packages/localnet/src/traffic/multisig.js';
import { createVesting } from '../../packages/localnet/src/traffic/vesting.js';
import { getAskingAgainOn504 } from '../support/api-get.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { type PlacedTx, placedTransactions, raw, readLedger, traceFrom } from '../support/ledger.js';

/**
 * Actions end to end on the local network: localnet (no generated traffic) -> fetcher -> decoder ->
 * writer + tracer -> api. Each operation is built and signed here with the prefunded wallets and sent
 * to the liteserver; the expected action is what was sent (addresses computed with @ton/core, amounts
 * and comments chosen here), and each trace's transactions are the chain's ledger's (transactions
 * linked by message hashes from the root that consumed the external).
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type WalletKeys = { w: PrefundedWallet; contract: WalletContractV4 | WalletContractV5R1; secretKey: Buffer; seqno: number };
type Action = { type: string; success: boolean; trace_id: string; details: Record<string, unknown>; accounts?: string[]; transactions: string[] };
type Trace = { trace_id: string; is_incomplete: boolean; trace_info: { trace_state: string; transactions: number } };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-actions-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_actions_${run}`;
const prefix = `actions${run}.`;
const procs: Record<string, ServiceProcess> = {};
const wallets: WalletKeys[] = [];
let env: Record<string, string> = {};
let store: Store;
let redis: Redis;
let apiPort = 0;
let client: LiteClient;
let engine: LiteSingleEngine;


const ledger = () => placedTransactions(readLedger(ledgerPath));

/** The local chain's newest masterchain seqno (the ledger has a line per round). */
const chainTip = () => readLedger(ledgerPath).at(-1)?.mc_seqno ?? 0;

/** The ledger's transactions of the trace rooted at `root`: followed through out message hashes. */
const ledgerTrace = (root: string) => traceFrom(ledger(), root);

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000, everyMs = 300) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

/** GET `path`, its query timeout (504) asked again. */
async function api<T>(path: string): Promise<T> {
  const res = await getAskingAgainOn504(`http://127.0.0.1:${apiPort}/api/v3${path}`);
  if (res.status === 200) return (await res.json()) as T;
  throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/** Sends an external and waits until the chain ran it; the hash of the transaction that consumed it is the trace id. */
async function sendExternal(boc: Buffer): Promise<string> {
  const hash = Cell.fromBoc(boc)[0].hash().toString('base64');
  await client.sendMessage(boc);
  const root = await until(`the transaction of external ${hash}`, async () => ledger().find((t) => t.in_msg === hash), 60_000, 200);
  return root.hash;
}

/** A wallet external carrying `messages`, signed for the wallet's next seqno. */
async function send(k: WalletKeys, messages: MessageRelaxed[]): Promise<string> {
  const args = { seqno: k.seqno, secretKey: k.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages };
  const body = k.contract instanceof WalletContractV4 ? k.contract.createTransfer(args) : k.contract.createTransfer(args);
  const id = await sendExternal(beginCell().store(storeMessage(external({ to: k.contract.address, body }))).endCell().toBoc());
  k.seqno++;
  return id;
}

/**
 * Waits until the tracer stored the trace complete, then checks trace_info against the ledger, and
 * returns the trace's actions as /api/v3/actions serves them.
 */
async function settledActions(traceId: string): Promise<{ actions: Action[]; ledger: PlacedTx[] }> {
  const trace = await until(`trace ${traceId} complete`, async () => {
    const body = await api<{ traces: Trace[] }>(`/traces?trace_id=${encodeURIComponent(traceId)}`);
    return body.traces[0]?.trace_info.trace_state === 'complete' ? body.traces[0] : undefined;
  });
  const txs = ledgerTrace(traceId);
  expect(trace.is_incomplete).toBe(false);
  expect(trace.trace_info.transactions, `trace ${traceId}: the ledger holds ${txs.length} transactions`).toBe(txs.length);
  // Served together with the trace (the traces watermark): no wait for the actions.
  const body = await api<{ actions: Action[] }>(`/actions?trace_id=${encodeURIComponent(traceId)}&include_accounts=true&limit=100`);
  for (const a of body.actions) expect(a.trace_id).toBe(traceId);
  return { actions: body.actions, ledger: txs };
}

function only(actions: Action[], type: string): Action {
  const found = actions.filter((a) => a.type === type);
  expect(found.map((a) => a.type), `one ${type} among ${JSON.stringify(actions.map((a) => a.type))}`).toEqual([type]);
  return found[0];
}

beforeAll(async () => {
  env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    REDIS_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: prefix,
    FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'info',
  };
  store = createStore({ url: CLICKHOUSE_URL, database });
  redis = new Redis(REDIS_URL);
  await start(
    'localnet',
    { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '400', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `actions-${run}`, LOCALNET_LEDGER: ledgerPath },
    ['--reset'],
  );
  await procs.localnet.waitFor(/localnet serving/);
  apiPort = await freePort();
  await start('writer');
  await procs.writer.waitFor(/writer started/);
  await start('api', { API_PORT: String(apiPort) });
  await start('tracer');
  await start('decoder');
  await start('fetcher');
  const [ls] = readGlobalConfig(join(dir, 'localnet', 'global.config.json'));
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  client = new LiteClient({ engine });
  // Operations go out once the index follows the chain: blocks fetched while catching up come without
  // the account states the local liteserver no longer keeps, and the classifier reads its contracts
  // from them (a Jetton mint without its wallet's state is a failed jetton_mint with no receiver wallet).
  const tip = chainTip();
  await until(`the index at the chain's masterchain block ${tip}`, async () => {
    const indexed = await api<{ last: { seqno: number } }>('/masterchainInfo').catch(() => undefined);
    return indexed && indexed.last.seqno >= tip ? true : undefined;
  }, 150_000, 500);
  for (const w of PREFUNDED_WALLETS) {
    const keys = await mnemonicToPrivateKey(w.mnemonic.split(' '));
    const publicKey = Buffer.from(w.publicKey, 'hex');
    const contract = w.version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey });
    expect(raw(contract.address)).toBe(w.address.toUpperCase());
    wallets.push({ w, contract, secretKey: keys.secretKey, seqno: 0 });
  }
}, 300_000);

afterAll(async () => {
  engine?.close();
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
  const keys = await redis.keys(`${prefix}tracer:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}, 60_000);

describe('actions of operations sent on the local network', () => {
  // Two shards split by the address's top bit: the v5 sender (0x2d..) and the receiver (0xc9..) sit in different ones.
  const v5 = () => wallets[3];
  const receiver = () => wallets[4].contract.address;

  const jetton = () => createJetton(v5().contract.address, `actions-${run}`);

  it('a Jetton mint', async () => {
    const k = v5();
    const me = k.contract.address;
    const mint = await send(k, [internal({ to: jetton().minter, value: toNano('0.5'), bounce: false, init: jetton().minterInit, body: jettonMintBody({ queryId: 11n, minter: jetton().minter, to: me, amount: 1000n, response: me }) })]);
    const minted = await settledActions(mint);
    expect(only(minted.actions, 'jetton_mint')).toMatchObject({ success: true, details: { asset: raw(jetton().minter), receiver: raw(me), receiver_jetton_wallet: raw(jetton().walletOf(me)), amount: '1000' } });
  }, 240_000);

  it('a Jetton transfer from a v5 wallet: one trace across blocks and both shards, one jetton_transfer', async () => {
    const k = v5();
    const me = k.contract.address;
    const forwardPayload = beginCell().storeUint(0, 32).storeStringTail('tracer e2e jetton').endCell();
    const body = beginCell().store(storeJettonTransferMessage({ queryId: 12n, amount: 250n, destination: receiver(), responseDestination: me, customPayload: null, forwardAmount: toNano('0.02'), forwardPayload })).endCell();
    const moved = await settledActions(await send(k, [internal({ to: jetton().walletOf(me), value: toNano('0.1'), body })]));
    // wallet, its Jetton wallet, the receiver's Jetton wallet, then the notification to the receiver and the excess back.
    expect(moved.ledger.map((t) => t.account)).toEqual([raw(me), raw(jetton().walletOf(me)), raw(jetton().walletOf(receiver())), raw(receiver()), raw(me)]);
    expect(new Set(moved.ledger.map((t) => t.mc_seqno)).size, 'masterchain blocks the trace spans').toBeGreaterThan(1);
    expect(new Set(moved.ledger.map((t) => t.shard)).size, 'shards the trace spans').toBe(2);
    expect(only(moved.actions, 'jetton_transfer')).toMatchObject({
      success: true,
      details: {
        asset: raw(jetton().minter),
        sender: raw(me),
        receiver: raw(receiver()),
        sender_jetton_wallet: raw(jetton().walletOf(me)),
        receiver_jetton_wallet: raw(jetton().walletOf(receiver())),
        amount: '250',
        forward_amount: toNano('0.02').toString(),
        comment: 'tracer e2e jetton',
        query_id: '12',
      },
    });
  }, 240_000);

  it('a Jetton burn', async () => {
    const k = v5();
    const me = k.contract.address;
    const burnt = await settledActions(await send(k, [internal({ to: jetton().walletOf(me), value: toNano('0.1'), body: jettonBurnBody({ queryId: 13n, amount: 100n, response: me }) })]));
    expect(burnt.ledger.map((t) => t.account)).toEqual([raw(me), raw(jetton().walletOf(me)), raw(jetton().minter), raw(me)]);
    expect(only(burnt.actions, 'jetton_burn')).toMatchObject({ success: true, details: { owner: raw(me), owner_jetton_wallet: raw(jetton().walletOf(me)), asset: raw(jetton().minter), amount: '100' } });
  }, 240_000);

  const nft = () => createNftSet(wallets[0].contract.address, `actions-${run}`);

  it('an NFT mint', async () => {
    const k = wallets[0];
    const minted = await settledActions(await send(k, [internal({ to: nft().collection, value: toNano('0.5'), bounce: false, init: nft().collectionInit, body: nftMintBody({ queryId: 21n, index: 0, owner: k.contract.address }) })]));
    expect(minted.ledger.map((t) => t.account)).toEqual([raw(k.contract.address), raw(nft().collection), raw(nft().itemAddress(0))]);
    expect(only(minted.actions, 'nft_mint')).toMatchObject({ success: true, details: { nft_item: raw(nft().itemAddress(0)), nft_collection: raw(nft().collection) } });
  }, 240_000);

  it('an NFT transfer', async () => {
    const k = wallets[0];
    const me = k.contract.address;
    const moved = await settledActions(await send(k, [internal({ to: nft().itemAddress(0), value: NFT_GAS, body: nftTransferBody({ queryId: 22n, newOwner: receiver(), response: me }) })]));
    expect(only(moved.actions, 'nft_transfer')).toMatchObject({ success: true, details: { nft_item: raw(nft().itemAddress(0)), nft_collection: raw(nft().collection), old_owner: raw(me), new_owner: raw(receiver()), query_id: '22' } });
  }, 240_000);

  it('a TON transfer with a comment, a bounce and a contract deploy', async () => {
    const k = wallets[1];
    const me = k.contract.address;
    const plain = await send(k, [internal({ to: receiver(), value: 1_234_567_890n, bounce: false, body: 'tracer e2e comment' })]);
    const sent = await settledActions(plain);
    expect(sent.actions).toHaveLength(1);
    expect(sent.actions[0]).toMatchObject({ type: 'ton_transfer', success: true, details: { source: raw(me), destination: raw(receiver()), value: '1234567890', comment: 'tracer e2e comment', encrypted: false } });

    // A bounceable transfer to an account that does not exist comes back (the ledger holds the bounce).
    const nowhere = new Address(0, randomBytes(32));
    const bounced = await settledActions(await send(k, [internal({ to: nowhere, value: toNano('0.3'), bounce: true, body: 'to nowhere' })]));
    expect(bounced.ledger.map((t) => t.account)).toEqual([raw(me), raw(nowhere), raw(me)]);
    expect(bounced.actions.find((a) => a.type === 'ton_transfer' && a.details.destination === raw(nowhere))).toMatchObject({ success: false, details: { source: raw(me), value: toNano('0.3').toString(), comment: 'to nowhere' } });

    const fresh = WalletContractV4.create({ workchain: 0, publicKey: randomBytes(32) });
    const deployed = await settledActions(await send(k, [internal({ to: fresh.address, value: toNano('0.4'), bounce: false, init: fresh.init })]));
    expect(deployed.ledger.map((t) => t.account)).toEqual([raw(me), raw(fresh.address)]);
    expect(only(deployed.actions, 'contract_deploy')).toMatchObject({ success: true, details: { source: raw(me), destination: raw(fresh.address) } });
  }, 240_000);

  it('a multisig order executes its transfer', async () => {
    const k = wallets[2];
    const multisig = createMultisig(`actions-${run}:multisig`);
    await settledActions(await send(k, [internal({ to: multisig.address, value: toNano(5), bounce: false, init: multisig.init })]));
    const order = Buffer.from(multisig.order({ now: Math.floor(Date.now() / 1000), n: 1, messages: [internal({ to: receiver(), value: toNano('0.5'), bounce: false, body: 'multisig order' })] }));
    const executed = await settledActions(await sendExternal(order));
    expect(executed.ledger.map((t) => t.account)).toEqual([raw(multisig.address), raw(receiver())]);
    expect(only(executed.actions, 'ton_transfer')).toMatchObject({ success: true, details: { source: raw(multisig.address), destination: raw(receiver()), value: toNano('0.5').toString(), comment: 'multisig order' } });
  }, 240_000);

  it('a vesting withdrawal by its owner', async () => {
    const k = wallets[5];
    const me = k.contract.address;
    const now = Math.floor(Date.now() / 1000);
    // Fully unlocked: the schedule ended before now.
    const vesting = createVesting(`actions-${run}:vesting`, { startTime: now - 200_000, totalDuration: 86_400, unlockPeriod: 86_400, cliffDuration: 0, totalAmount: toNano(2), sender: me, owner: me });
    await settledActions(await send(k, [internal({ to: vesting.address, value: toNano(3), bounce: false, init: vesting.init })]));
    const message = beginCell().store(storeMessageRelaxed(internal({ to: receiver(), value: toNano('0.7'), bounce: false, body: 'vesting withdrawal' }))).endCell();
    const body = beginCell().storeUint(0xa7733acd, 32).storeUint(31, 64).storeUint(3, 8).storeRef(message).endCell();
    const withdrawn = await settledActions(await send(k, [internal({ to: vesting.address, value: toNano('0.1'), body })]));
    expect(withdrawn.ledger.map((t) => t.account).sort()).toEqual([raw(me), raw(vesting.address), raw(receiver()), raw(me)].sort());
    expect(only(withdrawn.actions, 'vesting_send_message')).toMatchObject({ success: true, details: { query_id: '31', source: raw(me), vesting: raw(vesting.address), destination: raw(receiver()), amount: toNano('0.7').toString() } });
  }, 240_000);
});
