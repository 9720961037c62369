/**
 * The store on a ClickHouse cluster (2 shards x 2 replicas, `services.sh up cluster`, the suite's own) answers every
 * read as one server holding the same rows: the read layer's data (store-read-cases.ts) is written
 * through writeBatch into a single-node database and a cluster database, then every read case runs
 * on the single node and through two cluster nodes (a replica of each shard) with the same results.
 */
import { randomBytes } from 'node:crypto';
import { createStore, MIGRATIONS, migrate, type MigrateResult, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withClusterMigrationLock } from '../../packages/store/src/cluster/migration-lock.js';
import { dropDatabase } from '../support/clickhouse.js';
import { type LocalCluster, startOwnCluster } from '../support/local-cluster.js';
import { type Cases, load, READS, type ReadName, readCases } from './store-read-cases.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_cluster_${randomBytes(4).toString('hex')}`;

let cluster: LocalCluster;
let single: Store;
/** The cluster through its first node (shard 1) and its last (shard 2). */
let viaFirst: Store;
let viaLast: Store;
let migrations: MigrateResult[] = [];
const answers: { label: string; single: string; first: string; last: string }[] = [];

/** An answer as comparable text: a Map as its entries by key (its order is the unordered rows'). */
const text = (v: unknown) =>
  JSON.stringify(v, (_k, x: unknown) => (x instanceof Map ? [...x.entries()].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)) : typeof x === 'bigint' ? String(x) : x));
/** Reads that change what they read (a receipt partition dropped once is gone on every node): asked once of the cluster. */
const MUTATING: ReadonlySet<ReadName> = new Set(['dropOldReceipts']);

/** Where two texts part, with some context. */
function parting(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: single …${a.slice(Math.max(0, i - 150), i + 150)}\n  cluster …${b.slice(Math.max(0, i - 150), i + 150)}`;
}

beforeAll(async () => {
  cluster = await startOwnCluster();
  single = createStore({ url: CLICKHOUSE_URL, database });
  viaFirst = createStore({ url: cluster.urls[0], database, cluster: cluster.name, requestTimeoutMs: 120_000 });
  viaLast = createStore({ url: cluster.urls[cluster.urls.length - 1], database, cluster: cluster.name });
  await migrate(single);
  // Two processes migrating at once through different nodes: one applies, the other waits for the lock.
  migrations = await Promise.all([migrate(viaFirst), migrate(viaLast)]);
  const data = await load(single, viaFirst);
  for (const [name, list] of Object.entries(readCases(data)) as [ReadName, Cases[ReadName]][]) {
    const read = READS[name] as (store: Store, ...args: unknown[]) => Promise<unknown>;
    for (const [i, c] of list.entries()) {
      const [a, b] = [text(await read(single, ...c.args)), text(await read(viaFirst, ...c.args))];
      answers.push({ label: `${name}#${i} ${text(c.args.slice(1)).slice(0, 400)}`, single: a, first: b, last: MUTATING.has(name) ? b : text(await read(viaLast, ...c.args)) });
    }
  }
}, 600_000);

afterAll(async () => {
  await Promise.all([single, viaFirst, viaLast].map((s) => s?.close()));
  await dropDatabase(CLICKHOUSE_URL, database);
  await cluster?.stop();
}, 180_000);

describe('the store on a cluster of 2 shards x 2 replicas', () => {
  it('is migrated once when two processes migrate it at once through different nodes', () => {
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    const applied = migrations.map((m) => m.applied.length).sort((a, b) => a - b);
    expect(applied).toEqual([0, MIGRATIONS.length]);
    expect(migrations.map((m) => m.current)).toEqual([newest, newest]);
  });

  it('holds its migration lock for one process at a time, across nodes, and frees it', async () => {
    const held: { who: number; from: number; to: number }[] = [];
    const hold = (who: number, store: Store) =>
      withClusterMigrationLock(store, async () => {
        const from = Date.now();
        await new Promise((r) => setTimeout(r, 1_500));
        held.push({ who, from, to: Date.now() });
      });
    await Promise.all([hold(1, viaFirst), hold(2, viaLast), hold(3, viaFirst)]);
    held.sort((a, b) => a.from - b.from);
    expect(held.map((h) => h.who).sort()).toEqual([1, 2, 3]);
    for (let i = 1; i < held.length; i++) expect(held[i].from, `holder ${held[i].who} began before ${held[i - 1].who} let go`).toBeGreaterThanOrEqual(held[i - 1].to);
  }, 120_000);

  it('spreads the rows over both shards, each on both of its replicas', async () => {
    const counts = await Promise.all(
      cluster.urls.map(async (url) => {
        const node = createStore({ url, database });
        const [row] = await node.query<{ n: string }>(`SELECT count() AS n FROM ${database}.transactions_local`).finally(() => node.close());
        return Number(row.n);
      }),
    );
    const [total] = await single.query<{ n: string }>(`SELECT count() AS n FROM ${database}.transactions FINAL`);
    // Nodes 1-2 are shard 1's replicas, 3-4 shard 2's (services.sh); duplicates not merged yet count on both sides alike.
    expect(counts[0]).toBe(counts[1]);
    expect(counts[2]).toBe(counts[3]);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[2]).toBeGreaterThan(0);
    expect(counts[0] + counts[2]).toBeGreaterThanOrEqual(Number(total.n));
  });

  it('answers every read case as one server holding the same rows, through a node of either shard', () => {
    expect(answers.length).toBeGreaterThan(100);
    const differing = answers.filter((a) => a.first !== a.single || a.last !== a.single).map((a) => `${a.label} (${a.first !== a.single ? 'first' : 'last'} node) ${parting(a.single, a.first !== a.single ? a.first : a.last)}`);
    expect(differing).toEqual([]);
  });
});
