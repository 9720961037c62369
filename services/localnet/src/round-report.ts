/** What the process says about its rounds: metrics, a debug line per round, an info line every few, health. */
import type { RoundResult } from '@tonstream/localnet';
import type { HealthStatus, Logger } from '@tonstream/runtime';
import type { LocalnetMetrics } from './metrics.js';

/** Rounds per progress line at info (about ten seconds at the default round time). */
export const PROGRESS_EVERY_ROUNDS = 10;
/** Health turns degraded when no round has finished for this many round intervals. */
const STALLED_AFTER_ROUNDS = 5;

export type RoundReporter = {
  round(r: RoundResult, durationMs: number, pending: { internal: number; external: number }): void;
  failed(err: unknown, mcSeqno: number): void;
  health(): HealthStatus;
};

export function createRoundReporter(d: { logger: Logger; metrics: LocalnetMetrics; roundMs: number; now?: () => number }): RoundReporter {
  const now = d.now ?? Date.now;
  const { logger, metrics } = d;
  let window = { rounds: 0, transactions: 0, busyMs: 0, since: now() };
  let lastRoundAt = now();
  let lastError: string | undefined;

  return {
    round(r, durationMs, pending) {
      const seqno = r.mc.id.seqno;
      lastRoundAt = now();
      lastError = undefined;
      metrics.mcSeqno.set(seqno);
      metrics.transactions.inc(r.transactions);
      metrics.roundDuration.observe(durationMs / 1000);
      metrics.pending.set({ kind: 'internal' }, pending.internal);
      metrics.pending.set({ kind: 'external' }, pending.external);
      metrics.rejected.inc(r.rejected.length);
      if (logger.isEnabled('debug')) {
        logger.debug('round', {
          mc_seqno: seqno,
          transactions: r.transactions,
          shard_seqnos: r.shards.map((b) => b.id.seqno),
          rejected: r.rejected.length,
          in_flight: r.inFlight,
          duration_ms: Math.round(durationMs),
          execute_ms: Math.round(r.timing.executeMs),
          build_ms: Math.round(r.timing.buildMs),
        });
      }
      window.rounds++;
      window.transactions += r.transactions;
      window.busyMs += durationMs;
      if (window.rounds >= PROGRESS_EVERY_ROUNDS) {
        const seconds = Math.max((lastRoundAt - window.since) / 1000, 1e-3);
        logger.info('progress', {
          mc_seqno: seqno,
          rounds: window.rounds,
          transactions: window.transactions,
          tx_per_s: Math.round(window.transactions / seconds),
          round_ms_avg: Math.round(window.busyMs / window.rounds),
          pending_internal: pending.internal,
          pending_external: pending.external,
        });
        window = { rounds: 0, transactions: 0, busyMs: 0, since: lastRoundAt };
      }
    },
    failed(err, mcSeqno) {
      lastError = err instanceof Error ? err.message : String(err);
      metrics.roundErrors.inc();
      logger.error('round failed', { mc_seqno: mcSeqno, err: lastError });
    },
    health() {
      const reasons: string[] = [];
      const idleMs = now() - lastRoundAt;
      if (idleMs > STALLED_AFTER_ROUNDS * d.roundMs) reasons.push(`no round for ${Math.round(idleMs / 1000)} s`);
      if (lastError) reasons.push(`last round failed: ${lastError}`);
      return { status: reasons.length ? 'degraded' : 'ok', reasons };
    },
  };
}
