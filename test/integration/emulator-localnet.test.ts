import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, Cell, external, internal, loadTransaction, type MessageRelaxed, parseTuple, SendMode, serializeTuple, storeMessage, toNano, type Transaction, TupleReader } from '@ton/core';
import { JettonMinter, JettonWallet, storeJettonMintMessage, storeJettonTransferMessage } from '@ton-community/assets-sdk';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { createKafka, pendingExternal, publishPendingExternal, topicNames } from '@tonstream/bus';
import { HEAD_TTL_MS } from '@tonstream/emulation';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS, type PrefundedWallet } from '@tonstream/localnet';
import type { Admin, Producer } from 'kafkajs';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_GROUP_ID } from '../../services/emulator/src/service.js';
import { groupCaughtUp } from '../support/kafka-groups.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { type ApiUnderTest, getJson, okJson, startApi } from './api-server.js';
import { raw, readLedger, type LedgerTx } from '../support/ledger.js';

/**
 * The emulator service on the local network: real localnet (liteserver), Kafka, the API, and a Redis
 * of this suite's own (so it can be stopped without touching the shared one).
 * Externals of the prefunded wallets are published to ton.pending_externals *before* the chain gets
 * them, so the pending trace exists before any block could; then they are sent to the liteserver and
 * the emulated transactions are compared with the confirmed ones (liteserver getTransactions, found
 * through the localnet ledger).
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const TTL_MS = 30_000;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-emulator-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const globalConfig = join(dir, 'localnet', 'global.config.json');
const topics = topicNames(`emu${run}.`);
const procs: Record<string, ServiceProcess> = {};
let api: ApiUnderTest;
let producer: Producer;
let admin: Admin;
let client: LiteClient;
let engine: LiteSingleEngine;
let emulatorEnv: Record<string, string>;
let redisPort = 0;
let redisServer: ChildProcess | undefined;
/** The API as a process, as deployed: it sends to the liteserver and publishes what it accepted. */
let apiBase: string;

/** A throwaway redis-server (no persistence) on `redisPort`. */
async function startRedis(): Promise<void> {
  const child = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.on('data', (d: Buffer) => {
      if (/Ready to accept connections/.test(d.toString())) resolve();
    });
  });
  redisServer = child;
}

async function stopRedis(): Promise<void> {
  if (!redisServer || redisServer.exitCode !== null) return;
  const exited = once(redisServer, 'exit');
  redisServer.kill('SIGTERM');
  await exited;
}
const seqnos = new Map<string, number>();

type WalletKeys = { w: PrefundedWallet; contract: WalletContractV4 | WalletContractV5R1; secretKey: Buffer };
const wallets: WalletKeys[] = [];

type PendingTx = { hash: string; account: string; total_fees: string; description: { aborted?: boolean; compute_ph?: { success?: boolean } }; in_msg: { hash: string; source: string | null; destination: string; value: string | null; bounced: boolean | null; message_content: { hash: string } } };
type PendingTraceJson = { external_hash: string; transactions_order: string[]; transactions: Record<string, PendingTx>; actions: { type: string; details: Record<string, unknown> }[]; trace_info: { trace_state: string } };

const ledgerRounds = () => readLedger(ledgerPath);

function ledgerTxs(): LedgerTx[] {
  return ledgerRounds().flatMap((r) => r.blocks.flatMap((b) => b.transactions));
}


/** A wallet external carrying `messages`, signed for `seqno`. */
function signed(k: WalletKeys, seqno: number, messages: MessageRelaxed[]): Buffer {
  const args = { seqno, secretKey: k.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages };
  const body = k.contract instanceof WalletContractV4 ? k.contract.createTransfer(args) : k.contract.createTransfer(args);
  return beginCell().store(storeMessage(external({ to: k.contract.address, body }))).endCell().toBoc();
}

