import { Address } from '@ton/core';
import type { AccountStateRecord, TransactionRecord } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { extrasAddresses, notificationJson, type AddressExtras, type BlockEvent, type View } from './events.js';
import { createFanout, type Client } from './fanout.js';
import { applySubscription, emptySubscription, parseSubscription } from './subscription.js';

const WALLET = `0:${'AA'.repeat(32)}`;
const OWNER = `0:${'BB'.repeat(32)}`;
const MASTER = `0:${'CC'.repeat(32)}`;
const OTHER = `0:${'DD'.repeat(32)}`;

const state = { account: WALLET, account_state_hash: 'h', balance: '1', extra_currencies: {}, status: 'active', frozen_hash: null, code_hash: 'c', data_hash: 'd', code_boc: null, data_boc: null, last_trans_lt: '7', last_trans_hash: 'x', mc_block_seqno: 1, gen_utime: 1 } as AccountStateRecord;
const jettonsChange = (): BlockEvent => ({ type: 'jettons_change', account: WALLET, wallet: { owner: OWNER, jetton: MASTER, balance: '250' }, state });

/** A transaction of OWNER sending to WALLET, fields the notification does not look at left out. */
const transfer = (): BlockEvent => {
  const record = { account: OWNER, hash: 'tx', lt: '5', end_status: 'active', in_msg: { source: null, destination: OWNER }, out_msgs: [{ destination: WALLET }], account_state_hash_before: 'b', account_state_hash_after: 'a' } as unknown as TransactionRecord;
  return { type: 'transactions', norm: 'n', accounts: new Set([OWNER]), txs: [{ account: OWNER, lt: '5', record, traceId: 'tx', json: {} }] };
};

const masterMeta = { is_indexed: true, token_info: [{ valid: true, type: 'jetton_masters', name: 'Coin', symbol: 'CN' }] };
const walletMeta = { is_indexed: true, token_info: [{ valid: true, type: 'jetton_wallets', extra: { owner: OWNER, jetton: MASTER, balance: '250' } }] };
const known: AddressExtras = {
  book: new Map([
    [WALLET, { domain: null, interfaces: ['jetton_wallet'] }],
    [MASTER, { domain: 'coin.ton', interfaces: ['jetton_master'] }],
    // A standard wallet's code: the v3 address book shows it non-bounceable.
    [OWNER, { domain: null, interfaces: ['wallet_v5r1'], bounceable: false }],
  ]),
  // As the streamer's lookup gives them: a wallet brings its master's entry with its own.
  metadata: new Map([
    [WALLET, { [WALLET]: walletMeta, [MASTER]: masterMeta }],
    [MASTER, { [MASTER]: masterMeta }],
  ]),
};

const view = (includeAddressBook: boolean, includeMetadata: boolean): View => ({ addresses: new Set([OWNER]), includeAddressBook, includeMetadata, actionTypes: null, supported: new Set() });
const friendly = (raw: string, bounceable: boolean) => Address.parseRaw(raw).toString({ bounceable, urlSafe: true });
const parse = (json: string | null) => JSON.parse(json!) as Record<string, unknown>;

