/**
 * A closed-loop HTTP load: `connections` keep-alive connections (an undici Pool), each sending its
 * next request as soon as the previous answer's body is read, for `seconds`. Every request is drawn
 * anew by `next`, so targets are random per request. Latency is measured per request (send to last
 * body byte) and the percentiles are exact, from every sample; autocannon rounds to whole
 * milliseconds and takes one request template per connection, undici gives both for free.
 */
import { Pool } from 'undici';
import { runWrk } from './wrk-load.js';

export type LoadRequest = { path: string; method?: 'GET' | 'POST'; body?: string };

export type LoadOptions = {
  connections: number;
  seconds: number;
  /** Run first and not counted: connections open, JIT and caches warm. */
  warmupSeconds: number;
};

export type LoadResult = {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  errors: number;
  /** The first non-2xx answer or error, to tell why. */
  first_failure?: string;
};

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Which generator runLoad uses: Debian's wrk (wrk-load.ts) when scripts/bench.sh found or installed it
 * (TONSTREAM_WRK), unless BENCH_LOAD=node asks for this process's own (below).
 */
export function loadGenerator(): 'wrk' | 'node' {
  return process.env.TONSTREAM_WRK && process.env.BENCH_LOAD !== 'node' ? 'wrk' : 'node';
}

export async function runLoad(origin: string, next: () => LoadRequest, options: LoadOptions): Promise<LoadResult> {
  if (loadGenerator() === 'wrk') return runWrk(process.env.TONSTREAM_WRK!, origin, next, options);
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  try {
    await phase(pool, next, options.connections, options.warmupSeconds);
    return await phase(pool, next, options.connections, options.seconds);
  } finally {
    await pool.close();
  }
}

async function phase(pool: Pool, next: () => LoadRequest, connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const req = next();
      const t0 = performance.now();
      try {
        const res = await pool.request({ path: req.path, method: req.method ?? 'GET', body: req.body });
        const body = Buffer.from(await res.body.arrayBuffer());
        latencies.push(performance.now() - t0);
        if (res.statusCode < 200 || res.statusCode > 299) {
          non2xx++;
          firstFailure ??= `${res.statusCode} ${req.path.slice(0, 200)}: ${body.toString('utf8').slice(0, 300)}`;
        }
      } catch (err) {
        errors++;
        firstFailure ??= `${req.path.slice(0, 200)}: ${(err as Error).message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50_ms: round(percentile(sorted, 50)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? NaN),
    non_2xx: non2xx,
    errors,
    ...(firstFailure === undefined ? {} : { first_failure: firstFailure }),
  };
}
