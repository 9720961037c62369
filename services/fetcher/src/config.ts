/** The fetcher process's configuration from environment variables and the `--reset` flag (see README). */
import { ConfigError, type Field, hostPorts, int, loadConfig, LOG_LEVELS, type LogLevel, oneOf, str } from '@tonstream/runtime';

export type FetcherServiceConfig = {
  /** TON global config: a file path or an http(s) URL. @default .local/localnet/global.config.json */
  globalConfig: string;
  kafkaBrokers: string[];
  /** Prefix of every topic name (isolates deployments and test runs). @default '' */
  topicPrefix: string;
  /** First live start without a checkpoint: a seqno or `head`. @default head */
  startSeqno: number | 'head';
  /** Backfill mode: first masterchain seqno. @default null (live mode) */
  fromSeqno: number | null;
  /** Backfill mode: last masterchain seqno. @default null (the head at start) */
  toSeqno: number | null;
  /** Masterchain blocks prepared at once. @default 4 */
  concurrency: number;
  /** Liteserver queries in flight over all servers. @default 32 */
  queryConcurrency: number;
  /** @default 10000 */
  queryTimeoutMs: number;
  /** Attempts per liteserver query, each on the next server. @default 5 */
  queryAttempts: number;
  /** @default 250 */
  pollIntervalMs: number;
  /** @default 10000 */
  progressIntervalMs: number;
  /** @default 30 */
  lagDegradedBlocks: number;
  /** @default 60 */
  lagDegradedSeconds: number;
  metricsHost: string;
  /** @default 9101 */
  metricsPort: number;
  logLevel: LogLevel;
  /** `--reset`: ignore the stored checkpoint, start from `startSeqno` (the next checkpoint overwrites it). */
  reset: boolean;
};

const FLAGS = ['--reset'] as const;

function optionalInt(env: string, doc: string, min: number): Field<number | null> {
  const base = int(env, doc, undefined, { min });
  return { ...base, default: null, parse: (raw) => base.parse(raw) };
}

function startSeqno(env: string, doc: string): Field<number | 'head'> {
  const base = int(env, doc, undefined, { min: 1 });
  return { env, doc, default: 'head', accepts: `"head" or ${base.accepts}`, parse: (raw) => (raw.trim() === 'head' ? 'head' : base.parse(raw)) };
}

const spec = {
  globalConfig: str('FETCHER_GLOBAL_CONFIG', 'TON global config file path or http(s) URL', '.local/localnet/global.config.json'),
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name', ''),
  startSeqno: startSeqno('FETCHER_START_SEQNO', 'where a first live start begins'),
  fromSeqno: optionalInt('FETCHER_FROM_SEQNO', 'backfill: first masterchain seqno', 1),
  toSeqno: optionalInt('FETCHER_TO_SEQNO', 'backfill: last masterchain seqno (default: the head at start)', 1),
  concurrency: int('FETCHER_CONCURRENCY', 'masterchain blocks prepared at once', 4, { min: 1, max: 256 }),
  queryConcurrency: int('FETCHER_QUERY_CONCURRENCY', 'liteserver queries in flight', 32, { min: 1, max: 4096 }),
  queryTimeoutMs: int('FETCHER_QUERY_TIMEOUT_MS', 'timeout of one liteserver query attempt', 10_000, { min: 100, max: 600_000 }),
  queryAttempts: int('FETCHER_QUERY_ATTEMPTS', 'attempts per liteserver query', 5, { min: 1, max: 100 }),
  pollIntervalMs: int('FETCHER_POLL_INTERVAL_MS', 'masterchain head poll interval', 250, { min: 10, max: 60_000 }),
  progressIntervalMs: int('FETCHER_PROGRESS_INTERVAL_MS', 'progress log interval', 10_000, { min: 100, max: 3_600_000 }),
  lagDegradedBlocks: int('FETCHER_LAG_DEGRADED_BLOCKS', 'lag in masterchain blocks that makes /healthcheck degraded', 30, { min: 1 }),
  lagDegradedSeconds: int('FETCHER_LAG_DEGRADED_SECONDS', 'lag in seconds that makes /healthcheck degraded', 60, { min: 1 }),
  metricsHost: str('METRICS_HOST', 'interface of /metrics and /healthcheck', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9101, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'least severe level logged', LOG_LEVELS, 'info'),
};

/**
 * Builds the config; bad values, unknown FETCHER_* variables, unknown arguments and a lone
 * FETCHER_TO_SEQNO are reported together. `argv`: the process arguments after the script (main.ts
 * passes them; library callers usually have none).
 */
export function loadFetcherConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = []): FetcherServiceConfig {
  const known = new Set(Object.values(spec).map((f) => f.env));
  const unknown = Object.keys(env).filter((k) => k.startsWith('FETCHER_') && !known.has(k));
  const problems = unknown.map((k) => `unknown variable ${k}; accepted: ${[...known].filter((n) => n.startsWith('FETCHER_')).join(', ')}`);
  const unknownArgs = argv.filter((a) => !(FLAGS as readonly string[]).includes(a));
  if (unknownArgs.length > 0) problems.push(`unknown argument${unknownArgs.length > 1 ? 's' : ''} ${unknownArgs.join(' ')}; accepted: ${FLAGS.join(', ')}`);
  let cfg: FetcherServiceConfig | undefined;
  try {
    cfg = { ...loadConfig(spec, env), reset: argv.includes('--reset') };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (cfg && cfg.toSeqno !== null && cfg.fromSeqno === null) problems.push('FETCHER_TO_SEQNO needs FETCHER_FROM_SEQNO (backfill mode)');
  if (cfg && cfg.toSeqno !== null && cfg.fromSeqno !== null && cfg.toSeqno < cfg.fromSeqno) {
    problems.push(`FETCHER_TO_SEQNO=${cfg.toSeqno} is below FETCHER_FROM_SEQNO=${cfg.fromSeqno}`);
  }
  if (problems.length > 0 || !cfg) throw new ConfigError(problems);
  return cfg;
}
