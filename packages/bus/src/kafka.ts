import kafkajs, { type Admin, type ISocketFactory, Kafka, logLevel, type LogEntry } from 'kafkajs';
import { useFastCrc32c } from './kafkajs-crc32c.js';
import { MAX_MESSAGE_BYTES, type TopicSpec } from './topics.js';
import { isRetriable, TonstreamError } from '@tonstream/errors';

/** The subset of a structured logger the bus logs to (`@tonstream/runtime`'s Logger fits). */
export type BusLogger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

/** `socketFactory`: how connections to the brokers are made. @default kafkajs' (plain TCP) */
export type KafkaOptions = { brokers: string[]; clientId: string; logger?: BusLogger; socketFactory?: ISocketFactory };

/**
 * A kafkajs client whose logs go to our logger, with retries suited to a restarting local broker,
 * and a faster record batch checksum (`useFastCrc32c`).
 */
export function createKafka({ brokers, clientId, logger, socketFactory }: KafkaOptions): Kafka {
  useFastCrc32c();
  return new Kafka({
    clientId,
    brokers,
    ...(socketFactory ? { socketFactory } : {}),
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

/** A topic exists with settings the pipeline cannot work with. */
export class TopicConfigError extends TonstreamError {
  readonly code = 'TOPIC_CONFIG_MISMATCH';
}

/**
 * Creates missing topics with their settings and checks that existing ones take messages as large as
 * their spec says: a smaller `max.message.bytes` would make every produce of a big block fail for
 * good, so it stops the service at start with what to change instead.
 */
export async function ensureTopics(admin: Admin, specs: TopicSpec[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length > 0) {
    // Not kafkajs's waitForLeaders: its wait retries only "leader not available" and throws on the
    // "does not host this topic-partition" a broker under load answers at first; topicsServed retries both.
    await admin.createTopics({ topics: missing, waitForLeaders: false });
    await topicsServed(admin, missing.map((s) => s.topic));
  }
  await checkMessageLimits(admin, specs.filter((s) => existing.has(s.topic)));
  return missing.map((s) => s.topic);
}

/** How long a new topic may take to be served after it was created. */
const NEW_TOPIC_WAIT_MS = 60_000;

/**
 * Waits until the broker serves metadata with a leader for every partition of `topics`. A topic just
 * created (by us, or by another service a moment before) can still be unknown to the broker that
 * answers ("This server does not host this topic-partition") although createTopics returned: a
 * service that read the metadata then would fail to start.
 */
async function topicsServed(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + NEW_TOPIC_WAIT_MS;
  for (;;) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      if (found.length === topics.length && found.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (err) {
      if (!isRetriable(err)) throw err;
    }
    if (Date.now() > deadline) throw new Error(`topics ${topics.join(', ')} were created but are not served after ${NEW_TOPIC_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const MAX_MESSAGE_BYTES_CONFIG = 'max.message.bytes';
// Not a named export Node can see in kafkajs's CommonJS module: taken from its default export.
const { ConfigResourceTypes } = kafkajs;

async function checkMessageLimits(admin: Admin, specs: TopicSpec[]): Promise<void> {
  const required = new Map<string, number>();
  for (const s of specs) {
    const entry = s.configEntries.find((e) => e.name === MAX_MESSAGE_BYTES_CONFIG);
    if (entry) required.set(s.topic, Number(entry.value));
  }
  if (required.size === 0) return;
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [...required.keys()].map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: [MAX_MESSAGE_BYTES_CONFIG] })),
  });
  const problems: string[] = [];
  for (const r of resources) {
    const actual = Number(r.configEntries.find((e) => e.configName === MAX_MESSAGE_BYTES_CONFIG)?.configValue);
    const needed = required.get(r.resourceName) ?? 0;
    if (!(actual >= needed)) {
      problems.push(
        `topic ${r.resourceName} has ${MAX_MESSAGE_BYTES_CONFIG}=${actual}, needs at least ${needed}: ` +
          `kafka-configs.sh --bootstrap-server <broker> --alter --entity-type topics --entity-name ${r.resourceName} --add-config ${MAX_MESSAGE_BYTES_CONFIG}=${needed}`,
      );
    }
  }
  if (problems.length > 0) throw new TopicConfigError(`Kafka topics take messages too small for TON blocks:\n${problems.join('\n')}`);
}

/**
 * How long a consumer may go silent before the group gives its partitions to another member, and how
 * often it heartbeats (a fifth of that, at most kafkajs' 3 s: 30 s -> 3 s, kafkajs' defaults; 10 s ->
 * 2 s). A member killed with SIGKILL holds its partitions this long: its restarted successor waits for
 * it to be given up.
 */
export function groupTiming(sessionTimeoutMs: number): { sessionTimeout: number; heartbeatInterval: number } {
  return { sessionTimeout: sessionTimeoutMs, heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeoutMs / 5)) };
}

/** Consumer fetch sizes that let a block of MAX_MESSAGE_BYTES through. */
export const CONSUMER_FETCH = { maxBytes: MAX_MESSAGE_BYTES * 2, maxBytesPerPartition: MAX_MESSAGE_BYTES } as const;
