import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cell } from '@ton/core';
import { decodeBlock } from '@tonstream/block';
import { type MessageRow, transactionRow } from '@tonstream/records';
import { batchRows, createStore, emptyBatch, migrate, MIGRATIONS, readTraceActions, readTraces, readTransactionBocs, readTransactionMessages, readTransactions, recordBatch, type RecordBatch, type Store, StoreError, str, TABLES, writeBatch } from '@tonstream/store';
import { afterEach, describe, expect, it } from 'vitest';
import { sourcesBlock, sourcesTransactions } from '../support/mainnet-sources.js';
import { writeSchema17Batch } from '../support/schema17-writer.js';
import { mainnetTraceData } from './chdb-localnet-data.js';
import type { ActionRecord } from '@tonstream/traces';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const BLOCK_FILE = 'wc0_8000000000000000_71398501.boc';
const BLOCK = join(import.meta.dirname, '../fixtures/mainnet/blocks', BLOCK_FILE);

const opened: Store[] = [];

/** A store on a database of its own, dropped after the test, so every test can run alone. */
function freshStore(): Store {
  const store = createStore({ url: CLICKHOUSE_URL, database: `tonstream_test_${randomBytes(4).toString('hex')}` });
  opened.push(store);
  return store;
}

async function migratedStore(): Promise<Store> {
  const store = freshStore();
  await migrate(store);
  return store;
}

afterEach(async () => {
  for (const store of opened.splice(0)) {
    await store.command(`DROP DATABASE IF EXISTS ${store.database}`);
    await store.close();
  }
});

/**
 * The tables the migrations' CREATE TABLE statements name, each once (migration 6 makes migration 5's
 * views again), without a rebuild's new table (renamed to the table it replaces).
 */
const byMessage = (a: MessageRow, b: MessageRow) => (`${a.tx_hash}${a.direction}${a.hash}` < `${b.tx_hash}${b.direction}${b.hash}` ? -1 : 1);

function migratedTables(database: string): string[] {
  const tables = new Set<string>();
  for (const sql of MIGRATIONS.flatMap((m) => m.statements(database))) {
    const created = /^\s*CREATE (?:TABLE|MATERIALIZED VIEW) IF NOT EXISTS \S+?\.(\w+)/.exec(sql)?.[1];
    const dropped = /^\s*DROP TABLE IF EXISTS \S+?\.(\w+)$/.exec(sql)?.[1];
    if (created) tables.add(created);
    if (dropped) tables.delete(dropped);
  }
  // A rebuild's new table is renamed to the table it replaces (migrations 6 and 14).
  return [...tables].filter((t) => !t.endsWith('_m6_new') && !t.endsWith('_m14_new'));
}

/** The masterchain block SOURCES.md says references the block ("referenced by mc N"). */
function referencingMcSeqno(notes: string): number {
  const mc = /referenced by mc (\d+)/.exec(notes);
  if (!mc) throw new Error(`SOURCES.md notes no referencing masterchain block: ${notes}`);
  return Number(mc[1]);
}

function batchOf(bytes: Buffer, mcSeqno: number): RecordBatch {
  const r = decodeBlock(bytes, { mcSeqno });
  return recordBatch({ blocks: [r.block], transactions: r.transactions, messages: r.messages });
}

