/**
 * The local ClickHouse cluster of `deploy/local/services.sh up cluster` (issue 28, cluster mode): 4
 * ClickHouse 18.16 servers as `tonstream` = 2 shards x 2 replicas over 3 ZooKeeper nodes. What the
 * store's cluster mode builds on is checked on the real servers: ON CLUSTER DDL, a Distributed table
 * over ReplicatedReplacingMergeTree shards, a table replicated to every node, quorum inserts while a
 * replica is stopped and its catch-up, and writes while a ZooKeeper node is stopped. The suite prints
 * one JSON line of measurements (start times, RSS, insert latency with and without insert_quorum=2,
 * the error codes met).
 *
 * The cluster is the suite's own (test/support/local-cluster.ts): its outages meet no other suite.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalCluster, startOwnCluster } from '../support/local-cluster.js';
import { eventually } from '../support/processes.js';

const db = `lc_${Date.now().toString(36)}_${randomUUID().slice(0, 6)}`;

/** A ClickHouse error with its numeric code (18.16 writes `Code: N, e.displayText() = ...`: docs/local-infra.md §2). */
class ChError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** One statement over HTTP; settings go in the URL (18.16 has no `INSERT ... SETTINGS`). */
async function ch(url: string, sql: string, settings: Record<string, string | number> = {}): Promise<string> {
  const params = new URLSearchParams(Object.entries({ max_execution_time: 60, ...settings }).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${url}/?${params}`, { method: 'POST', body: sql, signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  if (res.status !== 200) throw new ChError(Number(/^Code: (\d+)/.exec(text)?.[1] ?? -1), `${url}: ${text.trim()}`);
  return text;
}
const rows = async (url: string, sql: string): Promise<string[]> => (await ch(url, sql)).split('\n').filter((l) => l !== '');
const ids = async (url: string, table: string): Promise<number[]> => (await rows(url, `SELECT id FROM ${db}.${table} ORDER BY id`)).map(Number);

/** The code of the error `p` fails with (it must fail). */
async function failure(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ChError) return { code: err.code, message: err.message.replace(/\s+/g, ' ').slice(0, 300) };
    throw err;
  }
  throw new Error('expected a ClickHouse error, the statement succeeded');
}

/** An ON CLUSTER statement, and that each of the 4 hosts reports status 0 (rows: host, port, status, error, remaining, active). */
async function onCluster(url: string, sql: string): Promise<void> {
  const hosts = await rows(url, sql);
  expect(hosts.map((h) => h.split('\t').slice(0, 3).join(':')).sort()).toEqual(cluster.tcpPorts.map((p) => `127.0.0.1:${p}:0`));
}

/**
 * The shard a Distributed(tonstream, ..., cityHash64(id)) table sends `id` to, computed here: cityHash64
 * of an integer is ClickHouse's IntHash64 (a 64-bit mix of the value xor 0x4CF2D2BAAE6DA887, not CityHash
 * of its bytes), and with two shards of weight 1 the row goes to shard (hash % 2) + 1. Shard 1 is nodes
 * 1-2, shard 2 nodes 3-4.
 */
function shardOf(id: number): 1 | 2 {
  const M = (1n << 64n) - 1n;
  let x = BigInt(id) ^ 0x4cf2d2baae6da887n;
  x ^= x >> 33n;
  x = (x * 0xff51afd7ed558ccdn) & M;
  x ^= x >> 33n;
  x = (x * 0xc4ceb9fe1a85ec53n) & M;
  x ^= x >> 33n;
  return x % 2n === 0n ? 1 : 2;
}
const nodesOfShard = (shard: 1 | 2): number[] => (shard === 1 ? [0, 1] : [2, 3]);

let cluster: LocalCluster;
let urls: string[] = [];
const services = (...args: string[]) => cluster.services(...args);
const measured: Record<string, unknown> = { database: db };
const errors: Record<string, { code: number; message: string }[]> = {};
const record = (what: string, e: { code: number; message: string }): void => {
  (errors[what] ??= []).push(e);
};

/** pid of each cluster node, from `services.sh status cluster` (`clickhouse-1 up http://... (pid 123, ...`). */
async function pids(): Promise<Record<string, number>> {
  const { stdout } = await services('status', 'cluster');
  const out: Record<string, number> = {};
  for (const m of stdout.matchAll(/^(\S+)\s+up\s+.*?\(pid (\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}
async function rssMiB(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(await pids())) {
    const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    out[name] = Math.round(kb / 102.4) / 10;
  }
  return out;
}
async function zkLeader(): Promise<string> {
  const { stdout } = await services('status', 'cluster');
  const m = /^(zookeeper-\d)\s+up\s+.*\(pid \d+, leader,/m.exec(stdout);
  if (!m) throw new Error(`no ZooKeeper leader in:\n${stdout}`);
  return m[1];
}

function stats(ms: number[]): { p50: number; mean: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number): number => Math.round(x * 10) / 10;
  return { p50: r(s[Math.floor(s.length / 2)]), mean: r(s.reduce((a, b) => a + b, 0) / s.length), max: r(s[s.length - 1]) };
}

beforeAll(async () => {
  cluster = await startOwnCluster();
  // "Cold": a new state directory (the installed packages kept); "warm": `up` again with every node running.
  measured.up_cold_ms = cluster.upMs;
  measured.up_warm_ms = (await services('up', 'cluster')).ms;
  const env = Object.fromEntries(
    (await services('env', 'cluster')).stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  expect(env.CLICKHOUSE_CLUSTER).toBe('tonstream');
  urls = env.CLICKHOUSE_CLUSTER_URLS.split(',');
  expect(urls).toHaveLength(4);
  measured.rss_mib_idle = await rssMiB();
  await onCluster(urls[0], `CREATE DATABASE ${db} ON CLUSTER tonstream`);
}, 600_000);

afterAll(async () => {
  measured.errors = errors;
  if (urls.length) measured.rss_mib_after = await rssMiB().catch((e: unknown) => String(e));
  console.log(JSON.stringify({ local_cluster: measured }));
  await cluster?.stop();
}, 300_000);

describe('local ClickHouse cluster (services.sh up cluster)', () => {
  it('every node sees the cluster, its own macros and ZooKeeper', async () => {
    for (const [i, url] of urls.entries()) {
      expect(await rows(url, `SELECT shard_num, replica_num, port FROM system.clusters WHERE cluster = 'tonstream' ORDER BY shard_num, replica_num`)).toEqual(
        ['1\t1', '1\t2', '2\t1', '2\t2'].map((s, j) => `${s}\t${cluster.tcpPorts[j]}`),
      );
      expect(await rows(url, `SELECT macro, substitution FROM system.macros WHERE macro IN ('shard', 'replica') ORDER BY macro`)).toEqual([
        `replica\tclickhouse-${i + 1}`,
        `shard\t0${i < 2 ? 1 : 2}`,
      ]);
      expect((await rows(url, `SELECT name FROM system.zookeeper WHERE path = '/'`)).length).toBeGreaterThan(0);
    }
  });

  it('shards rows through a Distributed table over ReplicatedReplacingMergeTree; a quorum insert reaches both replicas of the shard', async () => {
    await onCluster(
      urls[0],
      `CREATE TABLE ${db}.t_local ON CLUSTER tonstream (id UInt64, v String, ver UInt32) ` +
        `ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/${db}.t', '{replica}', ver) ORDER BY id`,
    );
    await onCluster(urls[0], `CREATE TABLE ${db}.t ON CLUSTER tonstream AS ${db}.t_local ENGINE = Distributed(tonstream, ${db}, t_local, cityHash64(id))`);

    const inserted = Array.from({ length: 200 }, (_, i) => i + 1);
    await ch(urls[0], `INSERT INTO ${db}.t VALUES ${inserted.map((id) => `(${id}, 'v${id}', 1)`).join(',')}`, { insert_distributed_sync: 1, insert_quorum: 2 });

    // Both shards get rows, and (insert_quorum=2 passed to each shard) both replicas hold them when the insert returns.
    const byShard = { 1: inserted.filter((id) => shardOf(id) === 1), 2: inserted.filter((id) => shardOf(id) === 2) };
    expect(byShard[1].length).toBeGreaterThan(50);
    expect(byShard[2].length).toBeGreaterThan(50);
    for (const url of urls) expect(await ids(url, 't')).toEqual(inserted);
    for (const shard of [1, 2] as const) {
      for (const node of nodesOfShard(shard)) expect(await ids(urls[node], 't_local'), `clickhouse-${node + 1}`).toEqual(byShard[shard]);
    }
    // The same arithmetic on the server, for the record: cityHash64 % 2 over the stored ids.
    expect(await rows(urls[0], `SELECT count() FROM ${db}.t WHERE cityHash64(id) % 2 = 0`)).toEqual([String(byShard[1].length)]);
  });

  it('replicates a small control table to all four nodes (a ZooKeeper path without {shard})', async () => {
    await onCluster(
      urls[0],
      `CREATE TABLE ${db}.control ON CLUSTER tonstream (k String, v UInt64) ` +
        `ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/${db}.control', '{replica}', v) ORDER BY k`,
    );
    // Without a quorum the other three fetch it within moments; with insert_quorum=4 it is on all four when the insert returns.
    await ch(urls[2], `INSERT INTO ${db}.control VALUES ('written-on-3', 3)`);
    const start = performance.now();
    for (const url of urls) await eventually(`the control row on ${url}`, async () => ((await rows(url, `SELECT v FROM ${db}.control WHERE k = 'written-on-3'`))[0] === '3' ? true : undefined), 60_000, 100);
    measured.control_replication_ms = Math.round(performance.now() - start);
    await ch(urls[1], `INSERT INTO ${db}.control VALUES ('written-on-2', 2)`, { insert_quorum: 4 });
    for (const url of urls) expect(await rows(url, `SELECT k, v FROM ${db}.control ORDER BY k`)).toEqual(['written-on-2\t2', 'written-on-3\t3']);
  });

  it('measures insert latency through the Distributed table with and without insert_quorum=2', async () => {
    const latency = async (base: number, settings: Record<string, number>): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < 20; i++) {
        const values = Array.from({ length: 10 }, (_, j) => base + i * 10 + j).map((id) => `(${id}, 'l', 1)`);
        const start = performance.now();
        await ch(urls[0], `INSERT INTO ${db}.t VALUES ${values.join(',')}`, { insert_distributed_sync: 1, ...settings });
        out.push(performance.now() - start);
      }
      return out;
    };
    measured.insert_ms_no_quorum = stats(await latency(10_000, {}));
    measured.insert_ms_quorum_2 = stats(await latency(20_000, { insert_quorum: 2 }));
    expect(await rows(urls[3], `SELECT count() FROM ${db}.t WHERE id >= 10000`)).toEqual(['400']);
  });

  it('with one replica of a shard stopped a quorum insert fails; after it starts again the insert succeeds and the replica catches up', async () => {
    const batch = Array.from({ length: 40 }, (_, i) => 1000 + i);
    const values = batch.map((id) => `(${id}, 'q', 1)`).join(',');
    const quorum = { insert_distributed_sync: 1, insert_quorum: 2, insert_quorum_timeout: 20_000 };
    const shard1 = batch.filter((id) => shardOf(id) === 1);
    const shard2 = batch.filter((id) => shardOf(id) === 2);
    expect(shard1.length * shard2.length).toBeGreaterThan(0);

    measured.stop_node_clickhouse_ms = (await services('stop-node', 'clickhouse-2')).ms;
    try {
      // Through the Distributed table on node 1 (shard 1 is local there) and on node 3 (shard 1 is remote there).
      const viaNode1 = await failure(ch(urls[0], `INSERT INTO ${db}.t VALUES ${values}`, quorum));
      const viaNode3 = await failure(ch(urls[2], `INSERT INTO ${db}.t VALUES ${values}`, quorum));
      const direct = await failure(ch(urls[0], `INSERT INTO ${db}.t_local VALUES (999999, 'x', 1)`, { insert_quorum: 2, insert_quorum_timeout: 20_000 }));
      record('quorum_insert_replica_down_distributed_on_node1', viaNode1);
      record('quorum_insert_replica_down_distributed_on_node3', viaNode3);
      record('quorum_insert_replica_down_local_table', direct);
      for (const e of [viaNode1, viaNode3, direct]) expect([242, 285, 286, 319, 999, 279, 159], e.message).toContain(e.code);
      // A failed Distributed insert is not atomic across shards: what shard 2 (both replicas up) kept.
      measured.failed_insert_rows_kept_on_shard2 = Number((await rows(urls[3], `SELECT count() FROM ${db}.t_local WHERE id >= 1000 AND id < 1040`))[0]);
      measured.failed_insert_rows_kept_on_shard1 = Number((await rows(urls[0], `SELECT count() FROM ${db}.t_local WHERE id >= 1000 AND id < 1040`))[0]);
      // Without a quorum the live replica takes the write.
      await ch(urls[0], `INSERT INTO ${db}.t_local VALUES ${shard1.map((id) => `(${id + 100}, 'during', 1)`).join(',')}`);
    } finally {
      measured.start_node_clickhouse_ms = (await services('start-node', 'clickhouse-2')).ms;
    }

    // The same block again: succeeds, and shard 2's copy of the earlier attempt is deduplicated (same block, same hash).
    await ch(urls[0], `INSERT INTO ${db}.t VALUES ${values}`, quorum);
    const start = performance.now();
    const expected1 = (await ids(urls[0], 't_local')).filter((id) => id >= 1000 && id < 2000);
    expect(expected1).toEqual([...shard1, ...shard1.map((id) => id + 100)].sort((a, b) => a - b));
    await eventually(
      'clickhouse-2 to catch up with clickhouse-1',
      async () => (JSON.stringify((await ids(urls[1], 't_local')).filter((id) => id >= 1000 && id < 2000)) === JSON.stringify(expected1) ? true : undefined),
      120_000,
      200,
    );
    measured.catch_up_ms = Math.round(performance.now() - start);
    for (const node of [2, 3]) {
      expect(await rows(urls[node], `SELECT count(), uniqExact(id) FROM ${db}.t_local WHERE id >= 1000 AND id < 1040`)).toEqual([`${shard2.length}\t${shard2.length}`]);
    }
    for (const url of urls) expect((await ids(url, 't')).filter((id) => id >= 1000 && id < 1040)).toEqual(batch);
  });

  it('with the ZooKeeper leader stopped, writes come back once the other two elect a new leader', async () => {
    const leader = await zkLeader();
    measured.zookeeper_stopped = leader;
    const stopped = performance.now();
    await services('stop-node', leader);
    try {
      // The same block on every attempt: an attempt that wrote one shard before failing is deduplicated.
      await eventually(
        'a quorum insert to succeed with one ZooKeeper node stopped',
        async () => {
          try {
            await ch(urls[0], `INSERT INTO ${db}.t VALUES (50000, 'zk', 1), (50001, 'zk', 1), (50002, 'zk', 1)`, { insert_distributed_sync: 1, insert_quorum: 2, insert_quorum_timeout: 20_000 });
            return true;
          } catch (err) {
            if (!(err instanceof ChError)) throw err;
            const seen = (errors.insert_with_zookeeper_leader_stopped ??= []);
            if (!seen.some((e) => e.code === err.code)) seen.push({ code: err.code, message: err.message.replace(/\s+/g, ' ').slice(0, 200) });
            throw err;
          }
        },
        120_000,
        250,
      );
      measured.writes_back_after_zookeeper_leader_stop_ms = Math.round(performance.now() - stopped);
    } finally {
      measured.start_node_zookeeper_ms = (await services('start-node', leader)).ms;
    }
    // Every Replicated table saw its ZooKeeper session end (18.16 opens a new session on any connection
    // loss). Seen here: ReplicatedMergeTreeAlterThread stops on an expired session and replicated ALTERs
    // are no longer applied until the server restarts; restart each node so that the cluster is left as found.
    const start = performance.now();
    for (const node of ['clickhouse-1', 'clickhouse-2', 'clickhouse-3', 'clickhouse-4']) {
      await services('stop-node', node);
      await services('start-node', node);
    }
    measured.rolling_restart_ms = Math.round(performance.now() - start);
    for (const url of urls) expect(await rows(url, `SELECT count() FROM ${db}.t WHERE id >= 50000`)).toEqual(['3']);
  });
});
