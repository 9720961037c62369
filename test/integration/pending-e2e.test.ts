import { Address, beginCell, Cell, internal, loadMessage, loadTransaction, type MessageRelaxed, storeMessage, toNano, type Transaction } from '@ton/core';
import { HEAD_TTL_MS } from '@tonstream/emulation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJetton, createNftSet, jettonMintBody, jettonTransferBody, JETTON_FORWARD_TON, NFT_GAS, nftMintBody, nftTransferBody } from '../../packages/localnet/src/traffic/assets.js';
import { getAskingAgainOn504 } from '../support/api-get.js';
import { type LocalStack, type PlacedTx, raw, type SigningWallet, signedTransfer, startLocalStack } from '../support/local-stack.js';

/**
 * Pending traces end to end on the local network, through the real pipeline (localnet -> fetcher ->
 * decoder -> writer + tracer), the emulator and the API as processes. Transfers signed here are sent
 * through POST /api/v3/message only: each must be pending with what was sent, emulated on the head
 * before the block that ran it and readable before /traces serves it; then, once the chain ran it,
 * served by /traces with the transactions of the localnet's ledger while its pending entry is gone
 * from the API and from Redis. Whether a block already held the external when the pending trace was
 * first read is printed, not asserted: on a loaded machine the read (Redis, then ClickHouse to hide
 * confirmed traces) can lag a round. Setup (a Jetton minted, an NFT minted) goes straight to the
 * liteserver, so nothing else is ever pending.
 */
const ROUND_MS = 2_000;
const V3_TIMEOUT_ATTEMPTS = 4;

type PendingTx = { hash: string; account: string; lt: string; mc_block_seqno: number; total_fees: string; description: { aborted?: boolean; compute_ph?: { success?: boolean } }; in_msg: { hash: string; source: string | null; value: string | null; message_content: { hash: string } } };
type Action = { type: string; success: boolean; details: Record<string, unknown>; trace_external_hash_norm?: string; finality?: string };
type PendingTrace = { trace_id: string | null; external_hash: string; transactions_order: string[]; transactions: Record<string, PendingTx>; actions: Action[]; trace_info: { trace_state: string; transactions: number } };
type ConfirmedTrace = { trace_id: string; external_hash: string; is_incomplete: boolean; transactions_order: string[]; transactions: Record<string, { hash: string; account: string; lt: string }>; actions: Action[]; trace_info: { trace_state: string; transactions: number } };
/** An external sent through the API, with its pending trace as first seen. */
type Sent = {
  boc: Buffer;
  hash: string;
  hashNorm: string;
  pending: PendingTrace;
  /** Whether a block held the external when its pending trace was first read (timing: printed, not asserted). */
  ledgerHadIt: boolean;
  /** Whether /traces already served the confirmed trace complete then. */
  confirmedServed: boolean;
};

let stack: LocalStack;
let wallets: SigningWallet[];

