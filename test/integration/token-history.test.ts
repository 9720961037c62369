import { randomBytes } from 'node:crypto';
import { createStore, migrate, MIGRATIONS, readJettonHolders, readJettonMasters, readJettonWallets, readNftItems, readTopBalances, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../../packages/block/src/test-support/random.js';

/*
 * Migration 11 on the real ClickHouse: token state history (a read at the watermark never loses a
 * contract whose newer version is above it) and the ranked reads (top Jetton holders, top accounts).
 * The expected answers are computed here from the versions the test writes (the ledger), never from
 * the store's own output. Rows go in as the writer's do: into the state tables, the views fill the rest.
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

const address = (n: number, tag: number) => `0:${tag.toString(16).padStart(8, '0').toUpperCase()}${n.toString(16).padStart(56, '0').toUpperCase()}`;

/** A balance of 1 to 36 decimal digits (Coins reach 2^120), zero now and then. */
function balance(random: () => number): string {
  if (random() < 0.05) return '0';
  const digits = 1 + Math.floor(random() * 36);
  let s = String(1 + Math.floor(random() * 9));
  for (let i = 1; i < digits; i++) s += String(Math.floor(random() * 10));
  return s;
}

type Version = { lt: number; mc: number; balance: string };

/** Up to four versions per contract, lt and masterchain seqno rising; some above the watermark. */
function versions(random: () => number): Version[] {
  const out: Version[] = [];
  let lt = 1_000 + Math.floor(random() * 1_000);
  let mc = 1 + Math.floor(random() * 10);
  for (let i = 1 + Math.floor(random() * 4); i > 0; i--) {
    out.push({ lt, mc, balance: balance(random) });
    lt += 1 + Math.floor(random() * 1_000);
    mc += Math.floor(random() * 8);
  }
  return out;
}

/** The version a read at `watermark` must serve: the latest with mc at or below it. */
const atWatermark = (vs: Version[], watermark: number) => vs.filter((v) => v.mc <= watermark).sort((a, b) => b.lt - a.lt)[0];

const byBalance = (dir: 'asc' | 'desc') => (a: { id: string; balance: string }, b: { id: string; balance: string }) => {
  const d = BigInt(a.balance) - BigInt(b.balance);
  if (d !== 0n) return (dir === 'desc' ? d < 0n : d > 0n) ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

let store: Store;

beforeAll(async () => {
  store = createStore({ url: CLICKHOUSE_URL, database: `tonstream_test_${randomBytes(4).toString('hex')}` });
  await migrate(store);
});

afterAll(async () => {
  await store.command(`DROP DATABASE IF EXISTS ${store.database}`);
  await store.close();
});

const optimize = (table: string) => store.command(`OPTIMIZE TABLE ${store.database}.${table} FINAL`);

describe('token state history (migration 11)', () => {
  const wallet = address(1, 0xa1);
  const owner = address(2, 0xa1);
  const jetton = address(3, 0xa1);
  const item = address(4, 0xa1);
  const state = (lt: number, mc: number) => ({ code_hash: 'code', data_hash: `data${lt}`, last_trans_lt: lt, mc_block_seqno: mc });

  beforeAll(async () => {
    await store.insert('jetton_wallets', [{ address: wallet, jetton, owner, balance: '500', ...state(100, 10) }]);
    await store.insert('jetton_wallets', [{ address: wallet, jetton, owner, balance: '700', ...state(200, 20) }]);
    await store.insert('jetton_masters', [{ address: jetton, total_supply: '1000', mintable: 1, admin_address: owner, jetton_content: '', jetton_wallet_code_hash: 'w', ...state(100, 10) }]);
    await store.insert('jetton_masters', [{ address: jetton, total_supply: '1200', mintable: 0, admin_address: owner, jetton_content: '', jetton_wallet_code_hash: 'w', ...state(200, 20) }]);
    const nft = { address: item, init: 1, item_index: '7', collection_address: address(5, 0xa1), content: '', individual_content: '' };
    await store.insert('nft_items', [{ ...nft, owner_address: owner, ...state(100, 10) }]);
    await store.insert('nft_items', [{ ...nft, owner_address: address(6, 0xa1), ...state(200, 20) }]);
    for (const t of ['jetton_wallets', 'jetton_masters', 'nft_items']) await optimize(t);
  });

  it('the state tables kept only the newest version (the case the history is for)', async () => {
    for (const t of ['jetton_wallets', 'jetton_masters', 'nft_items']) {
      const rows = await store.query<{ lt: string }>(`SELECT last_trans_lt AS lt FROM ${store.database}.${t}`);
      expect(rows.map((r) => Number(r.lt))).toEqual([200]);
    }
  });

  it('a read at a watermark below the newest version serves the version before it', async () => {
    const at = (watermark: number) => ({ watermark });
    expect((await readJettonWallets(store, at(15), { address: [wallet] }, { limit: 10, offset: 0 })).map((r) => r.balance)).toEqual(['500']);
    expect((await readJettonWallets(store, at(15), { owner: [owner] }, { limit: 10, offset: 0 })).map((r) => [r.balance, r.data_hash])).toEqual([['500', 'data100']]);
    expect((await readJettonWallets(store, at(15), { jetton: [jetton] }, { limit: 10, offset: 0, sort: 'desc' })).map((r) => r.balance)).toEqual(['500']);
    expect((await readJettonMasters(store, at(15), {}, { limit: 10, offset: 0 })).map((r) => r.total_supply)).toEqual(['1000']);
    expect((await readNftItems(store, at(15), { owner: [owner] }, { limit: 10, offset: 0 })).map((r) => r.owner_address)).toEqual([owner]);
    // The item changed owner above the watermark: the new owner does not have it yet.
    expect(await readNftItems(store, at(15), { owner: [address(6, 0xa1)] }, { limit: 10, offset: 0 })).toEqual([]);
  });

  it('never shows a version above the watermark, and the newest once the watermark covers it', async () => {
    expect(await readJettonWallets(store, { watermark: 5 }, { address: [wallet] }, { limit: 10, offset: 0 })).toEqual([]);
    expect((await readJettonWallets(store, { watermark: 20 }, { address: [wallet] }, { limit: 10, offset: 0 })).map((r) => r.balance)).toEqual(['700']);
    expect((await readJettonMasters(store, { watermark: 25 }, { address: [jetton] }, { limit: 10, offset: 0 })).map((r) => r.total_supply)).toEqual(['1200']);
  });
});

describe('ranked reads (migration 11) equal the ranking of the written versions', () => {
  const WATERMARK = 20;
  const random = rng(14);
  const jettons = [address(1, 0xb0), address(2, 0xb0), address(3, 0xb0)];
  /** Most wallets hold the first jetton, as USDT's do. */
  const wallets = Array.from({ length: 3_000 }, (_, i) => ({ id: address(i, 0xb1), jetton: jettons[i < 2_600 ? 0 : 1 + (i % 2)], versions: versions(random) }));
  const accounts = Array.from({ length: 2_000 }, (_, i) => ({ id: address(i, 0xb2), versions: versions(random).map((v) => ({ ...v, balance: String(BigInt(v.balance) % 2n ** 64n) })) }));

  beforeAll(async () => {
    // One INSERT per version rank, as separate batches of the writer would land them.
    for (let rank = 0; rank < 4; rank++) {
      const ws = wallets.flatMap((w) => (w.versions[rank] ? [{ w, v: w.versions[rank] }] : []));
      await store.insert('jetton_wallets', ws.map(({ w, v }) => ({ address: w.id, jetton: w.jetton, owner: address(9, 0xb1), balance: v.balance, code_hash: 'c', data_hash: `d${v.lt}`, last_trans_lt: v.lt, mc_block_seqno: v.mc })));
      const as = accounts.flatMap((a) => (a.versions[rank] ? [{ a, v: a.versions[rank] }] : []));
      const rows = as.map(({ a, v }) => ({ account: a.id, last_trans_lt: v.lt, mc_block_seqno: v.mc, balance: v.balance }));
      await store.insert('account_states', rows);
      await store.insert('account_states_latest', rows);
    }
  });

  const expectedHolders = (jetton: string, dir: 'asc' | 'desc', excludeZero = false) =>
    wallets
      .filter((w) => w.jetton === jetton)
      .flatMap((w) => {
        const v = atWatermark(w.versions, WATERMARK);
        return v && (!excludeZero || v.balance !== '0') ? [{ id: w.id, balance: v.balance }] : [];
      })
      .sort(byBalance(dir));
  const expectedAccounts = () =>
    accounts
      .flatMap((a) => {
        const v = atWatermark(a.versions, WATERMARK);
        return v ? [{ id: a.id, balance: v.balance }] : [];
      })
      .sort(byBalance('desc'));

  const pages: { dir: 'asc' | 'desc'; offset: number; limit: number; excludeZero?: boolean }[] = [
    { dir: 'desc', offset: 0, limit: 10 },
    { dir: 'desc', offset: 95, limit: 30 },
    { dir: 'desc', offset: 0, limit: 1_000 },
    { dir: 'desc', offset: 2_300, limit: 500 },
    { dir: 'asc', offset: 0, limit: 20 },
    { dir: 'asc', offset: 0, limit: 20, excludeZero: true },
  ];

  const checkAll = async () => {
    for (const jetton of jettons) {
      for (const p of pages) {
        const got = await readJettonHolders(store, { watermark: WATERMARK }, jetton, { limit: p.limit, offset: p.offset, sort: p.dir }, p.excludeZero);
        const want = expectedHolders(jetton, p.dir, p.excludeZero).slice(p.offset, p.offset + p.limit);
        expect(got.map((r) => [r.address, r.balance]), `${jetton} ${JSON.stringify(p)}`).toEqual(want.map((w) => [w.id, w.balance]));
      }
    }
    // The endpoint's path: /jetton/wallets?jetton_address=…&sort=desc.
    const top = await readJettonWallets(store, { watermark: WATERMARK }, { jetton: [jettons[0]] }, { limit: 25, offset: 0, sort: 'desc' });
    expect(top.map((r) => r.address)).toEqual(expectedHolders(jettons[0], 'desc').slice(0, 25).map((w) => w.id));
    for (const p of [{ offset: 0, limit: 10 }, { offset: 40, limit: 100 }, { offset: 1_900, limit: 500 }]) {
      const got = await readTopBalances(store, { watermark: WATERMARK }, p);
      expect(got.map((r) => [r.account, r.balance]), JSON.stringify(p)).toEqual(expectedAccounts().slice(p.offset, p.offset + p.limit).map((a) => [a.id, a.balance]));
    }
  };

  it('the data has what the ranked tables must handle: wallets moved between buckets, versions above the watermark', () => {
    const moved = wallets.filter((w) => new Set(w.versions.map((v) => v.balance.length)).size > 1).length;
    const above = wallets.filter((w) => w.versions.some((v) => v.mc > WATERMARK) && atWatermark(w.versions, WATERMARK)).length;
    expect(moved).toBeGreaterThan(500);
    expect(above).toBeGreaterThan(50);
  });

  it('before merges', async () => {
    await checkAll();
  });

  it('after every table merged (state tables down to one version per contract)', async () => {
    for (const t of ['jetton_wallets', 'jetton_wallets_history', 'jetton_wallets_by_balance', 'account_states', 'account_states_latest', 'accounts_by_balance']) await optimize(t);
    const [{ n }] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.jetton_wallets WHERE startsWith(address, '0:000000B1')`);
    expect(Number(n)).toBe(wallets.length);
    await checkAll();
  });

  it('a database migrated before 11 gets its stored wallets and accounts ranked by the migration', async () => {
    const old = createStore({ url: CLICKHOUSE_URL, database: `tonstream_test_${randomBytes(4).toString('hex')}` });
    try {
      await migrate(old, MIGRATIONS.filter((m) => m.version < 11));
      const some = wallets.filter((w) => w.jetton === jettons[1]);
      await old.insert('jetton_wallets', some.map((w) => ({ address: w.id, jetton: w.jetton, owner: '', balance: w.versions[0].balance, code_hash: 'c', data_hash: 'd', last_trans_lt: w.versions[0].lt, mc_block_seqno: 1 })));
      await old.insert('account_states_latest', accounts.map((a) => ({ account: a.id, last_trans_lt: 1, mc_block_seqno: 1, balance: a.versions[0].balance })));
      expect(await migrate(old, MIGRATIONS.filter((m) => m.version <= 11))).toMatchObject({ applied: [11] });
      const holders = await readJettonHolders(old, { watermark: 1 }, jettons[1], { limit: 50, offset: 0, sort: 'desc' });
      const want = some.map((w) => ({ id: w.id, balance: w.versions[0].balance })).sort(byBalance('desc'));
      expect(holders.map((r) => r.address)).toEqual(want.slice(0, 50).map((w) => w.id));
      const rich = await readTopBalances(old, { watermark: 1 }, { limit: 50, offset: 0 });
      expect(rich.map((r) => r.account)).toEqual(accounts.map((a) => ({ id: a.id, balance: a.versions[0].balance })).sort(byBalance('desc')).slice(0, 50).map((a) => a.id));
    } finally {
      await old.command(`DROP DATABASE IF EXISTS ${old.database}`);
      await old.close();
    }
  });
});
