import { randomBytes } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AccountStateRecord, MessageRecord, TransactionRecord } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { parseCursor, type Stage } from './cursor.js';
import { transactionsEvent, type BlockEvent } from './events.js';
import { createFanout, type Client, type Fanout } from './fanout.js';
import { applySubscription, emptySubscription, parseSubscription } from './subscription.js';

// The resume window's byte bound against what the log really keeps: every view's notification JSON
// (checked against what the clients were sent) and the real heap (measured after a full GC).

const ACCOUNTS = Array.from({ length: 4 }, (_, i) => `0:${String(i + 1).repeat(64)}`);
const b64 = (bytes: number) => randomBytes(bytes).toString('base64');

function message(source: string | null, destination: string, lt: number, bodyBytes: number): MessageRecord {
  return {
    hash: b64(32), source, destination, value: '1000000000', value_extra_currencies: {}, fwd_fee: '266669', ihr_fee: '0', import_fee: null,
    created_lt: String(lt), created_at: '1700000000', opcode: '0x0f8a7ea5', ihr_disabled: true, bounce: true, bounced: false,
    message_content: { hash: b64(32), body: b64(bodyBytes) }, init_state: null,
  };
}

function transaction(account: string, lt: number, mc: number): TransactionRecord {
  const peer = ACCOUNTS[(ACCOUNTS.indexOf(account) + 1) % ACCOUNTS.length];
  return {
    account, hash: b64(32), lt: String(lt), now: 1700000000, mc_block_seqno: mc, prev_trans_hash: b64(32), prev_trans_lt: String(lt - 7),
    orig_status: 'active', end_status: 'active', total_fees: '1234567', total_fees_extra_currencies: {},
    account_state_hash_before: b64(32), account_state_hash_after: b64(32),
    description: { type: 'ord', aborted: false, destroyed: false, credit_first: true, compute_ph: { type: 'vm', success: true, gas_used: '3308', vm_init_state_hash: b64(32), vm_final_state_hash: b64(32) } as never },
    block_ref: { workchain: 0, shard: '8000000000000000', seqno: mc * 3 },
    in_msg: message(peer, account, lt - 1, 600), out_msgs: [message(account, peer, lt + 1, 300)],
    boc: b64(1500),
  };
}

function state(account: string, lt: number, mc: number): AccountStateRecord {
  return {
    account, account_state_hash: b64(32), balance: String(lt * 1000), extra_currencies: {}, status: 'active', frozen_hash: null,
    code_hash: b64(32), data_hash: b64(32), code_boc: b64(2000), data_boc: b64(400), last_trans_lt: String(lt), last_trans_hash: b64(32), mc_block_seqno: mc, gen_utime: 1700000000,
  };
}

/** One block: a trace touching every account (one `transactions` event), then each account's state. */
function blockEvents(mc: number): BlockEvent[] {
  const lt = mc * 1000;
  const txs = ACCOUNTS.map((a, i) => ({ account: a, lt: String(lt + i * 10), record: transaction(a, lt + i * 10, mc), traceId: b64(32), json: {} }));
  return [transactionsEvent(b64(32), txs), ...ACCOUNTS.map((a, i): BlockEvent => ({ type: 'account_state_change', account: a, state: state(a, lt + i * 10, mc) }))];
}

type Sent = { client: number; json: string; cursor: string };

/** Clients with different views of the same events: address subsets and includes. */
function subscribe(f: Fanout, onSent: (s: Sent) => void): Client[] {
  const views = [
    { addresses: [ACCOUNTS[0]] },
    { addresses: [ACCOUNTS[1]], include_address_book: true },
    { addresses: [ACCOUNTS[0], ACCOUNTS[1]] },
    { addresses: ACCOUNTS, include_metadata: true },
    { addresses: [ACCOUNTS[2], ACCOUNTS[3]], include_address_book: true, include_metadata: true },
  ];
  return views.map((v, id) => {
    const r = parseSubscription({ types: ['transactions', 'account_state_change'], min_finality: 'confirmed', ...v }, 'ws', 10);
    if (!r.ok) throw new Error(r.error);
    const c: Client = { id, sub: emptySubscription(), floor: null, deliver: (json, cursor) => onSent({ client: id, json, cursor }) };
    f.add(c);
    f.setSubscription(c, applySubscription(emptySubscription(), r.value));
    return c;
  });
}

