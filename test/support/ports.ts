import { randomBytes, randomInt } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * TCP ports for the servers tests start, reserved until the test process exits.
 *
 * A port found with bind(0) and closed again is free only for a moment: the kernel hands the same
 * ephemeral ports to every bind(0) and every outgoing connection on the machine (Kafka, ClickHouse
 * and Redis clients make many), so the server started on it later can meet EADDRINUSE. Ports here
 * come from outside the kernel's ephemeral range, where nothing is handed out implicitly, and each
 * is claimed with a lock file (one per port, in a directory every test process on the machine
 * shares), so two processes, two suites or two calls never get the same port.
 */
export type PortAllocator = { take(): Promise<number> };

/** Ports below this are left to well-known services. */
const LOWEST_PORT = 20_000;
const MIN_PORTS = 1_000;
/** A lock this old is stale even if its pid is alive again (pids are reused): no test process runs this long. */
const MAX_LOCK_AGE_MS = 12 * 3600_000;

/** The kernel's ephemeral range (net.ipv4.ip_local_port_range); Linux's default where it cannot be read. */
export function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) return [lo, hi];
  } catch {
    // not Linux: the range below it is clear of the BSD/macOS one too (49152-65535)
  }
  return [32_768, 60_999];
}

/** The ports test servers get: at least MIN_PORTS of them, outside `ephemeral`. */
export function reservableRange([lo, hi] = ephemeralRange()): [number, number] {
  if (lo - LOWEST_PORT >= MIN_PORTS) return [LOWEST_PORT, lo - 1];
  if (65_535 - hi >= MIN_PORTS) return [hi + 1, 65_535];
  throw new Error(`fewer than ${MIN_PORTS} ports outside the ephemeral range ${lo}-${hi} (net.ipv4.ip_local_port_range) for test servers`);
}

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code;

function ownerAlive(token: string, lockPath: string): boolean {
  try {
    if (Date.now() - statSync(lockPath).mtimeMs > MAX_LOCK_AGE_MS) return false;
  } catch {
    return true; // gone meanwhile: not ours to take this round
  }
  const pid = Number.parseInt(token, 10);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return codeOf(err) !== 'ESRCH';
  }
}

/** Creates `path` holding `token`, atomically (link fails if it exists), so no one reads a half-written lock. */
function createLock(path: string, token: string): boolean {
  const draft = `${path}.${token}.draft`;
  writeFileSync(draft, token);
  try {
    linkSync(draft, path);
    return true;
  } catch (err) {
    if (codeOf(err) !== 'EEXIST') throw err;
    return false;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Takes the lock of one port: creates it, or reclaims it from a process that died holding it
 * (SIGKILL, a worker torn down). A reclaim first moves the stale lock aside, so of two processes
 * reclaiming at once one wins; if the file moved turns out to be a live lock made in between, it is
 * put back.
 */
function tryLock(path: string, token: string): boolean {
  if (createLock(path, token)) return true;
  let held: string;
  try {
    held = readFileSync(path, 'utf8');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return false;
    throw err;
  }
  if (ownerAlive(held, path)) return false;
  const aside = `${path}.${token}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return false;
    throw err;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== held) {
    try {
      linkSync(aside, path);
    } catch {
      // taken again meanwhile: that holder keeps it
    }
    unlinkSync(aside);
    return false;
  }
  unlinkSync(aside);
  return createLock(path, token);
}

/** Whether nothing listens on `port` on any address (a dual-stack wildcard bind conflicts with them all). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Hands out ports of `range`, each locked in `lockDir` for the life of this process. */
export function createPortAllocator(options: { lockDir: string; range: () => readonly [number, number] }): PortAllocator {
  const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
  const owned = new Set<string>();
  let range: readonly [number, number] | undefined;
  const release = () => {
    for (const path of owned) {
      try {
        if (readFileSync(path, 'utf8') === token) unlinkSync(path);
      } catch {
        // already gone
      }
    }
  };
  return {
    async take() {
      if (!range) {
        range = options.range();
        mkdirSync(options.lockDir, { recursive: true });
        process.once('exit', release);
      }
      const [lo, hi] = range;
      const size = hi - lo + 1;
      const start = randomInt(size);
      for (let i = 0; i < size; i++) {
        const port = lo + ((start + i) % size);
        const path = join(options.lockDir, String(port));
        if (!tryLock(path, token)) continue;
        owned.add(path);
        if (await bindable(port)) return port;
        // Held by something outside this scheme: leave it.
        owned.delete(path);
        unlinkSync(path);
      }
      throw new Error(`no free port in ${lo}-${hi} (locks in ${options.lockDir})`);
    },
  };
}
