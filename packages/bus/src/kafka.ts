import { type Admin, Kafka, logLevel, type LogEntry } from 'kafkajs';
import { useFastCrc32c } from './kafkajs-crc32c.js';
import { MAX_MESSAGE_BYTES, type TopicSpec } from './topics.js';

/** The subset of a structured logger the bus logs to (`@tonstream/runtime`'s Logger fits). */
export type BusLogger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

export type KafkaOptions = { brokers: string[]; clientId: string; logger?: BusLogger };

/**
 * A kafkajs client whose logs go to our logger, with retries suited to a restarting local broker,
 * and a faster record batch checksum (`useFastCrc32c`).
 */
export function createKafka({ brokers, clientId, logger }: KafkaOptions): Kafka {
  useFastCrc32c();
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 5_000,
    requestTimeout: 60_000,
    retry: { initialRetryTime: 300, retries: 12, maxRetryTime: 10_000 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      if (!logger) return;
      const { message, ...fields } = entry.log;
      // kafkajs reports a harmless error when the broker auto-creates a topic on first use.
      if (/leadership election|LEADER_NOT_AVAILABLE/.test(String(message))) return;
      const level = entry.level === logLevel.ERROR ? 'error' : entry.level === logLevel.WARN ? 'warn' : 'debug';
      logger[level](`kafka: ${message}`, { namespace: entry.namespace, ...fields });
    },
  });
}

/** Creates missing topics with their settings; existing topics are left as they are. */
export async function ensureTopics(admin: Admin, specs: TopicSpec[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length > 0) await admin.createTopics({ topics: missing, waitForLeaders: true });
  return missing.map((s) => s.topic);
}

/** Consumer fetch sizes that let a block of MAX_MESSAGE_BYTES through. */
export const CONSUMER_FETCH = { maxBytes: MAX_MESSAGE_BYTES * 2, maxBytesPerPartition: MAX_MESSAGE_BYTES } as const;