function transfer(k: WalletKeys, seqno: number, to: Address, value: bigint, comment: string): Buffer {
  return signed(k, seqno, [internal({ to, value, bounce: false, body: comment })]);
}

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${emulatorEnv.METRICS_PORT}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** A get-method at the liteserver's newest block (where the emulator reads the chain); undefined unless it ran. */
async function atHead(address: Address, method: string): Promise<TupleReader | undefined> {
  const res = await client.runMethod(address, method, serializeTuple([]).toBoc(), (await client.getMasterchainInfo()).last);
  return res.exitCode === 0 && res.result ? new TupleReader(parseTuple(Cell.fromBase64(res.result))) : undefined;
}

/**
 * Waits until the chain's newest state satisfies `check`, then until the emulator's cached head
 * (reused up to HEAD_TTL_MS) can only be that state or a later one.
 */
async function headShows(what: string, check: () => Promise<boolean>) {
  await eventually(what, async () => ((await check()) ? true : undefined), 30_000, 100);
  await new Promise((r) => setTimeout(r, HEAD_TTL_MS));
}

/** Resolves once the emulator has processed (and committed) everything in its topic, re-deliveries included. */
async function emulatorCaughtUp() {
  const groupId = `${emulatorEnv.KAFKA_TOPIC_PREFIX}${EMULATOR_GROUP_ID}`;
  await eventually('the emulator to commit the end of its topic', async () => ((await groupCaughtUp(admin, groupId)) ? true : undefined), 60_000, 100);
}

/** POSTs a BoC to the API process: status and JSON body. */
async function sendThroughApi(path: string, boc: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${apiBase}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boc: boc.toString('base64') }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function pendingByHash(hash: string): Promise<PendingTraceJson[]> {
  const body = await okJson<{ traces: PendingTraceJson[] }>(api.base, `/api/v3/pendingTraces?ext_msg_hash=${encodeURIComponent(hash)}`);
  return body.traces;
}

/** The confirmed trace of an external, breadth first from its root, as the liteserver returns the transactions. */
async function confirmedTrace(extHash: string, count: number): Promise<{ ledger: LedgerTx; tx: Transaction }[]> {
  const all = await eventually(`${count} confirmed transactions of ${extHash}`, async () => {
    const txs = ledgerTxs();
    const byIn = new Map(txs.filter((t) => t.in_msg).map((t) => [t.in_msg!, t]));
    const out: LedgerTx[] = [];
    for (let t = byIn.get(extHash), queue: LedgerTx[] = t ? [t] : []; queue.length > 0; ) {
      const next = queue.shift()!;
      out.push(next);
      for (const m of next.out_msgs) if (byIn.has(m)) queue.push(byIn.get(m)!);
    }
    return out.length >= count ? out : undefined;
  }, 60_000, 200);
  const result = [];
  for (const l of all) {
    const [wc, hex] = l.account.split(':');
    const res = await client.getAccountTransactions(new Address(Number(wc), Buffer.from(hex, 'hex')), l.lt, Buffer.from(l.hash, 'base64'), 1);
    result.push({ ledger: l, tx: loadTransaction(Cell.fromBoc(res.transactions)[0].beginParse()) });
  }
  return result;
}

function succeeded(tx: Transaction): boolean {
  const d = tx.description;
  if (d.type !== 'generic') return true;
  return !d.aborted && d.computePhase.type === 'vm' && d.computePhase.success;
}

/**
 * Waits for the confirmed transactions of the external and compares them with the emulated ones:
 * accounts in order, the external's hash, each inbound message's body, source and value, success.
 * Internal messages carry created_lt/created_at, which only the block decides, so their hashes
 * differ by design. Resolves the fee of each transaction, emulated and confirmed.
 */
