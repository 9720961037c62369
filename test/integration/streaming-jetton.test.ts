import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, Cell, external, internal, type MessageRelaxed, SendMode, storeMessage, toNano } from '@ton/core';
import { storeJettonTransferMessage } from '@ton-community/assets-sdk';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { PREFUNDED_WALLETS } from '@tonstream/localnet';
import { createStore, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { type Browser, chromium, type Page } from 'playwright-core';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJetton, jettonMintBody } from '../../packages/localnet/src/traffic/assets.js';
import { eventually, freePort, ROOT, type ServiceProcess, startService } from '../support/processes.js';
import { venvPython } from './python.js';
import { wsClient } from './streaming-clients.js';
import { type PlacedTx, placedTransactions, raw, readLedger, traceFrom } from '../support/ledger.js';

/**
 * Issue 16's acceptance: a Jetton transfer on the local network, sent through POST /api/v3/message,
 * streamed to three unmodified kinds of client: the toncenter Python SDK, a browser (fetch with a
 * streaming body reader: EventSource cannot POST) and a WebSocket client that changes its
 * subscription mid-stream. Whole stack: localnet -> fetcher -> decoder -> writer + tracer, the API
 * publishing the external, the emulator (pending) and the streamer. Each client must receive the
 * transfer's pending, then confirmed, then finalized events: transactions (the chain's ledger's),
 * the jetton_transfer action with the amount sent, and jettons_change with the balances that follow
 * from what was minted and sent.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Slow rounds: the emulator has to run the external before the chain does (the API publishes it after the liteserver took it). */
const ROUND_MS = 2500;
const MINTED = 1000n;
const SENT = 250n;
const TYPES = ['transactions', 'actions', 'jettons_change'];

type Note = Record<string, unknown> & { type?: string; finality?: string };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-streaming-jetton-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const globalConfig = join(dir, 'localnet', 'global.config.json');
const database = `tonstream_stjet_${run}`;
const prefix = `stjet${run}.`;
const pendingPrefix = `stjet${run}:`;
const stopFile = join(dir, 'stop');
const procs: Record<string, ServiceProcess> = {};
let env: Record<string, string> = {};
let store: Store;
let redis: Redis;
let engine: LiteSingleEngine;
let client: LiteClient;
let apiBase = '';
let base = '';
let browser: Browser | undefined;
let python: { child: ChildProcess; lines: string[]; stderr: string[]; exit: Promise<number | null> } | undefined;


const ledger = () => placedTransactions(readLedger(ledgerPath));

/** The ledger's transactions of the trace whose root consumed the external `extHash`, followed through message hashes. */
function ledgerTrace(extHash: string): PlacedTx[] {
  const txs = ledger();
  const root = txs.find((t) => t.in_msg === extHash);
  return root ? traceFrom(txs, root.hash) : [];
}

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 200) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

/** The SDK's own client, streaming its notifications as JSON lines. */
function startPython(addresses: string[]) {
  const child = spawn(venvPython(), ['test/python/streaming_jetton_sdk.py'], {
    cwd: ROOT,
    env: { ...process.env, STREAM_BASE_URL: base, STREAM_TRANSPORT: 'sse', STREAM_ADDRESSES: addresses.join(','), STREAM_TYPES: TYPES.join(','), STREAM_STOP_FILE: stopFile, STREAM_TIMEOUT_S: '400' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, lines, stderr, exit };
}

/** In the page (same origin as the streamer): POST /sse with fetch and read the body as a stream, SSE framing parsed by hand. */
async function startBrowserClient(page: Page, body: unknown) {
  await page.evaluate(async (subscription) => {
    const w = globalThis as unknown as { frames_: { event?: string; id?: string; data: unknown }[]; streamError?: string };
    w.frames_ = [];
    const res = await fetch('/api/streaming/v2/sse', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify(subscription) });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buf = '';
      let frame: { event?: string; id?: string; data: string[] } = { data: [] };
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            if (line === '') {
              if (frame.data.length > 0) w.frames_.push({ event: frame.event, id: frame.id, data: JSON.parse(frame.data.join('\n')) });
              frame = { data: [] };
            } else if (!line.startsWith(':')) {
              const colon = line.indexOf(':');
              const name = colon < 0 ? line : line.slice(0, colon);
              const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              if (name === 'data') frame.data.push(v);
              else if (name === 'event') frame.event = v;
              else if (name === 'id') frame.id = v;
            }
          }
        }
      } catch (err) {
        w.streamError = String(err);
      }
    })();
  }, body);
}

async function browserFrames(page: Page): Promise<{ event?: string; id?: string; data: Note }[]> {
  return page.evaluate(() => (globalThis as unknown as { frames_: { event?: string; id?: string; data: Note }[] }).frames_);
}

