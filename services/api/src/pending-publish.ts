import { ensureTopics, pendingExternal, type Topics, topicSpecs } from '@tonstream/bus';
import type { Logger } from '@tonstream/runtime';
import { type Kafka, type Message, Partitioners } from 'kafkajs';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Liteserver } from './chain/liteserver.js';

/**
 * Every external message the liteserver accepts (v2 sendBoc*, sendQuery, v3 POST /message: they all
 * send through `Liteserver.sendMessage`) is also published for the emulator, which turns it into a
 * pending trace (services/emulator). The message has already reached the chain, so publishing never
 * delays the answer: `publish` only queues it.
 */
export function publishingAccepted(lite: Liteserver, publish: (boc: Buffer) => void): Liteserver {
  return {
    ...lite,
    async sendMessage(boc) {
      const status = await lite.sendMessage(boc);
      publish(boc);
      return status;
    },
  };
}

export type PendingPublisherState = {
  /** Externals reach Kafka: the last connect or send succeeded and no send has been waiting longer than `stallMs`. */
  publishing: boolean;
  /** Externals waiting to be sent. */
  queued: number;
  published: number;
  dropped: number;
};

export type PendingPublisher = {
  /** `lite` whose sendMessage also queues each accepted external for `ton.pending_externals`. */
  wrap(lite: Liteserver): Liteserver;
  state(): PendingPublisherState;
  /** For /healthcheck: what is wrong, without hosts or error texts (those are logged). */
  healthNotes(): string[];
  /** Sends what is queued if Kafka is reachable (waiting at most `closeFlushMs`), then disconnects. */
  close(): Promise<void>;
};

export type PendingPublisherOptions = {
  kafka: Pick<Kafka, 'admin' | 'producer'>;
  topics: Topics;
  registry: Registry;
  logger: Logger;
  /** Bytes of queued topic values at most; beyond, the oldest are dropped. @default 8 MiB */
  maxQueuedBytes?: number;
  /** A send waiting this long means Kafka is not reached (kafkajs retries a lost broker for minutes before it fails). @default 5_000 */
  stallMs?: number;
  /** First pause before trying Kafka again after a failure; doubles up to `maxRetryMs`. @default 500 */
  retryMs?: number;
  /** @default 10_000 */
  maxRetryMs?: number;
  /** @default 5_000 */
  closeFlushMs?: number;
};

/** Externals per produce request. */
const MAX_BATCH = 500;
/** kafkajs' retries within one connect or send of the producer; the loop here retries forever after them. */
const PRODUCER_RETRY = { initialRetryTime: 300, maxRetryTime: 5_000, retries: 5 };

type DropReason = 'queue_full' | 'invalid';

/**
 * The API's producer of `ton.pending_externals` (the topic created if missing). A background loop
 * connects, sends what is queued, and after any failure tries again for as long as it takes: the API
 * serves, and sends, while Kafka is away. The queue is bounded in bytes; beyond, the oldest externals
 * go first (the emulator finds them stale soonest: it judges by `received_at`, the arrival here).
 */