async function expectConfirmedAsEmulated(trace: PendingTraceJson, hash: string) {
  const emulated = trace.transactions_order.map((h) => trace.transactions[h]);
  const confirmed = await confirmedTrace(hash, emulated.length);
  expect(confirmed.map((c) => c.ledger.account)).toEqual(emulated.map((e) => e.account));
  expect(emulated[0].in_msg.hash).toBe(confirmed[0].ledger.in_msg);
  for (const [i, e] of emulated.entries()) {
    const c = confirmed[i].tx;
    expect(e.in_msg.message_content.hash).toBe(c.inMessage!.body.hash().toString('base64'));
    if (c.inMessage!.info.type === 'internal') {
      expect(e.in_msg.source).toBe(raw(c.inMessage!.info.src));
      expect(e.in_msg.value).toBe(c.inMessage!.info.value.coins.toString());
    }
    expect(e.in_msg.destination).toBe(confirmed[i].ledger.account);
    expect(e.description.aborted !== true && e.description.compute_ph?.success === true).toBe(succeeded(c));
  }
  return emulated.map((e, i) => ({ account: e.account, emulated: e.total_fees, confirmed: confirmed[i].tx.totalFees.coins.toString(), diff: (BigInt(e.total_fees) - confirmed[i].tx.totalFees.coins).toString() }));
}

async function startEmulator() {
  procs.emulator = startService('emulator', emulatorEnv, join(dir, 'logs'));
  await procs.emulator.waitFor(/emulator consuming/, 60_000);
}

beforeAll(async () => {
  redisPort = await freePort();
  await startRedis();
  api = await startApi(CLICKHOUSE_URL, `tonstream_emu_${run}`, { redisUrl: `redis://127.0.0.1:${redisPort}` });
  procs.localnet = startService(
    'localnet',
    { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '1500', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `emu-${run}`, LOCALNET_LEDGER: ledgerPath, METRICS_PORT: String(await freePort()) },
    join(dir, 'logs'),
    ['--reset'],
  );
  await procs.localnet.waitFor(/localnet serving/);
  emulatorEnv = {
    KAFKA_BROKERS,
    KAFKA_TOPIC_PREFIX: `emu${run}.`,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PENDING_REDIS_PREFIX: api.pending.keys.prefix,
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: `tonstream_emu_${run}`,
    EMULATOR_GLOBAL_CONFIG: globalConfig,
    EMULATOR_TTL_MS: String(TTL_MS),
    METRICS_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
  };
  await startEmulator();
  const apiPort = await freePort();
  procs.api = startService(
    'api',
    {
      CLICKHOUSE_URL,
      CLICKHOUSE_DATABASE: `tonstream_emu_${run}`,
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      API_GLOBAL_CONFIG: globalConfig,
      KAFKA_BROKERS,
      KAFKA_TOPIC_PREFIX: `emu${run}.`,
      REDIS_URL: emulatorEnv.REDIS_URL,
      PENDING_REDIS_PREFIX: emulatorEnv.PENDING_REDIS_PREFIX,
      LOG_LEVEL: 'warn',
    },
    join(dir, 'logs'),
  );
  apiBase = `http://127.0.0.1:${apiPort}`;
  await eventually('the API to reach the liteserver', async () => ((await fetch(`${apiBase}/api/v2/getMasterchainInfo`).catch(() => undefined))?.ok ? true : undefined), 60_000, 200);
  const kafka = createKafka({ brokers: [KAFKA_BROKERS], clientId: `emulator-test-${run}` });
  producer = kafka.producer();
  await producer.connect();
  admin = kafka.admin();
  await admin.connect();
  const [ls] = readGlobalConfig(globalConfig);
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  client = new LiteClient({ engine });
  for (const w of PREFUNDED_WALLETS) {
    const keys = await mnemonicToPrivateKey(w.mnemonic.split(' '));
    const publicKey = Buffer.from(w.publicKey, 'hex');
    const contract = w.version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey });
    expect(raw(contract.address)).toBe(w.address.toUpperCase());
    wallets.push({ w, contract, secretKey: keys.secretKey });
    seqnos.set(w.address, 0);
  }
}, 180_000);

afterAll(async () => {
  await producer?.disconnect();
  await admin?.disconnect();
  engine?.close();
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await api.stop();
  await stopRedis();
}, 60_000);