/** A GET of the API, its query timeout (504) asked again. */
async function v3<T>(path: string): Promise<T> {
  const res = await getAskingAgainOn504(`${stack.apiBase}/api/v3${path}`, V3_TIMEOUT_ATTEMPTS);
  if (res.status === 200) return (await res.json()) as T;
  throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/** TEP-467 normalized hash, computed here with @ton/core: src addr_none, no import fee, no init, body in a ref. */
function normalizedHash(boc: Buffer): string {
  const m = loadMessage(Cell.fromBoc(boc)[0].beginParse());
  if (m.info.type !== 'external-in') throw new Error('not an external-in message');
  const normalized = { info: { type: 'external-in' as const, src: null, dest: m.info.dest, importFee: 0n }, init: null, body: m.body };
  return beginCell().store(storeMessage(normalized, { forceRef: true })).endCell().hash().toString('base64');
}

async function pendingByHash(hashNorm: string): Promise<PendingTrace[]> {
  return (await v3<{ traces: PendingTrace[] }>(`/pendingTraces?ext_msg_hash=${encodeURIComponent(hashNorm)}`)).traces;
}

/** Sends a wallet transfer once through POST /api/v3/message: the answer names its hashes. */
async function post(k: SigningWallet, messages: MessageRelaxed[]): Promise<{ boc: Buffer; hash: string; hashNorm: string }> {
  const boc = signedTransfer(k, messages);
  const hash = Cell.fromBoc(boc)[0].hash().toString('base64');
  const hashNorm = normalizedHash(boc);
  const res = await fetch(`${stack.apiBase}/api/v3/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ boc: boc.toString('base64') }) });
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { message_hash: hash, message_hash_norm: hashNorm } });
  k.seqno++;
  return { boc, hash, hashNorm };
}

/**
 * Sends through the API and returns the pending trace as soon as it is readable. The API publishes
 * after the liteserver took the external, so a round may run it before the emulator read the wallet
 * (the emulation then sees a used seqno and stores nothing): such a lost race is told apart (the
 * external on chain, never pending) and sent again with the next seqno, at most twice.
 */
async function sendPending(k: SigningWallet, messages: () => MessageRelaxed[]): Promise<Sent> {
  for (let attempt = 1; ; attempt++) {
    const t0 = performance.now();
    const sent = await post(k, messages());
    const posted = performance.now() - t0;
    let landedAt: number | undefined;
    let readMs = 0;
    type Seen = { trace: PendingTrace; ledgerHadIt: boolean; confirmedServed: boolean } | { lost: true };
    const pending = await stack.until<Seen>(`the pending trace of ${sent.hashNorm}`, async () => {
      const asked = performance.now();
      const trace = (await pendingByHash(sent.hashNorm))[0];
      if (trace) {
        readMs = performance.now() - asked;
        const ledgerHadIt = stack.ledger().some((t) => t.in_msg === sent.hash);
        const confirmed = (await v3<{ traces: ConfirmedTrace[] }>(`/traces?msg_hash=${encodeURIComponent(sent.hash)}`)).traces;
        return { trace, ledgerHadIt, confirmedServed: confirmed.some((t) => t.trace_info.trace_state === 'complete') };
      }
      if (landedAt === undefined && stack.ledger().some((t) => t.in_msg === sent.hash)) landedAt = Date.now();
      return landedAt !== undefined && Date.now() - landedAt > 5_000 ? { lost: true } : undefined;
    }, 30_000, 20);
    if ('trace' in pending) {
      console.log(JSON.stringify({ pending: sent.hashNorm, post_ms: Math.round(posted), post_to_readable_ms: Math.round(performance.now() - t0), last_read_ms: Math.round(readMs), ledger_had_it: pending.ledgerHadIt }));
      return { ...sent, pending: pending.trace, ledgerHadIt: pending.ledgerHadIt, confirmedServed: pending.confirmedServed };
    }
    if (attempt >= 3) throw new Error('every attempt landed before its emulation');
    console.log(JSON.stringify({ lost_race: sent.hashNorm, attempt }));
    // Let the chain settle the lost one's trace (two rounds without a transaction of it) before signing the next seqno.
    const root = stack.ledger().find((t) => t.in_msg === sent.hash)!;
    await stack.until(`the trace of the lost ${sent.hashNorm} to settle`, async () => {
      const last = Math.max(...stack.ledgerTrace(root.hash).map((t) => t.mc_seqno));
      return (await stack.client.getMasterchainInfo()).last.seqno >= last + 2 ? true : undefined;
    }, 60_000, 200);
    await headReachedEmulator();
  }
}

/**
 * The localnet moves its head before it writes a round to the ledger, so what the ledger shows is
 * at the head; the emulator reuses the head it read for up to HEAD_TTL_MS: after that, it sees it.
 */
function headReachedEmulator() {
  return new Promise((r) => setTimeout(r, HEAD_TTL_MS));
}

/** Sends straight to the liteserver (never pending) and waits for the chain to run the whole trace. */
async function sendDirect(k: SigningWallet, messages: MessageRelaxed[], transactions: number): Promise<PlacedTx[]> {
  const boc = signedTransfer(k, messages);
  const hash = Cell.fromBoc(boc)[0].hash().toString('base64');
  await stack.client.sendMessage(boc);
  k.seqno++;
  const root = await stack.until(`the transaction of ${hash}`, async () => stack.ledger().find((t) => t.in_msg === hash), 60_000, 200);
  const txs = await stack.until(`${transactions} transactions of ${hash}`, async () => {
    const t = stack.ledgerTrace(root.hash);
    return t.length >= transactions ? t : undefined;
  }, 60_000, 200);
  // The emulator reads the chain's head: the whole trace, the wallet's new seqno with it, is there.
  await headReachedEmulator();
  return txs;
}

function succeeded(tx: Transaction): boolean {
  const d = tx.description;
  if (d.type !== 'generic') return true;
  return !d.aborted && d.computePhase.type === 'vm' && d.computePhase.success;
}

/** The chain's transaction of a ledger entry, from the liteserver. */
async function chainTransaction(t: PlacedTx): Promise<Transaction> {
  const [wc, hex] = t.account.split(':');
  const res = await stack.client.getAccountTransactions(new Address(Number(wc), Buffer.from(hex, 'hex')), t.lt, Buffer.from(t.hash, 'base64'), 1);
  return loadTransaction(Cell.fromBoc(res.transactions)[0].beginParse());
}

/**
 * Once the chain ran `sent`: its emulated transactions equal the ledger's (accounts in order, the
 * external's hash, each in-message body, success), /traces?msg_hash serves the confirmed trace with
 * the ledger's transactions, and the pending entry is gone from the API and from Redis. Resolves the
 * confirmed trace and the fee differences.
 */
async function expectConfirmed(sent: Sent): Promise<{ confirmed: ConfirmedTrace; fees: { account: string; emulated: string; confirmed: string }[] }> {
  const emulated = sent.pending.transactions_order.map((h) => sent.pending.transactions[h]);
  const root = await stack.until(`the transaction of ${sent.hash}`, async () => stack.ledger().find((t) => t.in_msg === sent.hash), 60_000, 200);
  const ledger = await stack.until(`${emulated.length} transactions of ${sent.hash}`, async () => {
    const t = stack.ledgerTrace(root.hash);
    return t.length >= emulated.length ? t : undefined;
  }, 60_000, 200);
  expect(emulated.map((e) => e.account), 'emulated accounts = the ledger\'s, breadth first').toEqual(ledger.map((t) => t.account));
  expect(emulated[0].in_msg.hash).toBe(root.in_msg);
  // Emulated on the chain's head before the block that ran it (mc_block_seqno: that head + 1).
  expect(emulated[0].mc_block_seqno).toBeLessThanOrEqual(root.mc_seqno);
  const fees = [];
  for (const [i, t] of ledger.entries()) {
    const c = await chainTransaction(t);
    expect(emulated[i].in_msg.message_content.hash, `in-message body of ${t.account}`).toBe(c.inMessage!.body.hash().toString('base64'));
    expect(emulated[i].description.aborted !== true && emulated[i].description.compute_ph?.success === true, `success of ${t.account}`).toBe(succeeded(c));
    fees.push({ account: t.account, emulated: emulated[i].total_fees, confirmed: c.totalFees.coins.toString() });
  }

  const confirmed = await stack.until(`the confirmed trace of ${sent.hash}`, async () => {
    const t = (await v3<{ traces: ConfirmedTrace[] }>(`/traces?msg_hash=${encodeURIComponent(sent.hash)}&include_actions=true`)).traces[0];
    return t?.trace_info.trace_state === 'complete' ? t : undefined;
  }, 90_000, 300);
  expect(confirmed.trace_id).toBe(root.hash);
  expect(confirmed.external_hash).toBe(sent.hash);
  expect(confirmed.is_incomplete).toBe(false);
  expect(confirmed.trace_info.transactions).toBe(ledger.length);
  expect([...confirmed.transactions_order].sort()).toEqual(ledger.map((t) => t.hash).sort());
  for (const t of ledger) expect(confirmed.transactions[t.hash], `confirmed ${t.hash}`).toMatchObject({ account: t.account, lt: t.lt });
  // The normalized hash finds it too, as clients match pending and confirmed traces.
  const byNorm = await v3<{ traces: ConfirmedTrace[] }>(`/traces?msg_hash=${encodeURIComponent(sent.hashNorm)}`);
  expect(byNorm.traces.map((t) => t.trace_id)).toEqual([root.hash]);

  // Gone from the API at once (hidden when confirmed), from Redis after the emulator's next pass.
  expect(await pendingByHash(sent.hashNorm)).toEqual([]);
  expect((await v3<{ actions: Action[] }>(`/pendingActions?ext_msg_hash=${encodeURIComponent(sent.hashNorm)}`)).actions).toEqual([]);
  const leftovers = await stack.until(`no pending keys under ${stack.pendingPrefix}`, async () => {
    const keys = await stack.redis.keys(`${stack.pendingPrefix}*`);
    return keys.length === 0 ? keys : undefined;
  }, 10_000, 200);
  expect(leftovers).toEqual([]);
  return { confirmed, fees };
}

const only = (actions: Action[], type: string) => {
  const found = actions.filter((a) => a.type === type);
  expect(found.map((a) => a.type), `one ${type} among ${JSON.stringify(actions.map((a) => a.type))}`).toEqual([type]);
  return found[0];
};

beforeAll(async () => {
  stack = await startLocalStack({ name: 'pendinge2e', roundMs: ROUND_MS });
  wallets = await stack.wallets();
  // The first external pays for cold starts (the API's producer, the emulator's config and caches):
  // one through the API, left to be confirmed and cleared before the cases run.
  const warmUp = await post(wallets[5], [internal({ to: wallets[2].contract.address, value: toNano('0.01'), bounce: false, body: 'warm-up' })]);
  await stack.until('the warm-up transfer confirmed', async () => ((await v3<{ traces: ConfirmedTrace[] }>(`/traces?msg_hash=${encodeURIComponent(warmUp.hash)}`)).traces[0]?.trace_info.trace_state === 'complete' ? true : undefined), 90_000, 300);
  await stack.until('no pending keys after the warm-up', async () => ((await stack.redis.keys(`${stack.pendingPrefix}*`)).length === 0 ? true : undefined), 30_000, 200);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe('pending traces through the real pipeline', () => {
  it('a TON transfer sent through POST /api/v3/message is pending as sent, then confirmed: /traces has the ledger\'s transactions, the pending entry is gone', async () => {
    const k = wallets[0];
    const to = wallets[4].contract.address;
    const sent = await sendPending(k, () => [internal({ to, value: 1_234_567_890n, bounce: false, body: 'pending e2e ton' })]);
    expect(sent.confirmedServed, 'pending before /traces served the confirmed trace').toBe(false);
    expect(sent.pending).toMatchObject({ trace_id: null, external_hash: sent.hash, trace_info: { trace_state: 'pending' } });
    expect(only(sent.pending.actions, 'ton_transfer').details).toMatchObject({ source: raw(k.contract.address), destination: raw(to), value: '1234567890', comment: 'pending e2e ton' });
    const pendingActions = await v3<{ actions: Action[] }>(`/pendingActions?account=${raw(to)}`);
    expect(pendingActions.actions.map((a) => [a.type, a.trace_external_hash_norm, a.finality])).toEqual([['ton_transfer', sent.hashNorm, 'pending']]);

    const { confirmed, fees } = await expectConfirmed(sent);
    expect(only(confirmed.actions, 'ton_transfer').details).toMatchObject({ source: raw(k.contract.address), destination: raw(to), value: '1234567890', comment: 'pending e2e ton' });
    console.log(JSON.stringify({ case: 'ton transfer', fees }));
  }, 240_000);

  it('a Jetton transfer sent through POST /api/v3/message is a pending jetton_transfer (amount, parties, comment, master), then confirmed', async () => {
    const k = wallets[3];
    const me = k.contract.address;
    const receiver = wallets[4].contract.address;
    const jetton = createJetton(me, `pending-e2e-${stack.database}`);
    await sendDirect(k, [internal({ to: jetton.minter, value: toNano('0.5'), bounce: false, init: jetton.minterInit, body: jettonMintBody({ queryId: 1n, minter: jetton.minter, to: me, amount: 1000n, response: me }) })], 4);

    const sent = await sendPending(k, () => [internal({ to: jetton.walletOf(me), value: toNano('0.1'), body: jettonTransferBody({ queryId: 2n, amount: 250n, to: receiver, response: me, comment: 'pending e2e jetton' }) })]);
    expect(sent.confirmedServed, 'pending before /traces served the confirmed trace').toBe(false);
    const expected = {
      asset: raw(jetton.minter),
      sender: raw(me),
      receiver: raw(receiver),
      sender_jetton_wallet: raw(jetton.walletOf(me)),
      receiver_jetton_wallet: raw(jetton.walletOf(receiver)),
      amount: '250',
      comment: 'pending e2e jetton',
      forward_amount: JETTON_FORWARD_TON.toString(),
      query_id: '2',
    };
    expect(only(sent.pending.actions, 'jetton_transfer')).toMatchObject({ success: true, details: expected });
    // The receiver made no transaction of its own (its Jetton wallet did), yet its pending actions list it.
    const byReceiver = await v3<{ actions: Action[] }>(`/pendingActions?account=${raw(receiver)}`);
    expect(only(byReceiver.actions, 'jetton_transfer')).toMatchObject({ trace_external_hash_norm: sent.hashNorm, finality: 'pending', details: expected });

    const { confirmed, fees } = await expectConfirmed(sent);
    expect(only(confirmed.actions, 'jetton_transfer')).toMatchObject({ success: true, details: expected });
    console.log(JSON.stringify({ case: 'jetton transfer', fees }));
  }, 240_000);

  it('an NFT transfer sent through POST /api/v3/message is a pending nft_transfer (item, collection and index from its emulated state), then confirmed', async () => {
    const k = wallets[0];
    const me = k.contract.address;
    const receiver: Address = wallets[4].contract.address;
    const nft = createNftSet(me, `pending-e2e-${stack.database}`);
    await sendDirect(k, [internal({ to: nft.collection, value: toNano('0.5'), bounce: false, init: nft.collectionInit, body: nftMintBody({ queryId: 3n, index: 0, owner: me }) })], 3);

    const sent = await sendPending(k, () => [internal({ to: nft.itemAddress(0), value: NFT_GAS, body: nftTransferBody({ queryId: 4n, newOwner: receiver, response: me }) })]);
    expect(sent.confirmedServed, 'pending before /traces served the confirmed trace').toBe(false);
    const expected = { nft_item: raw(nft.itemAddress(0)), nft_collection: raw(nft.collection), nft_item_index: '0', old_owner: raw(me), new_owner: raw(receiver), query_id: '4' };
    expect(only(sent.pending.actions, 'nft_transfer')).toMatchObject({ success: true, details: expected });

    const { confirmed, fees } = await expectConfirmed(sent);
    expect(only(confirmed.actions, 'nft_transfer')).toMatchObject({ success: true, details: expected });
    console.log(JSON.stringify({ case: 'nft transfer', fees }));
  }, 240_000);
});