describe('address_book and metadata of notifications', () => {
  it('jettons_change: the book of wallet, owner and master with their interfaces and domain; metadata of owner and master only', () => {
    const e = { ...jettonsChange(), extras: known };
    const n = parse(notificationJson(e, 'confirmed', null, view(true, true), new Map()));
    expect(n.address_book).toEqual({
      [WALLET]: { user_friendly: friendly(WALLET, true), domain: null, interfaces: ['jetton_wallet'] },
      [OWNER]: { user_friendly: friendly(OWNER, false), domain: null, interfaces: ['wallet_v5r1'] },
      [MASTER]: { user_friendly: friendly(MASTER, true), domain: 'coin.ton', interfaces: ['jetton_master'] },
    });
    // §6.5: metadata for owner and master: the wallet's own entry is not there.
    expect(n.metadata).toEqual({ [MASTER]: masterMeta });
  });

  it('transactions: metadata of the addresses the book covers, a Jetton wallet bringing its master', () => {
    const n = parse(notificationJson({ ...transfer(), extras: known }, 'finalized', null, view(true, true), new Map()));
    expect(Object.keys(n.address_book as object).sort()).toEqual([OWNER, WALLET].sort());
    expect(n.metadata).toEqual({ [WALLET]: walletMeta, [MASTER]: masterMeta });
  });

  it('nothing looked up: user-friendly forms only and an empty metadata object; no includes: neither field', () => {
    const bare = parse(notificationJson(jettonsChange(), 'confirmed', null, view(true, true), new Map()));
    expect(bare.address_book).toEqual({
      [WALLET]: { user_friendly: friendly(WALLET, true), domain: null, interfaces: [] },
      [OWNER]: { user_friendly: friendly(OWNER, true), domain: null, interfaces: [] },
      [MASTER]: { user_friendly: friendly(MASTER, true), domain: null, interfaces: [] },
    });
    expect(bare.metadata).toEqual({});
    const plain = parse(notificationJson({ ...jettonsChange(), extras: known }, 'confirmed', null, view(false, false), new Map()));
    expect('address_book' in plain || 'metadata' in plain).toBe(false);
    const bookOnly = parse(notificationJson({ ...jettonsChange(), extras: known }, 'confirmed', null, view(true, false), new Map()));
    expect('address_book' in bookOnly && !('metadata' in bookOnly)).toBe(true);
  });

  it('one JSON per distinct selection: views with the same includes share it', () => {
    const e = { ...transfer(), extras: known };
    const cache = new Map<string, string>();
    const a = notificationJson(e, 'confirmed', 'c1', view(true, true), cache);
    const b = notificationJson(e, 'confirmed', 'c1', view(true, true), cache);
    notificationJson(e, 'confirmed', 'c1', view(false, false), cache);
    expect(a).toBe(b);
    expect(cache.size).toBe(2);
  });

  it('extrasAddresses: every address a book may show (§6 per type), none for account_state_change', () => {
    expect(extrasAddresses(jettonsChange())).toEqual(new Set([WALLET, OWNER, MASTER]));
    expect(extrasAddresses(transfer())).toEqual(new Set([OWNER, WALLET]));
    expect(extrasAddresses({ type: 'account_state_change', account: WALLET, state })).toEqual(new Set());
  });
});

describe('createFanout().asksForExtras()', () => {
  const client = (id: number, body: Record<string, unknown>): Client => {
    const r = parseSubscription({ types: ['jettons_change'], addresses: [OWNER], ...body }, 'ws', 10);
    if (!r.ok) throw new Error(r.error);
    return { id, sub: applySubscription(emptySubscription(), r.value), floor: null, deliver: () => undefined };
  };

  it('true only for an event some indexed client with include_* takes at that finality', () => {
    const f = createFanout({ retainMcBlocks: 10, retainMaxBytes: 1e9 });
    const plain = client(1, {});
    f.add(plain);
    f.setSubscription(plain, plain.sub);
    expect(f.asksForExtras(jettonsChange(), 'confirmed')).toBe(false);
    const asking = client(2, { include_metadata: true, min_finality: 'finalized' });
    f.add(asking);
    f.setSubscription(asking, asking.sub);
    expect(f.asksForExtras(jettonsChange(), 'confirmed')).toBe(false);
    expect(f.asksForExtras(jettonsChange(), 'finalized')).toBe(true);
    expect(f.asksForExtras({ ...jettonsChange(), account: OTHER, wallet: { owner: OTHER, jetton: MASTER, balance: '1' } }, 'finalized')).toBe(false);
    f.remove(asking);
    expect(f.asksForExtras(jettonsChange(), 'finalized')).toBe(false);
  });
});
