import { decodePendingExternal } from '@tonstream/bus';
import { classifyPending, type ExternalMessage, parseExternal, pendingTrace, type PendingAction, type TraceClassifier, type TraceEmulator } from '@tonstream/emulation';
import type { Logger } from '@tonstream/runtime';
import { hasPendingTrace, type PendingKeys, putPendingTrace } from '@tonstream/store';
import type { Redis } from 'ioredis';
import type { Admission } from './admission.js';
import type { EmulatorMetrics } from './metrics.js';
import type { PendingStream } from './pending-stream.js';
import { interfacesOfStates, pendingLookup } from './state-interfaces.js';
import { isProgrammingError, recoverWith, rethrowBugs, TonstreamError } from '@tonstream/errors';

/** Emulation attempts per external: a liteserver hiccup is retried, a persistent failure given up. */
const EMULATION_ATTEMPTS = 3;
/** Redis writes are retried until they succeed (offsets wait for them), backing off up to this. */
const REDIS_RETRY_MAX_MS = 2_000;

export type ProcessResult = 'emulated' | 'rejected' | 'duplicate' | 'rate_limited' | 'stale' | 'invalid' | 'failed';

/** Lets a long Redis retry keep the consumer in its group, and end when the service stops. */
export type ConsumerControl = { heartbeat(): Promise<void>; isRunning(): boolean };

export type ProcessorDeps = {
  emulator: TraceEmulator;
  /** The action classifier; without one, traces are stored `unclassified` with no actions. */
  classify?: TraceClassifier;
  redis: Redis;
  keys: PendingKeys;
  admission: Admission;
  ttlMs: number;
  metrics: EmulatorMetrics;
  logger: Logger;
  now?: () => number;
  /** Told about each stored trace (the streamer's `ton.pending_traces`); none: Redis only. */
  pendingStream?: Pick<PendingStream, 'stored'>;
};

/** The service stopped while a Redis write was still being retried: the offset must not be committed. */
export class StoppedError extends TonstreamError {
  readonly code = 'STOPPED';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One `ton.pending_externals` value: admission, emulation, classification, Redis. Resolves only once
 * the result is in Redis (or there is nothing to store), so the caller may commit the offset then.
 */
export function createProcessor(deps: ProcessorDeps): { process(value: Buffer | null, control: ConsumerControl): Promise<ProcessResult> } {
  const { emulator, classify, redis, keys, admission, ttlMs, metrics, logger } = deps;
  const now = deps.now ?? Date.now;

  async function emulate(ext: ExternalMessage) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await emulator.emulate(ext.boc);
      } catch (err) {
        if (attempt >= EMULATION_ATTEMPTS || isProgrammingError(err)) throw err;
        logger.warn('emulation failed, retrying', { hash_norm: ext.hash_norm, attempt, err });
        await sleep(100 * attempt);
      }
    }
  }

  async function store(entry: Parameters<typeof putPendingTrace>[2], control: ConsumerControl) {
    for (let attempt = 1; ; attempt++) {
      try {
        await putPendingTrace(redis, keys, entry, ttlMs, now());
        return;
      } catch (err) {
        rethrowBugs(err);
        metrics.redisErrors.inc();
        if (attempt === 1) logger.warn('Redis write failed; retrying until it is back (offsets wait)', { hash_norm: entry.trace.external_hash_norm, err });
        if (!control.isRunning()) throw new StoppedError('stopped while storing a pending trace', { cause: err });
        await sleep(Math.min(100 * attempt, REDIS_RETRY_MAX_MS));
        await control.heartbeat().catch(() => {});
      }
    }
  }

  async function process(value: Buffer | null, control: ConsumerControl): Promise<ProcessResult> {
    let ext: ExternalMessage;
    let receivedAt: number;
    try {
      const v = decodePendingExternal(value ?? '');
      ext = parseExternal(Buffer.from(v.boc, 'base64'));
      receivedAt = v.received_at;
    } catch (err) {
      rethrowBugs(err);
      logger.warn('not a pending external; skipped', { err });
      return 'invalid';
    }
    // Externals are valid for seconds to minutes: after the TTL there is nothing worth showing.
    if (now() - receivedAt > ttlMs) return 'stale';
    const decision = admission.admit(ext.hash_norm, ext.destination, now());
    if (decision !== 'admit') return decision;
    // Stored before a crash whose offset was not committed yet: emulated once, not twice.
    if (await hasPendingTrace(redis, keys, ext.hash_norm).catch(recoverWith(false))) return 'duplicate';

    let outcome;
    try {
      outcome = await emulate(ext);
    } catch (err) {
      admission.forget(ext.hash_norm);
      logger.error('emulation failed', { hash_norm: ext.hash_norm, err });
      return 'failed';
    }
    if (outcome.kind === 'rejected') {
      logger.debug('external rejected by its destination', { hash_norm: ext.hash_norm, destination: ext.destination, reason: outcome.reason, exit_code: outcome.exitCode });
      return 'rejected';
    }
    metrics.emulationSeconds.observe(outcome.durationMs / 1000);
    metrics.traceTransactions.observe(outcome.transactions.length);
    const result = pendingTrace(outcome, now());
    // Interfaces of the states after the trace: probed Jetton wallets, then NFT items, masters... by code and data.
    const lookup = pendingLookup(outcome.interfaces, interfacesOfStates(outcome.finalStates));
    const actions: PendingAction[] = classify ? classifyPending(result, (trace) => classify(trace, lookup)) : [];
    const entry = { trace: result.trace, transactions: result.transactions, actions };
    await store(entry, control);
    deps.pendingStream?.stored(entry);
    metrics.readySeconds.observe(Math.max(0, now() - receivedAt) / 1000);
    logger.debug('pending trace stored', { hash_norm: ext.hash_norm, transactions: result.transactions.length, actions: actions.length });
    return 'emulated';
  }

  return {
    async process(value, control) {
      const result = await process(value, control);
      metrics.externals.inc({ result });
      return result;
    },
  };
}