describe('emulator on the local network', () => {
  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`a ${version} transfer is pending before the chain has it and matches the confirmed transactions`, async () => {
      const k = wallets.find((x) => x.w.version === version)!;
      const receiver = wallets.find((x) => x.w.version !== version)!.contract.address;
      const seqno = seqnos.get(k.w.address)!;
      const boc = transfer(k, seqno, receiver, 1_500_000_000n, `pending ${version}`);
      const { hash, hash_norm } = pendingExternal(boc);
      const t0 = performance.now();
      await publishPendingExternal(producer, topics, boc, 'test');
      const trace = await eventually('the pending trace', async () => (await pendingByHash(hash_norm))[0], 30_000, 20);
      const latencyMs = performance.now() - t0;
      // Not sent to the chain yet: no transaction can have consumed it.
      expect(ledgerTxs().some((t) => t.in_msg === hash)).toBe(false);
      expect(trace.external_hash).toBe(hash);
      expect(trace.trace_info.trace_state).toBe('pending');
      expect(trace.actions.map((a) => a.type)).toEqual(['ton_transfer']);
      expect(trace.actions[0].details).toMatchObject({ source: k.w.address.toUpperCase(), destination: raw(receiver), value: '1500000000', comment: `pending ${version}` });

      await client.sendMessage(boc);
      seqnos.set(k.w.address, seqno + 1);
      const fees = await expectConfirmedAsEmulated(trace, hash);
      console.log(JSON.stringify({ wallet: version, publish_to_pending_ms: Math.round(latencyMs), fees }));
    });
  }

  it('an external sent through the API (v3 POST /message, v2 sendBocReturnHash) reaches the chain and is pending', async () => {
    const k = wallets[0];
    const receiver = wallets[3].contract.address;
    const sends = [
      { path: '/api/v3/message', hashOf: (b: Record<string, string>) => b.message_hash_norm },
      { path: '/api/v2/sendBocReturnHash', hashOf: (b: { result: Record<string, string> }) => b.result.hash_norm },
    ] as const;
    for (const [i, send] of sends.entries()) {
      // The API publishes after the liteserver accepted, so a round may run the transfer before the
      // emulator reads the wallet: the emulation then sees the used seqno and refuses it. Rounds of
      // 1.5 s leave the emulator room even on a loaded machine (at 500 ms ci19 lost six in a row); a
      // lost race is still told apart (on chain, counted as refused) and retried.
      let found: { trace: PendingTraceJson; hash: string } | undefined;
      for (let attempt = 1; !found; attempt++) {
        const seqno = seqnos.get(k.w.address)!;
        const boc = transfer(k, seqno, receiver, 700_000_000n + BigInt(i), `via ${send.path} #${attempt}`);
        const { hash, hash_norm } = pendingExternal(boc);
        const refusedBefore = (await metric('tonstream_emulator_externals_total', 'result="rejected"')) + (await metric('tonstream_emulator_externals_total', 'result="rate_limited"'));
        const res = await fetch(`${apiBase}${send.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boc: boc.toString('base64') }) });
        expect(res.status, send.path).toBe(200);
        expect(send.hashOf((await res.json()) as never)).toBe(hash_norm);
        seqnos.set(k.w.address, seqno + 1);
        const outcome = await eventually(`the pending trace of ${send.path}`, async () => {
          const trace = (await pendingByHash(hash_norm))[0];
          if (trace) return { trace };
          const refused = (await metric('tonstream_emulator_externals_total', 'result="rejected"')) + (await metric('tonstream_emulator_externals_total', 'result="rate_limited"'));
          return refused > refusedBefore && ledgerTxs().some((t) => t.in_msg === hash) ? { lost: true } : undefined;
        }, 30_000, 20);
        if (outcome.trace) found = { trace: outcome.trace, hash };
        else if (attempt >= 6) throw new Error(`${send.path}: every attempt landed before its emulation`);
        else console.log(JSON.stringify({ lost_race: send.path, attempt }));
      }
      const { trace, hash } = found!;
      expect(trace.actions[0].details).toMatchObject({ source: k.w.address.toUpperCase(), destination: raw(receiver), value: String(700_000_000n + BigInt(i)) });
      // Sent for real: the chain runs it as emulated.
      await expectConfirmedAsEmulated(trace, hash);
    }
  });

  it('a Jetton transfer is pending as jetton_transfer (amount, parties, asset) and matches the confirmed transactions', async () => {
    const k = wallets[1];
    const receiver = wallets[2].contract.address;
    const content = beginCell().storeUint(1, 8).storeStringTail('https://localnet.invalid/emu.json').endCell();
    const minter = JettonMinter.createFromConfig({ admin: k.contract.address, content });
    const walletOf = (owner: Address) => JettonWallet.createFromConfig({ owner, jettonMaster: minter.address, jettonWalletCode: JettonWallet.code }).address;
    // Deploy the minter and mint 1000 to the wallet: straight to the chain.
    const mint = beginCell().store(storeJettonMintMessage({ queryId: 1n, amount: 1000n, from: minter.address, to: k.contract.address, responseAddress: k.contract.address, forwardPayload: null, forwardTonAmount: 0n, walletForwardValue: toNano('0.05') })).endCell();
    await client.sendMessage(signed(k, seqnos.get(k.w.address)!, [internal({ to: minter.address, value: toNano('0.2'), init: minter.init, body: mint })]));
    seqnos.set(k.w.address, seqnos.get(k.w.address)! + 1);
    const ownWallet = raw(walletOf(k.contract.address));
    await eventually('the minted Jetton wallet', async () => (ledgerTxs().some((t) => t.account === ownWallet) ? true : undefined), 60_000, 200);
    // The emulator runs the transfer on the chain's head: it must have the wallet's new seqno and the minted Jettons.
    await headShows('the new seqno and the minted Jettons at the head', async () => {
      const seqno = (await atHead(k.contract.address, 'seqno'))?.readNumber();
      const jettons = (await atHead(walletOf(k.contract.address), 'get_wallet_data'))?.readBigNumber();
      return seqno === seqnos.get(k.w.address) && jettons === 1000n;
    });

    const forwardPayload = beginCell().storeUint(0, 32).storeStringTail('jetton pending').endCell();
    const transferBody = beginCell().store(storeJettonTransferMessage({ queryId: 7n, amount: 250n, destination: receiver, responseDestination: k.contract.address, customPayload: null, forwardAmount: 1n, forwardPayload })).endCell();
    const boc = signed(k, seqnos.get(k.w.address)!, [internal({ to: walletOf(k.contract.address), value: toNano('0.1'), body: transferBody })]);
    const { hash, hash_norm } = pendingExternal(boc);
    await publishPendingExternal(producer, topics, boc, 'test');
    const trace = await eventually('the pending Jetton trace', async () => (await pendingByHash(hash_norm))[0], 30_000, 20);
    // The receiver took no transaction of its own (its Jetton wallet did), yet the action lists it.
    const body = await okJson<{ actions: { type: string; details: Record<string, unknown>; trace_external_hash_norm: string }[] }>(api.base, `/api/v3/pendingActions?account=${raw(receiver)}`);
    const action = body.actions.find((a) => a.trace_external_hash_norm === hash_norm);
    expect(action?.type).toBe('jetton_transfer');
    expect(action?.details).toMatchObject({ asset: raw(minter.address), sender: raw(k.contract.address), receiver: raw(receiver), amount: '250', comment: 'jetton pending', sender_jetton_wallet: ownWallet, receiver_jetton_wallet: raw(walletOf(receiver)) });
    expect(trace.actions.map((a) => a.type)).toContain('jetton_transfer');

    await client.sendMessage(boc);
    seqnos.set(k.w.address, seqnos.get(k.w.address)! + 1);
    const fees = await expectConfirmedAsEmulated(trace, hash);
    console.log(JSON.stringify({ wallet: 'v4r2 jetton transfer', fees }));
  });

  it('an external the wallet rejects (old seqno), sent through the API, is answered 400 and is never pending nor on chain', async () => {
    // wallets[1] has used seqnos 0 (the mint) and 1 (the Jetton transfer): both are old now.
    const k = wallets[1];
    expect(seqnos.get(k.w.address)).toBe(2);
    const v3Boc = transfer(k, 0, wallets[4].contract.address, 5_000_000n, 'old seqno via v3');
    const v2Boc = transfer(k, 1, wallets[4].contract.address, 6_000_000n, 'old seqno via v2');
    const v3 = await sendThroughApi('/api/v3/message', v3Boc);
    const v2 = await sendThroughApi('/api/v2/sendBoc', v2Boc);
    console.log(JSON.stringify({ rejected_external_answers: { v3_message: v3, v2_sendBoc: v2 } }));
    // The local liteserver runs an external on the account before taking it, as a node does; the
    // refusal is the caller's mistake: 400 with the node's words (toncenter answers 500).
    expect(v3.status).toBe(400);
    expect(String(v3.body.error)).toContain('cannot apply external message to current state');
    expect(v2).toMatchObject({ status: 400, body: { ok: false, code: 400 } });
    expect(String(v2.body.error)).toContain('cannot apply external message to current state');
    const hashes = [v3Boc, v2Boc].map((b) => pendingExternal(b));
    // Never published, so never pending; a later valid transfer of the same wallet lands, the refused ones never.
    const next = transfer(k, 2, wallets[4].contract.address, 7_000_000n, 'after the old seqnos');
    expect((await sendThroughApi('/api/v3/message', next)).status).toBe(200);
    seqnos.set(k.w.address, 3);
    await eventually('the valid transfer on chain', async () => (ledgerTxs().some((t) => t.in_msg === pendingExternal(next).hash) ? true : undefined), 30_000, 200);
    expect(ledgerTxs().filter((t) => hashes.some((h) => h.hash === t.in_msg))).toEqual([]);
    for (const h of hashes) expect(await pendingByHash(h.hash_norm)).toEqual([]);
  });

  it('an external the wallet rejects (old seqno) is never pending', async () => {
    // A wallet no test sent to in the last 10 s, so admission (3 per destination per 10 s) lets it through to be refused.
    const k = wallets[5];
    const before = await metric('tonstream_emulator_externals_total', 'result="rejected"');
    const boc = transfer(k, seqnos.get(k.w.address)! + 7, k.contract.address, 1n, 'bad seqno');
    const { hash_norm } = pendingExternal(boc);
    await publishPendingExternal(producer, topics, boc, 'test');
    await eventually('the rejection', async () => ((await metric('tonstream_emulator_externals_total', 'result="rejected"')) > before ? true : undefined), 30_000, 100);
    expect(await pendingByHash(hash_norm)).toEqual([]);
  });

  it('after kill -9 with externals in the topic, each is emulated exactly once after restart', async () => {
    await procs.emulator.kill9();
    const hashes: string[] = [];
    // One per prefunded wallet (admission allows 3 per destination per 10 s), none sent to the chain.
    for (const k of wallets) {
      const boc = transfer(k, seqnos.get(k.w.address)!, wallets[0].contract.address, 1_000_000n, `while down ${k.w.address}`);
      hashes.push(pendingExternal(boc).hash_norm);
      await publishPendingExternal(producer, topics, boc, 'test');
    }
    await startEmulator();
    for (const h of hashes) await eventually(`pending ${h}`, async () => ((await pendingByHash(h)).length === 1 ? true : undefined), 60_000, 100);
    // Re-deliveries (offsets the killed process had not committed) would be emulated again before the end is committed.
    await emulatorCaughtUp();
    expect(await metric('tonstream_emulator_externals_total', 'result="emulated"')).toBe(hashes.length);
  });

  it('of two transfers signed with the same seqno one lands; both pending traces leave by the TTL and are counted', async () => {
    const k = wallets.find((x) => x.w.version === 'v5r1')!;
    // Two transfers signed with the same seqno: one lands. No tracer runs here to replace the landed
    // one's pending trace, so both leave by the TTL; the other could never be confirmed.
    const a = transfer(k, seqnos.get(k.w.address)!, wallets[0].contract.address, 2_000_000n, 'twin a');
    const b = transfer(k, seqnos.get(k.w.address)!, wallets[1].contract.address, 3_000_000n, 'twin b');
    const before = await metric('tonstream_emulator_expired_traces_total');
    for (const boc of [a, b]) await publishPendingExternal(producer, topics, boc, 'test');
    const norms = [a, b].map((boc) => pendingExternal(boc).hash_norm);
    for (const h of norms) await eventually(`pending ${h}`, async () => ((await pendingByHash(h)).length === 1 ? true : undefined), 30_000, 100);
    // Sent together, one lands and the wallet refuses the other (its seqno is used up).
    const raws = [a, b].map((boc) => pendingExternal(boc).hash);
    // (A round between the two sends lets the node refuse the second outright: the same outcome.)
    for (const boc of [a, b]) await client.sendMessage(boc).catch(() => undefined);
    const landedIn = await eventually('one twin on chain', async () => ledgerRounds().find((r) => r.blocks.some((b) => b.transactions.some((t) => raws.includes(t.in_msg ?? ''))))?.mc_seqno, 30_000, 200);
    seqnos.set(k.w.address, seqnos.get(k.w.address)! + 1);
    // Each round runs every external queued before it: both were queued before the round after the landing one.
    await eventually('the round after the landing one', async () => ((ledgerRounds().at(-1)?.mc_seqno ?? 0) > landedIn ? true : undefined), 30_000, 200);
    expect(ledgerTxs().filter((t) => raws.includes(t.in_msg ?? ''))).toHaveLength(1);
    await eventually('both expired', async () => ((await Promise.all(norms.map(pendingByHash))).every((t) => t.length === 0) ? true : undefined), TTL_MS + 15_000, 500);
    expect(await metric('tonstream_emulator_expired_traces_total')).toBeGreaterThanOrEqual(before + 2);
  }, 60_000);

  it('Redis down: sending through the API still reaches the chain, the pending endpoints answer 503, emulation waits and resumes when Redis is back', async () => {
    const k = wallets.find((x) => x.w.version === 'v4r2')!;
    const boc = transfer(k, seqnos.get(k.w.address)!, wallets[2].contract.address, 4_000_000n, 'while redis is down');
    const { hash_norm } = pendingExternal(boc);
    await stopRedis();
    for (const base of [api.base, apiBase]) {
      for (const path of [`/pendingTraces?ext_msg_hash=${encodeURIComponent(hash_norm)}`, `/pendingActions?account=${k.w.address}`, `/pendingTransactions?account=${k.w.address}`]) {
        const down = await getJson(base, `/api/v3${path}`);
        expect(down.status, path).toBe(503);
        expect(down.body.error, path).toMatch(/^pending traces unavailable: Redis unreachable/);
      }
    }
    // Sending needs no Redis: the API answers and the chain runs the transfer.
    const sender = wallets[4];
    const sent = transfer(sender, seqnos.get(sender.w.address)!, wallets[5].contract.address, 8_000_000n, 'sent while redis is down');
    const res = await sendThroughApi('/api/v3/message', sent);
    expect(res).toEqual({ status: 200, body: { message_hash: Cell.fromBoc(sent)[0].hash().toString('base64'), message_hash_norm: pendingExternal(sent).hash_norm } });
    seqnos.set(sender.w.address, seqnos.get(sender.w.address)! + 1);
    await eventually('the transfer sent while Redis is down on chain', async () => (ledgerTxs().some((t) => t.in_msg === pendingExternal(sent).hash) ? true : undefined), 30_000, 200);
    const errorsBefore = await metric('tonstream_emulator_redis_errors_total');
    await publishPendingExternal(producer, topics, boc, 'test');
    await eventually('a failed Redis write', async () => ((await metric('tonstream_emulator_redis_errors_total')) > errorsBefore ? true : undefined), 30_000, 100);
    await startRedis();
    await eventually('the pending trace after Redis is back', async () => ((await pendingByHash(hash_norm)).length === 1 ? true : undefined), 30_000, 100);
  });
});
