import type { Logger } from '@tonstream/runtime';
import { connectFailFastRedis, type TracesWatermark, type Watermark } from '@tonstream/store';
import type { Redis } from 'ioredis';

/** Both watermarks, as `readWatermarks` of @tonstream/store reads them (null: nothing stored yet). */
export type Watermarks = { index: Watermark | null; traces: TracesWatermark | null };

/** The highest of each watermark (index and traces separately). */
export function higherWatermarks(a: Watermarks, b: Watermarks): Watermarks {
  return {
    index: a.index === null || (b.index !== null && b.index.mc_seqno > a.index.mc_seqno) ? b.index : a.index,
    traces: a.traces === null || (b.traces !== null && b.traces.mc_seqno > a.traces.mc_seqno) ? b.traces : a.traces,
  };
}

/** The highest watermarks any API process has served, kept where every one of them reads it. */
export type WatermarkFloor = {
  /** Raises the shared floor to `seen` where it is higher; resolves with the floor after it. */
  raise(seen: Watermarks): Promise<Watermarks>;
};

/**
 * Raise to max, atomically, and answer the result. A hash: `index_mc_seqno` with its `index_gen_utime`,
 * `traces_mc_seqno`; ARGV: those three (-1: none seen), then the key's TTL.
 */
const RAISE = `
local index = tonumber(redis.call('HGET', KEYS[1], 'index_mc_seqno') or '-1')
if tonumber(ARGV[1]) > index then redis.call('HSET', KEYS[1], 'index_mc_seqno', ARGV[1], 'index_gen_utime', ARGV[2]) end
local traces = tonumber(redis.call('HGET', KEYS[1], 'traces_mc_seqno') or '-1')
if tonumber(ARGV[3]) > traces then redis.call('HSET', KEYS[1], 'traces_mc_seqno', ARGV[3]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('HMGET', KEYS[1], 'index_mc_seqno', 'index_gen_utime', 'traces_mc_seqno')
`;

/**
 * How long the floor outlives the last read of any API process. It only has to outlast the lag of
 * a replica's watermark table (seconds); past it, a database dropped and refilled under the same name
 * is no longer held to its old watermark.
 */
export const FLOOR_TTL_MS = 10 * 60_000;

/** The floor's key: one per index (cluster and database) under the API's prefix. */
export function watermarkFloorKey(redisPrefix: string, cluster: string, database: string): string {
  return `${redisPrefix}watermarks:${cluster}:${database}`;
}

type Scripted = { tonstreamRaiseWatermarks(key: string, index: number, genUtime: number, traces: number, ttlMs: number): Promise<(string | null)[]> };

export function redisWatermarkFloor(redis: Redis, key: string): WatermarkFloor {
  // ioredis sends EVALSHA and falls back to EVAL when the server does not know the script yet.
  redis.defineCommand('tonstreamRaiseWatermarks', { numberOfKeys: 1, lua: RAISE });
  const scripted = redis as unknown as Scripted;
  return {
    async raise(seen) {
      const [index, genUtime, traces] = await scripted.tonstreamRaiseWatermarks(key, seen.index?.mc_seqno ?? -1, seen.index?.gen_utime ?? 0, seen.traces?.mc_seqno ?? -1, FLOOR_TTL_MS);
      return {
        index: index === null || Number(index) < 0 ? null : { mc_seqno: Number(index), gen_utime: Number(genUtime) },
        traces: traces === null || Number(traces) < 0 ? null : { mc_seqno: Number(traces) },
      };
    },
  };
}

/** The floor's own Redis connection (connectFailFastRedis): a read never waits on Redis long; past it the process's own maximum holds. */
export function connectWatermarkFloor(o: { redisUrl: string; key: string; logger: Logger }): WatermarkFloor & { close(): Promise<void> } {
  const { redis, close } = connectFailFastRedis(o.redisUrl, o.logger, {
    up: `watermarks shared with the other API processes through Redis (${o.key})`,
    down: 'Redis unreachable: this process never serves a lower watermark than it served, but another process may until Redis is back',
  });
  return { ...redisWatermarkFloor(redis, o.key), close };
}
