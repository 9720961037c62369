import type { Logger } from '@tonstream/runtime';
import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';
import { hashApiKey } from '@tonstream/store';
import { requestApiKey } from './api-key.js';
import { createRedisLimiter, type LimitDecision } from './redis-limiter.js';
import { isUnlimitedPath, RATE_LIMIT_MESSAGE, refusalBody, retryAfterSeconds, UNKNOWN_KEY_MESSAGE } from './refusal.js';
import { createSlidingWindow } from './sliding-window.js';

/** Limits are requests per second (toncenter's unit): the window is one second. */
export const WINDOW_MS = 1_000;
/**
 * While Redis is down, a key Redis vouched for within this long keeps its own limit (per process);
 * older or never-seen keys get the anonymous limit of their IP, since they cannot be checked.
 * toncenter itself says key changes take up to 10 minutes to apply.
 */
const KEY_CACHE_TTL_MS = 10 * 60_000;

export type RateLimitMode = { shared: true } | { shared: false; reason: string };

export type RateLimitDeps = {
  redis: Redis;
  /** Prefix of every Redis key the limits use (API_REDIS_PREFIX). */
  prefix: string;
  /** Requests per second per client IP without a key. */
  anonymousRps: number;
  registry: Registry;
  logger: Logger;
  /** Clock of the per-process fallback, in ms. @default Date.now */
  now?: () => number;
};

export type RateLimit = {
  /** Mounted on /api/v2 and /api/v3: admits the request, or answers 401 or 429 itself. */
  middleware(req: Request, res: Response, next: NextFunction): Promise<void>;
  decide(request: { apiKey?: string; clientIp: string }): Promise<LimitDecision & { shared: boolean }>;
  /** Whether limits are currently shared through Redis, and why not. */
  mode(): RateLimitMode;
};

/**
 * API keys and rate limits (toncenter §1.2): shared through Redis across API processes, per process
 * while Redis is unreachable.
 */
export function createRateLimit({ redis, prefix, anonymousRps, registry, logger, now = Date.now }: RateLimitDeps): RateLimit {
  const shared = createRedisLimiter(redis, prefix, WINDOW_MS);
  const local = createSlidingWindow(WINDOW_MS);
  const keyLimits = new Map<string, { limit: number; verifiedAtMs: number }>();
  let redisError: string | undefined;
  redis.on('error', (err: Error) => (redisError = err.message));
  redis.on('ready', () => (redisError = undefined));

  const mode = (): RateLimitMode => {
    if (redis.status !== 'ready') return { shared: false, reason: `Redis unreachable (${redisError ?? redis.status})` };
    if (redisError !== undefined) return { shared: false, reason: `Redis failing (${redisError})` };
    return { shared: true };
  };

  new Gauge({
    name: 'tonstream_api_rate_limit_shared',
    help: 'Rate limits: 1 when shared through Redis by every API process, 0 when each process limits on its own (Redis unreachable)',
    registers: [registry],
    collect() {
      this.set(mode().shared ? 1 : 0);
    },
  });
  const refusals = new Counter({
    name: 'tonstream_api_rate_limit_refusals_total',
    help: 'Requests refused by the rate limits: reason limited (429) or unknown_key (401); shared or per-process decision',
    labelNames: ['reason', 'shared'],
    registers: [registry],
  });

  const decideLocally = (keyHash: string | undefined, clientIp: string): LimitDecision => {
    const t = now();
    const known = keyHash === undefined ? undefined : keyLimits.get(keyHash);
    const byKey = known !== undefined && t - known.verifiedAtMs <= KEY_CACHE_TTL_MS;
    const limit = byKey ? known.limit : anonymousRps;
    const taken = local.take(byKey ? `key:${keyHash}` : `ip:${clientIp}`, limit, t);
    return taken.allowed ? { kind: 'allowed', limit, remaining: taken.remaining } : { kind: 'limited', limit, retryAfterMs: taken.retryAfterMs };
  };

  const decide: RateLimit['decide'] = async ({ apiKey, clientIp }) => {
    const keyHash = apiKey === undefined ? undefined : hashApiKey(apiKey);
    if (redis.status === 'ready') {
      try {
        const decision = await shared.take({ keyHash, clientIp, anonymousLimit: anonymousRps });
        redisError = undefined;
        if (keyHash !== undefined) {
          if (decision.kind === 'unknown_key') keyLimits.delete(keyHash);
          else keyLimits.set(keyHash, { limit: decision.limit, verifiedAtMs: now() });
        }
        return { ...decision, shared: true };
      } catch (err) {
        if (redisError === undefined) logger.warn('rate limit script failed: limiting per process', { err });
        redisError = (err as Error).message;
      }
    }
    return { ...decideLocally(keyHash, clientIp), shared: false };
  };

  return {
    decide,
    mode,
    async middleware(req, res, next) {
      if (isUnlimitedPath(req.path)) return next();
      const decision = await decide({ apiKey: requestApiKey(req), clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown' });
      if (decision.kind === 'allowed') return next();
      refusals.inc({ reason: decision.kind, shared: String(decision.shared) });
      res.locals.route = `${req.baseUrl} (refused by rate limits)`;
      if (decision.kind === 'unknown_key') {
        res.status(401).json(refusalBody(req.baseUrl, 401, UNKNOWN_KEY_MESSAGE));
        return;
      }
      res.set('Retry-After', String(retryAfterSeconds(decision.retryAfterMs)));
      res.status(429).json(refusalBody(req.baseUrl, 429, RATE_LIMIT_MESSAGE));
    },
  };
}
