import type { Kafka, Producer, ProducerBatch, ProducerConfig, ProducerRecord, RecordMetadata } from 'kafkajs';
import type { BusLogger } from './kafka.js';

/** Broker answers meaning the producer's sequence numbers no longer match the broker's. */
const LOST_SEQUENCE = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH']);
/** A send is repeated from a new producer at most this many times. */
export const LOST_SEQUENCE_RETRIES = 3;

/** The parts of a kafkajs producer the services use. */
export type IdempotentProducer = {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(record: ProducerRecord): Promise<RecordMetadata[]>;
  sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]>;
};

/** The broker's error name (`MESSAGE_TOO_LARGE`, ...) of a kafkajs error or of one it wraps. */
export function kafkaErrorType(err: unknown): string | undefined {
  for (let e = err as { type?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.type === 'string') return e.type;
  }
  return undefined;
}

/**
 * A kafkajs idempotent producer (one request in flight) that many callers may share.
 *
 * kafkajs numbers a request's batches under a per-broker lock and, when the request fails, takes the
 * numbers of every partition in it back, also those the broker had appended (one partition's error
 * fails the whole request; a timeout can come after the write). Its own retry sends the same batches
 * again, which the broker knows as duplicates; but another send that takes the lock in between numbers
 * other records with the same numbers, and the broker refuses it for good
 * (OUT_OF_ORDER_SEQUENCE_NUMBER: a decoder with two partitions stopped on it in CI). So sends here run
 * one at a time, and after a failed send the next starts from a new producer (new sequence numbers).
 * When the broker refuses a send for its numbers all the same (it also forgets idle producers:
 * UNKNOWN_PRODUCER_ID), the send is repeated from a new producer: our topics' records are keyed and
 * stored idempotently, so a repeat is harmless where a lost record is not.
 */
export function createIdempotentProducer(kafka: Kafka, config: Omit<ProducerConfig, 'idempotent' | 'maxInFlightRequests'> = {}, logger?: BusLogger): IdempotentProducer {
  const open = () => kafka.producer({ ...config, idempotent: true, maxInFlightRequests: 1 });
  let producer = open();
  let renewBeforeNext = false;
  let queue: Promise<unknown> = Promise.resolve();

  async function renew() {
    const old = producer;
    producer = open();
    await old.disconnect().catch(() => {});
    await producer.connect();
    renewBeforeNext = false;
  }

  async function attempt<T>(send: (p: Producer) => Promise<T>): Promise<T> {
    for (let repeat = 0; ; repeat++) {
      if (renewBeforeNext) await renew();
      try {
        return await send(producer);
      } catch (err) {
        renewBeforeNext = true;
        const type = kafkaErrorType(err);
        if (type === undefined || !LOST_SEQUENCE.has(type) || repeat >= LOST_SEQUENCE_RETRIES) throw err;
        logger?.warn('kafka: the broker refused the producer\'s sequence numbers; sending again from a new producer', { error: type, repeat: repeat + 1 });
      }
    }
  }

  function serial<T>(send: (p: Producer) => Promise<T>): Promise<T> {
    const run = queue.then(() => attempt(send));
    queue = run.catch(() => {});
    return run;
  }

  return {
    connect: () => producer.connect(),
    disconnect: () => producer.disconnect(),
    send: (record) => serial((p) => p.send(record)),
    sendBatch: (batch) => serial((p) => p.sendBatch(batch)),
  };
}
