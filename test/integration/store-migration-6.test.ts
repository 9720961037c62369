import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { batchRows, createStore, migrate, MIGRATIONS, RECORD_GRANULARITY, recordBatch, type Store, str } from '@tonstream/store';
import { afterEach, describe, expect, it } from 'vitest';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const FIXTURES = join(import.meta.dirname, '../fixtures');
const BLOCK = join(FIXTURES, 'mainnet/blocks/wc0_a000000000000000_54302208.boc');
/** The tables migration 6 rebuilds, each with the columns that identify a row and its stored record. */
const REBUILT: Record<string, string> = {
  transactions: 'account, lt, record',
  messages: 'hash, direction, tx_hash, record',
  blocks: 'workchain, shard, seqno, record',
  account_states: 'account, last_trans_lt, record',
  account_states_latest: 'account, last_trans_lt, record',
};

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) {
    await store.command(`DROP DATABASE IF EXISTS ${store.database}`);
    await store.close();
  }
});

/** Migrations up to 6: what a release with migration 6 as its newest applies (later ones are tested on their own). */
const UP_TO_SIX = MIGRATIONS.filter((m) => m.version <= 6);

/** A database at migration 5 holding a mainnet block and a localnet account state. */
async function storeBeforeSix(): Promise<Store> {
  const store = createStore({ url: CLICKHOUSE_URL, database: `tonstream_test_m6_${randomBytes(4).toString('hex')}` });
  opened.push(store);
  await migrate(store, MIGRATIONS.filter((m) => m.version < 6));
  const d = decodeBlock(readFileSync(BLOCK), { mcSeqno: 49444049 });
  const fixture = (JSON.parse(readFileSync(join(FIXTURES, 'localnet/account-states.json'), 'utf8')) as { states: { status: string; file: string; account: string; last_trans_lt: string }[] }).states[0];
  const state = accountStateRecord(readFileSync(join(FIXTURES, 'localnet', fixture.file)), { account: fixture.account, lastTransLt: fixture.last_trans_lt, lastTransHash: 'x', mcSeqno: 1, genUtime: 1 });
  // As the writer of that time did: into the tables and columns migration 5 has (later ones add token
  // tables, the BoC columns of transactions and more).
  const rowsOf = batchRows(recordBatch({ blocks: [d.block], transactions: d.transactions, messages: d.messages, accountStates: [state] }));
  const columns = await store.query<{ table: string; name: string }>(`SELECT table, name FROM system.columns WHERE database = ${str(store.database)}`);
  for (const [table, tableRows] of Object.entries(rowsOf)) {
    const has = new Set(columns.filter((c) => c.table === table).map((c) => c.name));
    if (has.size > 0) await store.insert(table, tableRows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => has.has(column)))));
  }
  return store;
}

async function rows(store: Store, table: string): Promise<string[]> {
  const r = await store.query<{ k: string }>(`SELECT concat(${REBUILT[table].split(', ').map((c) => `toString(${c})`).join(", '|', ")}) AS k FROM ${store.database}.${table} ORDER BY k`);
  return r.map((x) => x.k);
}

async function granularity(store: Store, table: string): Promise<number> {
  const [t] = await store.query<{ q: string }>(`SELECT create_table_query AS q FROM system.tables WHERE database = ${str(store.database)} AND name = ${str(table)}`);
  return Number(/index_granularity = (\d+)/.exec(t.q)?.[1]);
}

async function tableNames(store: Store): Promise<string[]> {
  return (await store.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${str(store.database)} ORDER BY name`)).map((t) => t.name);
}

describe('migration 6: the tables with records rebuilt at RECORD_GRANULARITY', () => {
  it('keeps every row of every rebuilt table and leaves no temporary table', async () => {
    const store = await storeBeforeSix();
    const before = Object.fromEntries(await Promise.all(Object.keys(REBUILT).map(async (t) => [t, await rows(store, t)] as const)));
    for (const t of Object.keys(REBUILT)) expect(await granularity(store, t), t).toBe(8192);
    const tables = await tableNames(store);

    expect(await migrate(store, UP_TO_SIX)).toMatchObject({ applied: [6] });
    for (const [t, want] of Object.entries(before)) {
      expect(want.length, t).toBeGreaterThan(0);
      expect(await rows(store, t), t).toEqual(want);
      expect(await granularity(store, t), t).toBe(RECORD_GRANULARITY);
    }
    expect(await tableNames(store)).toEqual(tables);
  });

  it('several processes migrating at once: one applies it under the lock, every row is kept', async () => {
    const store = await storeBeforeSix();
    const before = Object.fromEntries(await Promise.all(Object.keys(REBUILT).map(async (t) => [t, await rows(store, t)] as const)));
    const others = [1, 2].map(() => createStore({ url: CLICKHOUSE_URL, database: store.database }));
    try {
      const results = await Promise.all([store, ...others].map((s) => migrate(s, UP_TO_SIX)));
      expect(results.map((r) => r.applied).sort()).toEqual([[], [], [6]]);
      expect(results.map((r) => r.current)).toEqual([6, 6, 6]);
    } finally {
      await Promise.all(others.map((s) => s.close()));
    }
    for (const [t, want] of Object.entries(before)) expect(await rows(store, t), t).toEqual(want);
    expect((await tableNames(store)).filter((t) => t.includes('_m6_') || t === 'schema_migrations_lock')).toEqual([]);
  });

  it('a run stopped between the rename and the copy completes on the next run, and writes after the rename are kept', async () => {
    const store = await storeBeforeSix();
    const before = await rows(store, 'transactions');
    const six = MIGRATIONS.find((m) => m.version === 6)!.statements(store.database);
    // transactions: the recovery copy, the drop, the new table, the RENAME; not the copy back.
    const upToRename = six.findIndex((s) => s.startsWith('RENAME TABLE') && s.includes('.transactions TO'));
    for (const sql of six.slice(0, upToRename + 1)) await store.command(sql);
    expect(await rows(store, 'transactions')).toEqual([]);
    // A writer that goes on writing lands in the new table.
    const late = { account: '0:' + 'AB'.repeat(32), lt: '77', record: '{"late":true}' };
    await store.command(`INSERT INTO ${store.database}.transactions (account, lt, record) VALUES (${str(late.account)}, ${late.lt}, ${str(late.record)})`);

    expect(await migrate(store, UP_TO_SIX)).toMatchObject({ applied: [6] });
    expect(await rows(store, 'transactions')).toEqual([...before, `${late.account}|${late.lt}|${late.record}`].sort());
    expect(await granularity(store, 'transactions')).toBe(RECORD_GRANULARITY);
    expect((await tableNames(store)).filter((t) => t.includes('_m6_'))).toEqual([]);
  });
});