async function streamerClients(): Promise<number> {
  const h = (await (await fetch(`${base}/api/streaming/healthz`)).json()) as { components: { streamer: { fanout: { clients: number } } } };
  return h.components.streamer.fanout.clients;
}

beforeAll(async () => {
  env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    REDIS_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: prefix,
    FETCHER_GLOBAL_CONFIG: globalConfig,
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'info',
  };
  store = createStore({ url: CLICKHOUSE_URL, database });
  redis = new Redis(REDIS_URL);
  await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `stjet-${run}`, LOCALNET_LEDGER: ledgerPath }, ['--reset']);
  await procs.localnet.waitFor(/localnet serving/);
  await start('writer');
  await procs.writer.waitFor(/writer started/);
  await start('tracer');
  await start('decoder');
  await start('fetcher');
  await start('emulator', { PENDING_REDIS_PREFIX: pendingPrefix, EMULATOR_GLOBAL_CONFIG: globalConfig, EMULATOR_TTL_MS: '60000' });
  await procs.emulator.waitFor(/emulator consuming/, 60_000);
  const apiPort = await freePort();
  await start('api', { API_HOST: '127.0.0.1', API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig, PENDING_REDIS_PREFIX: pendingPrefix, LOG_LEVEL: 'warn' });
  apiBase = `http://127.0.0.1:${apiPort}`;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  await start('streamer', { STREAMER_PORT: String(port), STREAMER_CHECK_API_KEYS: 'false', STREAMER_MAX_CONNECTIONS_ANONYMOUS: '-1', STREAMER_REPLAY_MS: '0' });
  await procs.streamer.waitFor(/streamer reading/);
  await until('the API to reach the liteserver', async () => ((await fetch(`${apiBase}/api/v2/getMasterchainInfo`).catch(() => undefined))?.ok ? true : undefined), 60_000);
  const [ls] = readGlobalConfig(globalConfig);
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  client = new LiteClient({ engine });
}, 240_000);

