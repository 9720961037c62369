import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBlock } from '@tonstream/block';
import { createStore, migrate, recordBatch, type RecordBatch, type Store, StoreError, str, TABLES, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const BLOCK = join(import.meta.dirname, '../fixtures/mainnet/blocks/wc0_8000000000000000_71398501.boc');

let store: Store;
const database = `tonstream_test_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  store = createStore({ url: CLICKHOUSE_URL, database });
});

afterAll(async () => {
  await store.command(`DROP DATABASE IF EXISTS ${database}`);
  await store.close();
});

function batchOf(bytes: Buffer): RecordBatch {
  const r = decodeBlock(bytes, { mcSeqno: 66519406 });
  return recordBatch({ blocks: [r.block], transactions: r.transactions, messages: r.messages });
}

describe('store on the real ClickHouse', () => {
  it('migrates once and is a no-op the second time', async () => {
    expect(await migrate(store)).toEqual({ applied: [1], current: 1 });
    expect(await migrate(store)).toEqual({ applied: [], current: 1 });
    const tables = await store.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${str(database)}`);
    expect(tables.map((t) => t.name).sort()).toEqual([...TABLES, 'schema_migrations'].sort());
  });

  it('stores a mainnet block once even when the batch is written twice', async () => {
    const batch = batchOf(readFileSync(BLOCK));
    const first = await writeBatch(store, batch);
    expect(first.byTable.transactions).toBe(269);
    await writeBatch(store, batch);

    const raw = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.transactions`);
    expect(Number(raw[0].c)).toBe(2 * 269);
    const dedup = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.transactions FINAL`);
    expect(Number(dedup[0].c)).toBe(269);

    const hashes = await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions_by_hash FINAL ORDER BY hash`);
    expect(hashes.map((h) => h.hash)).toEqual(batch.transactions.map((t) => t.record.hash).sort());
    const msgs = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.messages FINAL`);
    expect(Number(msgs[0].c)).toBe(new Set(batch.messages.map(({ record: m }) => `${m.hash}|${m.direction}|${m.tx_hash}`)).size);

    // The stored record is the JSON text the batch carried, exactly.
    const tx = batch.transactions[17];
    const rows = await store.query<{ record: string }>(`SELECT record FROM ${database}.transactions FINAL WHERE account = ${str(tx.record.account)} AND lt = ${tx.record.lt}`);
    expect(rows[0].record).toBe(tx.json);
    expect(JSON.parse(rows[0].record)).toMatchObject({ hash: tx.record.hash, lt: tx.record.lt, description: tx.record.description, out_msgs: tx.record.out_msgs.map((m) => ({ hash: m.hash })) });
  });

  it('keeps the newest account state per account', async () => {
    const base = { account: '0:AA', account_state_hash: 'h', extra_currencies: {}, status: 'active' as const, frozen_hash: null, code_hash: 'c', data_hash: 'd', code_boc: null, data_boc: null, last_trans_hash: 'x', mc_block_seqno: 1, gen_utime: 1 };
    const states = [
      { ...base, balance: '10', last_trans_lt: '200' },
      { ...base, balance: '5', last_trans_lt: '100' },
    ];
    await writeBatch(store, recordBatch({ accountStates: states }));
    await writeBatch(store, recordBatch({ accountStates: [states[1]] }));
    const rows = await store.query<{ balance: string }>(`SELECT balance FROM ${database}.account_states_latest FINAL WHERE account = '0:AA'`);
    expect(rows).toEqual([{ balance: '10' }]);
  });

  it('round-trips hostile strings through literal escaping', async () => {
    const nasty = `it's a \\ "test"; DROP TABLE x; -- \n\t\0 ✓ 🚀`;
    const rows = await store.query<{ s: string }>(`SELECT ${str(nasty)} AS s`);
    expect(rows[0].s).toBe(nasty);
    // And through an insert (TabSeparated), in a plain column and inside the record JSON.
    const state = { account: nasty, account_state_hash: 'h', extra_currencies: {}, status: 'active' as const, frozen_hash: null, code_hash: 'c\\d', data_hash: null, code_boc: null, data_boc: null, last_trans_lt: '1', last_trans_hash: 'x\ty', mc_block_seqno: 1, gen_utime: 1, balance: '1' };
    await writeBatch(store, recordBatch({ accountStates: [state] }));
    const back = await store.query<{ account: string; last_trans_hash: string; record: string }>(`SELECT account, last_trans_hash, record FROM ${database}.account_states_latest FINAL WHERE account = ${str(nasty)}`);
    expect(back).toHaveLength(1);
    expect(back[0].account).toBe(nasty);
    expect(back[0].last_trans_hash).toBe('x\ty');
    expect(JSON.parse(back[0].record)).toEqual(state);
  });

  it('reports server errors as StoreError with the ClickHouse code', async () => {
    const err = await store.query(`SELECT * FROM ${database}.no_such_table`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe(60);
    expect((err as StoreError).retriable).toBe(false);
    const down = createStore({ url: 'http://127.0.0.1:1', database });
    const err2 = await down.query('SELECT 1').catch((e: unknown) => e);
    expect((err2 as StoreError).retriable).toBe(true);
    await down.close();
  });
});