export function createPendingPublisher(options: PendingPublisherOptions): PendingPublisher {
  const { kafka, topics, logger, maxQueuedBytes = 8 * 2 ** 20, stallMs = 5_000, retryMs = 500, maxRetryMs = 10_000, closeFlushMs = 5_000 } = options;
  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner, retry: PRODUCER_RETRY });

  const queue: Message[] = [];
  let queuedBytes = 0;
  let ready = false;
  /** The last connect or send succeeded. */
  let reached = false;
  /** When the send in flight started. */
  let sendingSince: number | undefined;
  let published = 0;
  let dropped = 0;
  /** Dropped since Kafka was last reached: the first is logged, the rest counted. */
  let droppedInOutage = 0;
  let closing = false;
  let disconnected = false;
  let wake: (() => void) | undefined;
  const stopPausing = new AbortController();

  const publishing = () => reached && (sendingSince === undefined || Date.now() - sendingSince < stallMs);

  const registers = [options.registry];
  const metrics = {
    up: new Gauge({
      name: 'tonstream_api_pending_publish_up',
      help: '1 while accepted externals reach Kafka (ton.pending_externals); 0 while it is not reached or a send is stuck',
      registers,
      collect() {
        this.set(publishing() ? 1 : 0);
      },
    }),
    queued: new Gauge({ name: 'tonstream_api_pending_publish_queued', help: 'Accepted externals waiting to be published to ton.pending_externals', registers }),
    published: new Counter({ name: 'tonstream_api_pending_published_total', help: 'Accepted externals published to ton.pending_externals', registers }),
    dropped: new Counter({
      name: 'tonstream_api_pending_publish_dropped_total',
      help: 'Accepted externals never published to ton.pending_externals (no pending trace for them), by reason: queue_full (Kafka away too long), invalid (not an external to a standard address)',
      labelNames: ['reason'] as const,
      registers,
    }),
  };
  for (const reason of ['queue_full', 'invalid'] as const) metrics.dropped.inc({ reason }, 0);

  const drop = (reason: DropReason, n: number) => {
    dropped += n;
    metrics.dropped.inc({ reason }, n);
  };

  const trim = () => {
    let n = 0;
    while (queuedBytes > maxQueuedBytes && queue.length > 0) {
      queuedBytes -= (queue.shift()!.value as string).length;
      n++;
    }
    if (n === 0) return;
    drop('queue_full', n);
    if (droppedInOutage === 0) logger.warn('pending externals dropped: Kafka not reached and the queue is full (counted in tonstream_api_pending_publish_dropped_total)', { max_queued_bytes: maxQueuedBytes });
    droppedInOutage += n;
  };

  const publish = (boc: Buffer) => {
    let message: Message;
    try {
      const { destination, ...value } = pendingExternal(boc, Date.now(), 'api');
      message = { key: destination, value: JSON.stringify(value) };
    } catch (err) {
      drop('invalid', 1);
      logger.warn('an accepted external is not published for emulation', { err });
      return;
    }
    queue.push(message);
    queuedBytes += (message.value as string).length;
    trim();
    metrics.queued.set(queue.length);
    wake?.();
  };

  const succeeded = () => {
    if (!reached) logger.info('publishing pending externals to Kafka', { queued: queue.length, dropped_while_unreachable: droppedInOutage });
    reached = true;
    droppedInOutage = 0;
  };

  const failed = (err: unknown, failures: number) => {
    if (reached || failures === 0) logger.warn('pending externals not published: Kafka not reached; retrying in the background', { err, queued: queue.length });
    reached = false;
  };

  const setUp = async () => {
    const admin = kafka.admin({ retry: PRODUCER_RETRY });
    await admin.connect();
    try {
      await ensureTopics(admin, topicSpecs(topics).filter((s) => s.topic === topics.pendingExternals));
    } finally {
      await admin.disconnect();
    }
    await producer.connect();
  };

  /** Sends the oldest externals; on failure they go back to the front of the queue. */
  const sendBatch = async () => {
    const batch = queue.splice(0, MAX_BATCH);
    const bytes = batch.reduce((n, m) => n + (m.value as string).length, 0);
    queuedBytes -= bytes;
    sendingSince = Date.now();
    try {
      await producer.send({ topic: topics.pendingExternals, messages: batch });
    } catch (err) {
      queue.unshift(...batch);
      queuedBytes += bytes;
      trim();
      throw err;
    } finally {
      sendingSince = undefined;
      metrics.queued.set(queue.length);
    }
    published += batch.length;
    metrics.published.inc(batch.length);
  };

  const nextExternal = () =>
    new Promise<void>((resolve) => {
      wake = () => {
        wake = undefined;
        resolve();
      };
    });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopPausing.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopPausing.signal.addEventListener('abort', done);
    });

  const loop = async () => {
    let failures = 0;
    while (!closing || (reached && queue.length > 0)) {
      try {
        if (!ready) {
          await setUp();
          // Connected only after close() stopped waiting and disconnected: do not leave it open.
          if (disconnected) return await producer.disconnect();
          ready = true;
          succeeded();
        }
        if (queue.length === 0) {
          if (!closing) await nextExternal();
          continue;
        }
        await sendBatch();
        succeeded();
        failures = 0;
      } catch (err) {
        if (closing) break;
        failed(err, failures);
        await pause(Math.min(maxRetryMs, retryMs * 2 ** Math.min(failures++, 20)));
      }
    }
  };
  const running = loop();

  return {
    wrap: (lite) => publishingAccepted(lite, publish),
    state: () => ({ publishing: publishing(), queued: queue.length, published, dropped }),
    healthNotes: () => (publishing() ? [] : [`pending externals not published: Kafka not reached (${queue.length} queued, ${dropped} dropped since start)`]),
    async close() {
      closing = true;
      stopPausing.abort();
      wake?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, closeFlushMs)))]);
      clearTimeout(timer);
      disconnected = true;
      await producer.disconnect();
    },
  };
}