/** Confirmed then (two blocks later) finalized steps, as the streamer emits them. */
function* steps(blocks: number): Iterable<[Stage, number, BlockEvent[]]> {
  const pending: [number, BlockEvent[]][] = [];
  for (let mc = 1; mc <= blocks; mc++) {
    const events = blockEvents(mc);
    yield ['confirmed', mc, events];
    pending.push([mc, events]);
    if (pending.length > 2) yield ['finalized', ...pending.shift()!];
  }
}

describe('the retained log', () => {
  it('counts every view it keeps and never holds more than the bound', () => {
    const bound = 256 * 1024;
    const f = createFanout({ retainMcBlocks: 1_000_000, retainMaxBytes: bound });
    const sent: Sent[] = [];
    subscribe(f, (s) => sent.push(s));
    let evicted = false;
    for (const [stage, mc, events] of steps(120)) {
      f.emit(stage, mc, events);
      const s = f.status();
      expect(s.logBytes, `after ${stage} ${mc}`).toBeLessThanOrEqual(bound);
      // Every distinct notification still retained was sent to some client: their sizes alone are under the count.
      const retained = new Set(sent.filter(({ cursor }) => {
        const c = parseCursor(cursor)!;
        const own: Stage = cursor.startsWith('c') ? 'confirmed' : 'finalized';
        return c[own].mc >= (s.lowest[own] ?? Infinity);
      }).map((x) => `${x.cursor}\n${x.json}`));
      const viewBytes = [...retained].reduce((n, k) => n + k.length - k.indexOf('\n') - 1, 0);
      expect(viewBytes, `after ${stage} ${mc}`).toBeLessThan(s.logBytes);
      evicted ||= (s.lowest.confirmed ?? 0) > 1;
    }
    expect(evicted).toBe(true);

    // Resume semantics hold: an evicted cursor is too old; a retained one replays exactly what followed it.
    const first = sent.find((x) => x.cursor.startsWith('c'))!.cursor;
    expect(f.canResume(parseCursor(first)!)).toMatchObject({ ok: false, error: expect.stringMatching(/^cursor too old/) });
    // Client 0's view again (one account, both types), resumed from one of its cursors.
    const watcher = sent.filter((x) => x.client === 0);
    const from = watcher.findIndex((x) => f.canResume(parseCursor(x.cursor)!).ok);
    expect(from).toBeGreaterThan(0);
    expect(watcher.length - from).toBeGreaterThan(5);
    const got: string[] = [];
    const back: Client = { id: 99, sub: emptySubscription(), floor: parseCursor(watcher[from].cursor), deliver: (_json, cursor) => got.push(cursor) };
    const r = parseSubscription({ types: ['transactions', 'account_state_change'], addresses: [ACCOUNTS[0]], min_finality: 'confirmed' }, 'ws', 10);
    if (!r.ok) throw new Error(r.error);
    expect(f.canResume(back.floor!)).toEqual({ ok: true });
    f.add(back);
    f.setSubscription(back, applySubscription(emptySubscription(), r.value));
    f.beginReplay(back);
    while (f.replayNext(back, 4096) === 'more');
    expect(got).toEqual(watcher.slice(from + 1).map((x) => x.cursor));
    // The replayed view was new: it is kept only where it fits.
    expect(f.status().logBytes).toBeLessThanOrEqual(bound);
  });

  it('keeps the heap it really uses under the bound while many times the bound streams through', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const bound = 16 * 1024 * 1024;
    const base = heap();
    const f = createFanout({ retainMcBlocks: 1_000_000, retainMaxBytes: bound });
    let delivered = 0;
    subscribe(f, ({ json }) => (delivered += json.length));
    let peak = 0;
    for (const [stage, mc, events] of steps(2400)) {
      f.emit(stage, mc, events);
      if (stage === 'confirmed' && mc % 200 === 0) peak = Math.max(peak, heap() - base);
    }
    const s = f.status();
    // Many times the bound went through, and the window really filled.
    expect(delivered).toBeGreaterThan(4 * bound);
    expect(s.lowest.confirmed).toBeGreaterThan(1);
    expect(s.logBytes).toBeGreaterThan(0.9 * bound);
    expect(peak).toBeGreaterThan(0.5 * bound);
    // What V8 holds for the window (plus the test's own few objects) stays within the bound.
    expect(peak).toBeLessThan(bound * 1.1);
  }, 60_000);
});
