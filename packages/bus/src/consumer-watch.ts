import type { Consumer } from 'kafkajs';
import type { BusLogger } from './kafka.js';

/** A consumer's part of its service's /healthcheck (the shape of `HealthStatus` in @tonstream/runtime). */
export type ConsumerHealth = { status: 'ok' | 'degraded' | 'error'; reasons: string[] };

export type ConsumerWatch = {
  health(): ConsumerHealth;
  /**
   * Rejects once the consumer is gone for good: kafkajs will not restart it, or it crashed again
   * before its restart rejoined the group. The process should then exit non-zero for its supervisor.
   */
  readonly stopped: Promise<never>;
};

/**
 * What a kafkajs consumer is doing, from its instrumentation events, which is all kafkajs tells: a
 * fetch that fails is retried quietly (about half a minute by default) before the consumer "crashes";
 * a crash is then restarted or not (`restart`), and one that is not leaves the process alive with
 * nothing consuming. A fetch started before the previous one on the same broker finished means the
 * previous one failed: health says so at once, not after the retries.
 */
export function watchConsumer(consumer: Consumer, logger: BusLogger): ConsumerWatch {
  const { GROUP_JOIN, FETCH_START, FETCH, CRASH } = consumer.events;
  let joined = false;
  let crash: string | null = null;
  let dead: string | null = null;
  /** Brokers with a fetch in progress, and since when fetches from each have been failing. */
  const fetching = new Set<number>();
  const failingSince = new Map<number, number>();
  let fail!: (err: Error) => void;
  const stopped = new Promise<never>((_resolve, reject) => (fail = reject));
  stopped.catch(() => {}); // observed by the service; not an unhandled rejection if nobody waits

  consumer.on(GROUP_JOIN, () => {
    joined = true;
    crash = null;
    fetching.clear();
    failingSince.clear();
  });
  consumer.on(FETCH_START, ({ payload: { nodeId } }) => {
    if (fetching.has(nodeId) && !failingSince.has(nodeId)) failingSince.set(nodeId, Date.now());
    fetching.add(nodeId);
  });
  consumer.on(FETCH, ({ payload: { nodeId } }) => {
    fetching.delete(nodeId);
    failingSince.delete(nodeId);
  });
  consumer.on(CRASH, ({ payload: { error, restart } }) => {
    if (dead) return;
    if (restart && crash === null) {
      crash = `consumer crashed, kafkajs restarts it: ${error.message}`;
      logger.error('consumer crashed; kafkajs restarts it', { err: error });
      return;
    }
    dead = restart ? `consumer crashed again before it rejoined its group: ${error.message}` : `consumer crashed and kafkajs does not restart it: ${error.message}`;
    logger.error(`${dead}; stopping`, { err: error });
    fail(new Error(dead, { cause: error }));
  });

  return {
    stopped,
    health() {
      if (dead) return { status: 'error', reasons: [dead] };
      if (crash) return { status: 'degraded', reasons: [crash] };
      if (!joined) return { status: 'degraded', reasons: ['consumer not in its group yet'] };
      const since = Math.min(...failingSince.values());
      if (Number.isFinite(since)) return { status: 'degraded', reasons: [`consumer fetches failing for ${Math.round((Date.now() - since) / 1000)} s (kafkajs retries, then restarts the consumer)`] };
      return { status: 'ok', reasons: [] };
    },
  };
}
