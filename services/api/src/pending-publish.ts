import { createKafka, ensureTopics, publishPendingExternal, topicNames, topicSpecs } from '@tonstream/bus';
import type { Logger } from '@tonstream/runtime';
import { Partitioners } from 'kafkajs';
import { Counter, type Registry } from 'prom-client';
import type { Liteserver } from './liteserver.js';

/**
 * Every external message the liteserver accepts (v2 sendBoc*, sendQuery, v3 POST /message: they all
 * send through `Liteserver.sendMessage`) is also published for the emulator, which turns it into a
 * pending trace (services/emulator). Publishing is best effort and after the send: the message has
 * already reached the chain, so a Kafka failure is reported to `failed`, never to the client.
 */
export function publishingAccepted(lite: Liteserver, publish: (boc: Buffer) => Promise<unknown>, failed: (err: unknown) => void): Liteserver {
  return {
    ...lite,
    async sendMessage(boc) {
      const status = await lite.sendMessage(boc);
      await publish(boc).catch(failed);
      return status;
    },
  };
}

export type PendingPublisher = { wrap(lite: Liteserver): Liteserver; close(): Promise<void> };

/**
 * A producer of `ton.pending_externals` (created if missing). It connects in the background: the API
 * serves, and sends, while Kafka is away; what is not published is counted and logged.
 */
export function connectPendingPublisher({ brokers, topicPrefix, registry, logger }: { brokers: string[]; topicPrefix: string; registry: Registry; logger: Logger }): PendingPublisher {
  const topics = topicNames(topicPrefix);
  const kafka = createKafka({ brokers, clientId: 'tonstream-api', logger: logger.child({ module: 'kafka' }) });
  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  const failures = new Counter({
    name: 'tonstream_api_pending_publish_failures_total',
    help: 'Externals the liteserver accepted that could not be published to ton.pending_externals (no pending trace for them)',
    registers: [registry],
  });
  const ready = (async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await ensureTopics(admin, topicSpecs(topics).filter((s) => s.topic === topics.pendingExternals));
    } finally {
      await admin.disconnect();
    }
    await producer.connect();
  })();
  ready.catch((err: unknown) => logger.warn('pending externals are not published: Kafka unavailable', { err }));
  return {
    wrap: (lite) =>
      publishingAccepted(
        lite,
        async (boc) => (await ready, publishPendingExternal(producer, topics, boc)),
        (err) => {
          failures.inc();
          logger.warn('an accepted external was not published for emulation', { err });
        },
      ),
    close: () => producer.disconnect(),
  };
}
