import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from './client.js';
import { StoreError, toStoreError } from './errors.js';

// What ClickHouse itself answers (current text, and 18.16's), and what a proxy in front of it does.
const CLICKHOUSE = (code: number, name: string, text: string) => ({
  status: 500,
  headers: { 'x-clickhouse-exception-code': String(code) },
  body: `Code: ${code}. DB::Exception: ${text}. (${name}) (version 24.8.4.13 (official build))\n`,
});
const CLICKHOUSE_18 = (code: number, text: string) => ({ status: 500, headers: { 'x-clickhouse-exception-code': String(code) }, body: `Code: ${code}, e.displayText() = DB::Exception: ${text}, e.what() = DB::Exception\n` });
type Answer = { status: number; headers?: Record<string, string>; body: string };

let server: Server;
let next: Answer;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(next.status, { 'content-type': 'text/plain', ...next.headers }).end(next.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The StoreError an insert, a query and a command each get when the server answers `answer`. */
async function failures(answer: Answer): Promise<StoreError[]> {
  next = answer;
  const store = createStore({ url: base, database: 'db' });
  try {
    const errors = await Promise.all([store.insert('t', [{ a: 1 }]).then(() => null, (e: unknown) => e), store.query('SELECT 1').then(() => null, (e: unknown) => e), store.command('SELECT 1').then(() => null, (e: unknown) => e)]);
    for (const e of errors) expect(e).toBeInstanceOf(StoreError);
    return errors as StoreError[];
  } finally {
    await store.close();
  }
}

describe('which store errors are worth retrying', () => {
  it.each([
    [242, 'TABLE_IS_READ_ONLY', 'Table is in readonly mode: replica_path=/clickhouse/tables/01/blocks/replicas/r1'],
    [999, 'KEEPER_EXCEPTION', 'Connection loss, path: /clickhouse/tables/01/blocks/block_numbers'],
    [319, 'UNKNOWN_STATUS_OF_INSERT', 'Unknown status, client must retry. Reason: Connection loss'],
    [225, 'NO_ZOOKEEPER', 'Cannot use ZooKeeper table engine without ZooKeeper'],
    [252, 'TOO_MANY_PARTS', 'Too many parts (300). Merges are processing significantly slower than inserts'],
    // What the local cluster answered with a replica or ZooKeeper away (test/integration/local-cluster.test.ts).
    [285, 'TOO_FEW_LIVE_REPLICAS', 'Number of alive replicas (1) is less than requested quorum (2).'],
    [286, 'UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE', 'Quorum for previous write has not been satisfied yet. Status: version: 1'],
    [279, 'ALL_CONNECTION_TRIES_FAILED', 'All connection tries failed. Log: Code: 210, e.displayText() = DB::NetException: Connection refused (127.0.0.1:9033)'],
  ])('ClickHouse %i (%s): retried', async (code, name, text) => {
    for (const err of await failures(CLICKHOUSE(code, name, text))) {
      expect(err.clickhouseCode).toBe(code);
      expect(err.retriable).toBe(true);
    }
    expect(toStoreError(new Error(CLICKHOUSE_18(code, text).body), 'insert failed')).toMatchObject({ clickhouseCode: code, retriable: true, code: 'STORE_UNAVAILABLE' });
  });

  it('ClickHouse errors that the same request would meet again: not retried', async () => {
    for (const err of await failures(CLICKHOUSE(60, 'UNKNOWN_TABLE', 'Table db.t does not exist'))) expect(err).toMatchObject({ clickhouseCode: 60, retriable: false, code: 'STORE_REJECTED' });
    expect(toStoreError(new Error(CLICKHOUSE_18(27, 'Cannot parse input: expected \\t before: x').body), 'insert failed')).toMatchObject({ clickhouseCode: 27, retriable: false });
  });

  it.each([
    [502, '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>'],
    [503, 'no healthy upstream'],
    [504, ''],
  ])('a proxy answering %i without a ClickHouse code: retried, the status in the message', async (status, body) => {
    for (const err of await failures({ status, body })) {
      expect(err.clickhouseCode).toBeUndefined();
      expect(err.retriable).toBe(true);
      expect(err.message).toContain(`HTTP ${status}`);
    }
  });

  it('a proxy refusing with 4xx (auth, wrong path) is not retried', async () => {
    for (const err of await failures({ status: 403, body: 'Forbidden' })) expect(err).toMatchObject({ clickhouseCode: undefined, retriable: false });
  });

  it('no answer at all (nothing listening) is retried', async () => {
    const store = createStore({ url: 'http://127.0.0.1:1', database: 'db' });
    const err = await store.insert('t', [{ a: 1 }]).catch((e: unknown) => e);
    await store.close();
    expect(err).toMatchObject({ retriable: true });
  });
});