afterAll(async () => {
  writeFileSync(stopFile, '');
  python?.child.kill('SIGKILL');
  await browser?.close();
  engine?.close();
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
  for (const pattern of [`${prefix}tracer:*`, `${pendingPrefix}*`]) {
    const keys = await redis.keys(pattern);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
}, 60_000);

describe('a Jetton transfer, streamed', () => {
  it('the Python SDK, a browser and a WebSocket client each receive its pending, then confirmed, then finalized events', async () => {
    const w = PREFUNDED_WALLETS.find((x) => x.version === 'v5r1')!;
    const keys = await mnemonicToPrivateKey(w.mnemonic.split(' '));
    const wallet = WalletContractV5R1.create({ workchain: 0, publicKey: Buffer.from(w.publicKey, 'hex') });
    expect(raw(wallet.address)).toBe(w.address.toUpperCase());
    const me = wallet.address;
    const receiver = Address.parseRaw(PREFUNDED_WALLETS.find((x) => x.address !== w.address)!.address);
    const jetton = createJetton(me, `stjet-${run}`);
    let seqno = 0;
    const signed = (messages: MessageRelaxed[]) => {
      const body = wallet.createTransfer({ seqno, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages });
      return beginCell().store(storeMessage(external({ to: me, body }))).endCell().toBoc();
    };

    // Minted straight through the liteserver: the setup, not what is streamed.
    const mint = signed([internal({ to: jetton.minter, value: toNano('0.5'), bounce: false, init: jetton.minterInit, body: jettonMintBody({ queryId: 1n, minter: jetton.minter, to: me, amount: MINTED, response: me }) })]);
    await client.sendMessage(mint);
    seqno += 1;
    const mintHash = Cell.fromBoc(mint)[0].hash().toString('base64');
    await until('the mint settled on chain', async () => (ledgerTrace(mintHash).some((t) => t.account === raw(jetton.walletOf(me))) ? true : undefined));

    const owners = [raw(me), raw(receiver)];
    const senderWallet = raw(jetton.walletOf(me));
    const receiverWallet = raw(jetton.walletOf(receiver));

    // The three clients, subscribed before the transfer exists.
    python = startPython(owners);
    browser = await chromium.launch({ executablePath: process.env.TONSTREAM_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
    const page = await browser.newPage();
    await page.goto(`${base}/api/streaming/healthz`);
    await startBrowserClient(page, { types: TYPES, addresses: owners, min_finality: 'pending' });
    const decoy = `0:${randomBytes(32).toString('hex').toUpperCase()}`;
    const ws = await wsClient(`${base.replace('http', 'ws')}/api/streaming/v2/ws`);
    expect(await ws.request({ operation: 'subscribe', id: 's1', types: TYPES, addresses: [...owners, decoy], min_finality: 'pending' })).toEqual({ id: 's1', status: 'subscribed' });
    await until('the three clients connected', async () => ((await streamerClients()) >= 3 ? true : undefined), 60_000);

    // The transfer, through the API. A round may run it before the emulator reads the wallet (the API
    // publishes after the liteserver took it): then there is no pending trace, and it is sent again.
    const forwardPayload = beginCell().storeUint(0, 32).storeStringTail('streamed jetton').endCell();
    const transferBody = beginCell().store(storeJettonTransferMessage({ queryId: 7n, amount: SENT, destination: receiver, responseDestination: me, customPayload: null, forwardAmount: toNano('0.02'), forwardPayload })).endCell();
    let norm = '';
    let extHash = '';
    let sentAt = 0;
    // When each WebSocket notification arrived (ms since the transfer was posted): printed as the run's figures.
    const arrivals: { at: number; type: unknown; finality: unknown; norm: unknown }[] = [];
    ws.ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as Note;
      if (m.type !== undefined) arrivals.push({ at: Date.now() - sentAt, type: m.type, finality: m.finality, norm: m.trace_external_hash_norm });
    });
    let sentTotal = 0n;
    for (let attempt = 1; norm === ''; attempt++) {
      const boc = signed([internal({ to: jetton.walletOf(me), value: toNano('0.1'), body: transferBody })]);
      sentAt = Date.now();
      const res = await fetch(`${apiBase}/api/v3/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boc: boc.toString('base64') }) });
      expect(res.status).toBe(200);
      const sent = (await res.json()) as { message_hash: string; message_hash_norm: string };
      seqno += 1;
      sentTotal += SENT;
      const outcome = await until('the pending events (or the transfer landing without them)', async () => {
        if (ws.notifications().some((m) => m.finality === 'pending' && m.trace_external_hash_norm === sent.message_hash_norm)) return 'pending';
        const landed = ledgerTrace(sent.message_hash);
        return landed.length >= 5 && landed.some((t) => t.mc_seqno < (ledger().at(-1)?.mc_seqno ?? 0) - 2) ? 'lost' : undefined;
      }, 60_000);
      if (outcome === 'pending') {
        norm = sent.message_hash_norm;
        extHash = sent.message_hash;
      } else if (attempt >= 3) throw new Error('every transfer landed before its emulation');
      else console.log(JSON.stringify({ lost_race: attempt }));
    }

    // Mid-stream: the decoy goes, then the whole subscription is sent again (the acks come first).
    expect(await ws.request({ operation: 'unsubscribe', id: 'u1', addresses: [decoy] })).toEqual({ id: 'u1', status: 'unsubscribed' });
    expect(await ws.request({ operation: 'subscribe', id: 's2', types: TYPES, addresses: owners, min_finality: 'pending' })).toEqual({ id: 's2', status: 'subscribed' });

    // The chain's transactions of the transfer: wallet, its Jetton wallet, the receiver's, the notification, the excess.
    const chain = await until('the transfer on chain', async () => {
      const t = ledgerTrace(extHash);
      return t.length >= 5 ? t : undefined;
    });
    expect(chain.map((t) => t.account)).toEqual([raw(me), senderWallet, receiverWallet, raw(receiver), raw(me)]);
    const ours = chain.filter((t) => owners.includes(t.account));
    const balances = { [senderWallet]: (MINTED - sentTotal).toString(), [receiverWallet]: sentTotal.toString() };

    /** What one client must have received, checked against the chain and what was sent; resolves when complete. */
    const complete = (events: Note[]) => {
      const mine = events.filter((e) => e.trace_external_hash_norm === norm || e.type === 'jettons_change');
      const firstOf = (type: string, finality: string, pick: (e: Note) => boolean = () => true) => mine.findIndex((e) => e.type === type && e.finality === finality && pick(e));
      const txIndex = (finality: string, hash: string) => mine.findIndex((e) => e.type === 'transactions' && e.finality === finality && (e.transactions as { hash: string }[]).some((t) => t.hash === hash));
      const jettonTransfer = (e: Note) =>
        (e.actions as { type: string; details: Record<string, unknown> }[]).some((a) => a.type === 'jetton_transfer' && a.details.amount === SENT.toString() && a.details.sender === raw(me) && a.details.receiver === raw(receiver) && a.details.asset === raw(jetton.minter));
      const jettonAt = (finality: string, walletAddr: string) =>
        mine.findIndex((e) => e.type === 'jettons_change' && e.finality === finality && (e.jetton as { address: string; balance: string }).address === walletAddr && (e.jetton as { balance: string }).balance === balances[walletAddr]);
      const idx = {
        pendingTx: firstOf('transactions', 'pending'),
        pendingAction: firstOf('actions', 'pending', jettonTransfer),
        confirmedAction: firstOf('actions', 'confirmed', jettonTransfer),
        finalizedAction: firstOf('actions', 'finalized', jettonTransfer),
        confirmedTx: ours.map((t) => txIndex('confirmed', t.hash)),
        finalizedTx: ours.map((t) => txIndex('finalized', t.hash)),
        confirmedJetton: [senderWallet, receiverWallet].map((a) => jettonAt('confirmed', a)),
        finalizedJetton: [senderWallet, receiverWallet].map((a) => jettonAt('finalized', a)),
      };
      const all = [idx.pendingTx, idx.pendingAction, idx.confirmedAction, idx.finalizedAction, ...idx.confirmedTx, ...idx.finalizedTx, ...idx.confirmedJetton, ...idx.finalizedJetton];
      return all.every((i) => i >= 0) ? idx : undefined;
    };
    const checkOrder = (name: string, idx: NonNullable<ReturnType<typeof complete>>) => {
      const firstConfirmed = Math.min(idx.confirmedAction, ...idx.confirmedTx, ...idx.confirmedJetton);
      expect(idx.pendingTx, `${name}: pending transactions before anything confirmed`).toBeLessThan(firstConfirmed);
      expect(idx.pendingAction, `${name}: the pending jetton_transfer before anything confirmed`).toBeLessThan(firstConfirmed);
      expect(idx.confirmedAction, name).toBeLessThan(idx.finalizedAction);
      idx.confirmedTx.forEach((c, i) => expect(c, `${name}: ${ours[i].hash} confirmed before finalized`).toBeLessThan(idx.finalizedTx[i]));
      idx.confirmedJetton.forEach((c, i) => expect(c, `${name}: jettons_change confirmed before finalized`).toBeLessThan(idx.finalizedJetton[i]));
    };

    const wsIdx = await until('the WebSocket client has every event', async () => complete(ws.notifications() as Note[]), 150_000, 500);
    const browserIdx = await until('the browser has every event', async () => complete((await browserFrames(page)).map((f) => f.data)), 60_000, 500);
    const pythonNotes = () => python!.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Note);
    const pythonIdx = await until('the Python SDK has every event', async () => complete(pythonNotes()), 60_000, 500);
    checkOrder('websocket', wsIdx);
    checkOrder('browser', browserIdx);
    checkOrder('python', pythonIdx);

    // The pending transactions are the emulator's: the accounts of the chain's trace, flagged emulated, without a trace_id.
    for (const events of [ws.notifications() as Note[], (await browserFrames(page)).map((f) => f.data), pythonNotes()]) {
      const pending = events.filter((e) => e.type === 'transactions' && e.finality === 'pending' && e.trace_external_hash_norm === norm).flatMap((e) => e.transactions as { account: string; emulated: boolean; trace_id?: string }[]);
      expect(new Set(pending.map((t) => t.account))).toEqual(new Set(ours.map((t) => t.account)));
      expect(pending.every((t) => t.emulated && t.trace_id === undefined)).toBe(true);
      const confirmed = events.filter((e) => e.type === 'transactions' && e.finality !== 'pending' && e.trace_external_hash_norm === norm).flatMap((e) => e.transactions as { hash: string; emulated: boolean }[]);
      expect(confirmed.every((t) => !t.emulated && chain.some((c) => c.hash === t.hash))).toBe(true);
    }
    // The browser's frames are SSE `event: event` with the resume cursor as `id:` (pending ones carry the newest cursor issued).
    const frames = await browserFrames(page);
    expect(frames[0]).toEqual({ event: 'connected', data: { status: 'subscribed' } });
    expect(frames.slice(1).every((f) => f.event === 'event')).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as { streamError?: string }).streamError)).toBeUndefined();
    // The Python SDK typed each notification with its own classes.
    expect(new Set(pythonNotes().map((n) => n.class))).toEqual(new Set(['TransactionsNotification', 'ActionsNotification', 'JettonsNotification']));

    const ofTransfer = arrivals.filter((a) => a.norm === norm || a.type === 'jettons_change');
    const first = (finality: string) => ofTransfer.find((a) => a.finality === finality)?.at ?? null;
    console.log(JSON.stringify({ post_to_first_ms: { pending: first('pending'), confirmed: first('confirmed'), finalized: first('finalized') }, ws_events: ofTransfer.length }));

    writeFileSync(stopFile, '');
    const code = await python!.exit;
    expect(code, python!.stderr.join('').slice(-2000)).toBe(0);
    expect(python!.lines.at(-1)).toBe('DONE');
    ws.close();
  }, 480_000);
});