describe('store on the real ClickHouse', () => {
  const versions = MIGRATIONS.map((m) => m.version).sort((a, b) => a - b);
  const newest = versions[versions.length - 1];

  it('migrates once and is a no-op the second time', async () => {
    const store = freshStore();
    expect(await migrate(store)).toEqual({ applied: versions, current: newest });
    expect(await migrate(store)).toEqual({ applied: [], current: newest });
    const tables = await store.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${str(store.database)}`);
    expect(tables.map((t) => t.name).sort()).toEqual([...migratedTables(store.database), 'schema_migrations'].sort());
    // Every table writeBatch fills is one the migrations create.
    expect(migratedTables(store.database)).toEqual(expect.arrayContaining([...TABLES]));
  });

  it('applies only the migrations newer than the recorded version', async () => {
    const store = freshStore();
    const [oldest, ...later] = [...MIGRATIONS].sort((a, b) => a.version - b.version);
    expect(await migrate(store, [oldest])).toEqual({ applied: [oldest.version], current: oldest.version });
    expect(await migrate(store)).toEqual({ applied: later.map((m) => m.version), current: newest });
  });

  // Killed after the statement, before the ledger recorded the migration: the column is already there, or gone.
  it.each([
    { version: 18, statement: 'its ADD COLUMN', applied: (s: string[]) => s.slice(0, 1), table: 'transactions', present: ['boc', 'global_version'], absent: [] },
    { version: 19, statement: 'its DROP COLUMN', applied: (s: string[]) => s, table: 'transactions_by_mc_seqno', present: ['account', 'lt', 'mc_block_seqno'], absent: ['hash'] },
  ])('applies migration $version interrupted after $statement again (18.16 cannot say IF [NOT] EXISTS there)', async ({ version, applied, table, present, absent }) => {
    const store = freshStore();
    await migrate(store, MIGRATIONS.filter((m) => m.version < version));
    for (const statement of applied(MIGRATIONS.find((m) => m.version === version)!.statements(store.database))) await store.command(statement);
    expect(await migrate(store)).toEqual({ applied: MIGRATIONS.filter((m) => m.version >= version).map((m) => m.version), current: newest });
    const stored = await store.query<{ name: string }>(`SELECT name FROM system.columns WHERE database = ${str(store.database)} AND table = ${str(table)} ORDER BY name`);
    const names = stored.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(present));
    for (const name of absent) expect(names).not.toContain(name);
  });

  it('reads transactions and messages stored before migration 18 (record text, BoCs apart) as the same records', async () => {
    const store = freshStore();
    const mc = referencingMcSeqno(sourcesBlock(BLOCK_FILE).notes);
    const batch = batchOf(readFileSync(BLOCK), mc);
    await migrate(store, MIGRATIONS.filter((m) => m.version < 18));
    // Schema 17's writer: record text without the BoC, the BoC in transaction_bocs, whole message records.
    await writeSchema17Batch(store, batch);
    await migrate(store);
    const scope = { watermark: 2 ** 32 - 1 };
    const hashes = batch.transactions.map((t) => t.record.hash);
    const read = await readTransactions(store, scope, { hashes }, { limit: hashes.length, offset: 0, sort: 'asc', order: 'lt' });
    expect(read).toHaveLength(hashes.length);
    const messages = await readTransactionMessages(store, scope, read);
    const bocs = await readTransactionBocs(store, scope, read);
    for (const t of read) {
      // Such a row names its BoC by its key in transaction_bocs (readTransactionBocs), not in itself.
      const { token_events: _e, boc, ...carried } = batch.transactions.find((b) => b.record.hash === t.hash)!.record;
      expect(t).toEqual(carried);
      expect(bocs.get(t.hash)).toBe(boc);
    }
    // Every message row the batch carried, whole (bodies included).
    expect([...messages.values()].sort(byMessage)).toEqual(batch.messages.map((m) => m.record).sort(byMessage));
  });

  it('the message lookups hold every message stored before their migrations (backfills) and after (views)', async () => {
    const store = freshStore();
    const db = store.database;
    const mc = referencingMcSeqno(sourcesBlock(BLOCK_FILE).notes);
    const batch = batchOf(readFileSync(BLOCK), mc);
    await migrate(store, MIGRATIONS.filter((m) => m.version < 5));
    // Message rows as that schema had them (the messages table of migration 1, without migration 18's column).
    await store.insert('messages', batchRows({ ...emptyBatch(), messages: batch.messages.slice(0, 100) }).messages.map(({ reads_extra_flags: _r, ...row }) => row));
    await migrate(store);
    await writeBatch(store, { ...batch, messages: batch.messages.slice(100) });
    // Each lookup holds exactly the (attribute, message hash) pairs of the block's messages with that attribute.
    const pairs = (key: (m: MessageRow) => string | null) => [...new Set(batch.messages.flatMap(({ record: m }) => (key(m) ? [`${key(m)}|${m.hash}`] : [])))].sort();
    const expected: [table: string, key: string, want: string[]][] = [
      ['message_body_hashes', 'body_hash', pairs((m) => m.message_content.hash)],
      ['message_opcodes', 'toString(opcode)', pairs((m) => (m.opcode === null ? null : String(BigInt(m.opcode))))],
      ['messages_by_hash_norm', 'hash_norm', pairs((m) => m.hash_norm ?? null)],
    ];
    expect(expected[1][2].length).toBeGreaterThan(0);
    for (const [table, key, want] of expected) {
      const rows = await store.query<{ k: string }>(`SELECT DISTINCT concat(${key}, '|', hash) AS k FROM ${db}.${table} ORDER BY k`);
      expect(rows.map((r) => r.k), table).toEqual(want);
    }
  });

  it('stores a mainnet block once even when the batch is written twice', async () => {
    const store = await migratedStore();
    const db = store.database;
    const source = sourcesBlock(BLOCK_FILE);
    const batch = batchOf(readFileSync(BLOCK), referencingMcSeqno(source.notes));
    const first = await writeBatch(store, batch);
    expect(first.byTable.transactions).toBe(source.transactions);
    await writeBatch(store, batch);

    const raw = await store.query<{ c: string }>(`SELECT count() AS c FROM ${db}.transactions`);
    expect(Number(raw[0].c)).toBe(2 * source.transactions);
    const dedup = await store.query<{ c: string }>(`SELECT count() AS c FROM ${db}.transactions FINAL`);
    expect(Number(dedup[0].c)).toBe(source.transactions);

    const hashes = await store.query<{ hash: string }>(`SELECT hash FROM ${db}.transactions_by_hash FINAL ORDER BY hash`);
    expect(hashes.map((h) => h.hash)).toEqual(batch.transactions.map((t) => t.record.hash).sort());
    // The transactions transactions.json cut out of this block are there under their hashes.
    const cut = sourcesTransactions().filter((t) => t.block_file === `blocks/${BLOCK_FILE}`);
    expect(cut.length).toBeGreaterThan(0);
    expect(hashes.map((h) => h.hash)).toEqual(expect.arrayContaining(cut.map((t) => t.hash_base64)));
    const msgs = await store.query<{ c: string }>(`SELECT count() AS c FROM ${db}.messages FINAL`);
    expect(Number(msgs[0].c)).toBe(new Set(batch.messages.map(({ record: m }) => `${m.hash}|${m.direction}|${m.tx_hash}`)).size);

    // The stored fact is the transaction's BoC, the cell transactions.json cut out of the block; no record
    // text, since the BoC and the block columns give the record again (migration 18).
    const tx = batch.transactions.find((t) => t.record.hash === cut[0].hash_base64)!;
    const rows = await store.query<{ record: string; boc: string }>(`SELECT record, boc FROM ${db}.transactions FINAL WHERE account = ${str(tx.record.account)} AND lt = ${tx.record.lt}`);
    expect(rows.map((r) => r.record)).toEqual(['']);
    expect(Cell.fromBase64(rows[0].boc).equals(Cell.fromBase64(cut[0].boc_base64))).toBe(true);
    const [read] = await readTransactions(store, { watermark: 2 ** 32 - 1 }, { hashes: [cut[0].hash_base64] }, { limit: 1, offset: 0, sort: 'asc', order: 'lt' });
    expect(read).toMatchObject({ hash: cut[0].hash_base64, lt: cut[0].lt, description: tx.record.description, out_msgs: tx.record.out_msgs.map((m) => ({ hash: m.hash })) });
    const { token_events: _events, ...carried } = tx.record;
    expect(transactionRow(read)).toEqual(carried);
  });

  it('stores a trace and its actions as their columns plus the rest, and reads back the records written', async () => {
    const store = await migratedStore();
    const db = store.database;
    // The recorded mainnet traces, assembled and classified from the fixtures (the records a tracer publishes).
    const { traces, actions } = mainnetTraceData();
    await writeBatch(store, recordBatch({ traces, actions }));
    const scope = { watermark: 2 ** 32 - 1, traces: 2 ** 32 - 1 };
    const traceIds = traces.map((t) => t.trace_id);
    const read = await readTraces(store, scope, { traceIds }, { limit: traceIds.length, offset: 0, sort: 'asc', order: 'lt' });
    const byId = (a: { trace_id: string }, b: { trace_id: string }) => a.trace_id.localeCompare(b.trace_id);
    expect(read.sort(byId)).toEqual([...traces].sort(byId));
    const byKey = (a: ActionRecord, b: ActionRecord) => `${a.trace_id} ${a.action_id}`.localeCompare(`${b.trace_id} ${b.action_id}`);
    expect((await readTraceActions(store, scope, traceIds, {})).sort(byKey)).toEqual([...actions].sort(byKey));
    // Every one was stored slim: its columns give it back.
    for (const table of ['traces', 'actions']) {
      const [{ whole }] = await store.query<{ whole: string }>(`SELECT countIf(substring(record, 1, 1) != '[') AS whole FROM ${db}.${table}`);
      expect(Number(whole), table).toBe(0);
    }
  });

  it('keeps the newest account state per account', async () => {
    const store = await migratedStore();
    const base = { account: '0:AA', account_state_hash: 'h', extra_currencies: {}, status: 'active' as const, frozen_hash: null, code_hash: 'c', data_hash: 'd', code_boc: null, data_boc: null, last_trans_hash: 'x', mc_block_seqno: 1, gen_utime: 1 };
    const states = [
      { ...base, balance: '10', last_trans_lt: '200' },
      { ...base, balance: '5', last_trans_lt: '100' },
    ];
    await writeBatch(store, recordBatch({ accountStates: states }));
    await writeBatch(store, recordBatch({ accountStates: [states[1]] }));
    const rows = await store.query<{ balance: string }>(`SELECT balance FROM ${store.database}.account_states_latest FINAL WHERE account = '0:AA'`);
    expect(rows).toEqual([{ balance: '10' }]);
  });

  it('round-trips hostile strings through literal escaping', async () => {
    const store = await migratedStore();
    const nasty = `it's a \\ "test"; DROP TABLE x; -- \n\t\0 ✓ 🚀`;
    const rows = await store.query<{ s: string }>(`SELECT ${str(nasty)} AS s`);
    expect(rows[0].s).toBe(nasty);
    // And through an insert (TabSeparated), in a plain column and inside the record JSON.
    const state = { account: nasty, account_state_hash: 'h', extra_currencies: {}, status: 'active' as const, frozen_hash: null, code_hash: 'c\\d', data_hash: null, code_boc: null, data_boc: null, last_trans_lt: '1', last_trans_hash: 'x\ty', mc_block_seqno: 1, gen_utime: 1, balance: '1' };
    await writeBatch(store, recordBatch({ accountStates: [state] }));
    const back = await store.query<{ account: string; last_trans_hash: string; record: string }>(`SELECT account, last_trans_hash, record FROM ${store.database}.account_states_latest FINAL WHERE account = ${str(nasty)}`);
    expect(back).toHaveLength(1);
    expect(back[0].account).toBe(nasty);
    expect(back[0].last_trans_hash).toBe('x\ty');
    expect(JSON.parse(back[0].record)).toEqual(state);
  });

  it('reports server errors as StoreError with the ClickHouse code', async () => {
    const store = await migratedStore();
    const err = await store.query(`SELECT * FROM ${store.database}.no_such_table`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).clickhouseCode).toBe(60);
    expect((err as StoreError).code).toBe('STORE_REJECTED');
    expect((err as StoreError).retriable).toBe(false);
    const down = createStore({ url: 'http://127.0.0.1:1', database: store.database });
    const err2 = await down.query('SELECT 1').catch((e: unknown) => e);
    expect((err2 as StoreError).retriable).toBe(true);
    expect((err2 as StoreError).code).toBe('STORE_UNAVAILABLE');
    await down.close();
  });
});
