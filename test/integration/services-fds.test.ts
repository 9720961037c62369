/**
 * Servers started by deploy/local/services.sh outlive it, so they must keep none of the descriptors
 * of whoever ran it (issue 9: `npm run --silent bench:pipeline | tail -1` never returned, because
 * Kafka and Redis held the caller's pipe that scripts/bench.sh keeps on fd 3). Here services.sh
 * brings up a Kafka, a ClickHouse and a Redis of its own, in a temporary state dir on free ports,
 * with pipes on stdout, stderr, fd 3 and fd 12 (npm passes descriptors above 9 too): the pipes
 * must reach EOF as soon as services.sh exits, and no server may hold one of them. The servers the
 * other suites use are not touched.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../support/processes.js';

const SERVICES_SH = join(ROOT, 'deploy/local/services.sh');
const CALLER_FDS = [1, 2, 3, 12];
const state = realpathSync(mkdtempSync(join(tmpdir(), 'tonstream-fds-'))); // as /proc/<pid>/fd shows it
// As root, ClickHouse runs as its own user, which must be able to enter the state dir.
chmodSync(state, 0o755);
const pidFiles = {
  kafka: join(state, 'kafka/kafka.pid'),
  clickhouse: join(state, 'clickhouse/run/clickhouse-server.pid'),
  redis: join(state, 'redis/redis.pid'),
  prometheus: join(state, 'prometheus/prometheus.pid'),
};

let env: NodeJS.ProcessEnv | undefined;

beforeAll(async () => {
  env = {
    ...process.env,
    TONSTREAM_STATE_DIR: state,
    // blank addresses: servers managed by services.sh, not external ones
    KAFKA_BROKERS: '',
    CLICKHOUSE_URL: '',
    REDIS_URL: '',
    PROMETHEUS_URL: '',
    KAFKA_PORT: String(await freePort()),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
    KAFKA_HEAP_OPTS: '-Xms64m -Xmx256m',
    CLICKHOUSE_HTTP_PORT: String(await freePort()),
    CLICKHOUSE_TCP_PORT: String(await freePort()),
    REDIS_PORT: String(await freePort()),
    PROMETHEUS_PORT: String(await freePort()),
  };
});

afterAll(() => {
  try {
    // Only with our state dir: without it, `down` would stop the servers the other suites use.
    if (env?.TONSTREAM_STATE_DIR === state) execFileSync('bash', [SERVICES_SH, 'down'], { env, stdio: 'pipe', timeout: 90_000 });
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}, 120_000);

/** `fd -> target` for every descriptor of a process. */
function fdsOf(pid: number): { fd: number; target: string }[] {
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return [{ fd: Number(fd), target: readlinkSync(`/proc/${pid}/fd/${fd}`) }];
    } catch {
      return []; // closed meanwhile
    }
  });
}

describe('deploy/local/services.sh up', () => {
  it('leaves the caller only EOF on its pipes: the servers keep /dev/null, their logs and their own files', async () => {
    const stdio = ['ignore', 'pipe', 'pipe', 'pipe', ...Array(8).fill('ignore'), 'pipe'] as const;
    const child = spawn('bash', [SERVICES_SH, 'up'], { env, stdio: [...stdio] });
    // spawn() returns once bash runs, so its descriptors are the pipes we handed it (libuv makes
    // them socket pairs).
    const callerPipes = new Set(CALLER_FDS.map((fd) => readlinkSync(`/proc/${child.pid}/fd/${fd}`)));
    expect([...callerPipes].every((t) => /^(pipe|socket):/.test(t)), [...callerPipes].join(' ')).toBe(true);
    let output = '';
    for (const fd of CALLER_FDS) child.stdio[fd]!.on('data', (d: Buffer) => (output += d.toString()));
    const closed = once(child, 'close').then(() => true); // exited, and every pipe reached EOF
    const [code] = await once(child, 'exit');
    expect(code, output).toBe(0);
    const eof = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);

    const problems: string[] = [];
    for (const [svc, file] of Object.entries(pidFiles)) {
      const pid = Number(readFileSync(file, 'utf8').trim());
      for (const { fd, target } of fdsOf(pid)) {
        if (callerPipes.has(target)) problems.push(`${svc} (pid ${pid}) fd ${fd} -> ${target}: the caller's pipe`);
        if (fd <= 2 && target !== '/dev/null' && !target.startsWith(state)) {
          problems.push(`${svc} (pid ${pid}) fd ${fd} -> ${target}: neither /dev/null nor its log`);
        }
      }
    }
    expect(problems, `servers hold descriptors of the caller; services.sh output:\n${output}`).toEqual([]);
    expect(eof, "the caller's pipes did not reach EOF within 5 s of services.sh exiting").toBe(true);
  }, 150_000);
});
