/**
 * A local ClickHouse cluster (2 shards x 2 replicas over 3 ZooKeeper nodes, `services.sh up cluster`)
 * of one suite's own: its own state directory and ports, so a suite that stops a node for an outage
 * never meets another suite's reads. About 450 MB and 5-10 s to start.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes.js';

const run = promisify(execFile);
const SERVICES = join(ROOT, 'deploy/local/services.sh');
/**
 * Port blocks of 100 from here (below the test port allocator's range, test/support/ports.ts): HTTP
 * +0..3, native +10..13, interserver +20..23, ZooKeeper clients +30..32, quorum +40..42, election +50..52.
 */
const FIRST_BLOCK = 11_000;
const BLOCKS = 70;
const SLOTS = join(tmpdir(), 'tonstream-cluster-slots');

export type LocalCluster = {
  name: string;
  urls: string[];
  /** Native (TCP) ports of nodes 1-4, as system.clusters lists them. */
  tcpPorts: number[];
  /** How long `up cluster` took. */
  upMs: number;
  /** deploy/local/services.sh ARGS for this cluster (e.g. `stop-node clickhouse-2`). */
  services(...args: string[]): Promise<{ stdout: string; ms: number }>;
  /** Stops every node and removes the cluster's state. */
  stop(): Promise<void>;
};

/** Claims a free port block (a slot directory made atomically; a dead owner's slot is taken over). */
function claimSlot(): number {
  mkdirSync(SLOTS, { recursive: true });
  const start = Math.floor(Math.random() * BLOCKS);
  for (let i = 0; i < BLOCKS; i++) {
    const slot = (start + i) % BLOCKS;
    const path = join(SLOTS, String(slot));
    try {
      mkdirSync(path);
    } catch {
      let owner = 0;
      try {
        owner = Number(readFileSync(join(path, 'pid'), 'utf8'));
        process.kill(owner, 0);
        continue;
      } catch (err) {
        if (owner > 0 && (err as NodeJS.ErrnoException).code === 'EPERM') continue;
      }
    }
    writeFileSync(join(path, 'pid'), String(process.pid));
    return slot;
  }
  throw new Error(`no free port block for a local cluster in ${SLOTS}`);
}

/** Starts a cluster of the caller's own and says where it is. */
export async function startOwnCluster(): Promise<LocalCluster> {
  const slot = claimSlot();
  const base = FIRST_BLOCK + slot * 100;
  const stateDir = mkdtempSync(join(tmpdir(), 'tonstream-cluster-'));
  // ClickHouse runs as its own user when we are root (deploy/local/lib/clickhouse.sh): it must enter the directory.
  chmodSync(stateDir, 0o755);
  const env = {
    ...process.env,
    TONSTREAM_STATE_DIR: stateDir,
    CLICKHOUSE_CLUSTER_HTTP_BASE_PORT: String(base),
    CLICKHOUSE_CLUSTER_TCP_BASE_PORT: String(base + 10),
    CLICKHOUSE_CLUSTER_INTERSERVER_BASE_PORT: String(base + 20),
    ZOOKEEPER_BASE_PORT: String(base + 30),
    ZOOKEEPER_QUORUM_BASE_PORT: String(base + 40),
    ZOOKEEPER_ELECTION_BASE_PORT: String(base + 50),
  };
  const services = async (...args: string[]) => {
    const began = performance.now();
    try {
      const { stdout } = await run('bash', [SERVICES, ...args], { cwd: ROOT, env, maxBuffer: 16 << 20, timeout: 600_000 });
      return { stdout, ms: Math.round(performance.now() - began) };
    } catch (err) {
      const e = err as Error & { stdout?: string; stderr?: string };
      throw new Error(`services.sh ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
    }
  };
  const stop = async () => {
    await services('down', 'cluster');
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(join(SLOTS, String(slot)), { recursive: true, force: true });
  };
  try {
    const { ms: upMs } = await services('up', 'cluster');
    const vars = Object.fromEntries(
      (await services('env', 'cluster')).stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=', 2) as [string, string]),
    );
    return { name: vars.CLICKHOUSE_CLUSTER, urls: vars.CLICKHOUSE_CLUSTER_URLS.split(','), tcpPorts: [0, 1, 2, 3].map((i) => Number(env.CLICKHOUSE_CLUSTER_TCP_BASE_PORT) + i), upMs, services, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
