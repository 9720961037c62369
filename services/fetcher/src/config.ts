/** The fetcher process's configuration from environment variables and the `--reset` flag (see README). */
import { ConfigError, type ConfigOf, type Field, int, kafkaFields, leaseFields, loadConfig, logFields, metricsFields, redisFields, type ServiceSpec, str } from '@tonstream/runtime';

const FLAGS = ['--reset'] as const;

function optionalInt(env: string, doc: string, min: number): Field<number | null> {
  const base = int(env, doc, undefined, { min });
  return { ...base, default: null, parse: (raw) => base.parse(raw) };
}

function startSeqno(env: string, doc: string): Field<number | 'head'> {
  const base = int(env, doc, undefined, { min: 1 });
  return { env, doc, default: 'head', accepts: `"head" or ${base.accepts}`, parse: (raw) => (raw.trim() === 'head' ? 'head' : base.parse(raw)) };
}

/** The fetcher's environment variables (its README's table is rendered from these). */
export const FETCHER_CONFIG = {
  globalConfig: str('FETCHER_GLOBAL_CONFIG', 'TON global config: a file path (waited for until it exists) or an http(s) URL', '.local/localnet/global.config.json'),
  ...kafkaFields,
  startSeqno: startSeqno('FETCHER_START_SEQNO', 'where a first live start without a checkpoint begins: `head` or a masterchain seqno'),
  fromSeqno: optionalInt('FETCHER_FROM_SEQNO', 'backfill mode: first masterchain seqno to publish, then exit (unset: live mode)', 1),
  toSeqno: optionalInt('FETCHER_TO_SEQNO', 'backfill mode: last masterchain seqno (unset: the head at start); needs FETCHER_FROM_SEQNO', 1),
  concurrency: int('FETCHER_CONCURRENCY', 'masterchain blocks prepared at once', 4, { min: 1, max: 256 }),
  queryConcurrency: int('FETCHER_QUERY_CONCURRENCY', 'liteserver queries in flight over all servers', 32, { min: 1, max: 4096 }),
  queryTimeoutMs: int('FETCHER_QUERY_TIMEOUT_MS', 'timeout (ms) of one liteserver query attempt', 10_000, { min: 100, max: 600_000 }),
  queryAttempts: int('FETCHER_QUERY_ATTEMPTS', 'attempts per liteserver query, each on the next server', 5, { min: 1, max: 100 }),
  pollIntervalMs: int('FETCHER_POLL_INTERVAL_MS', 'masterchain head poll interval (ms)', 250, { min: 10, max: 60_000 }),
  progressIntervalMs: int('FETCHER_PROGRESS_INTERVAL_MS', 'progress log line interval (ms)', 10_000, { min: 100, max: 3_600_000 }),
  lagDegradedBlocks: int('FETCHER_LAG_DEGRADED_BLOCKS', 'lag in masterchain blocks that makes /healthcheck degraded (live mode)', 30, { min: 1 }),
  lagDegradedSeconds: int('FETCHER_LAG_DEGRADED_SECONDS', 'lag in seconds that makes /healthcheck degraded (live mode)', 60, { min: 1 }),
  lease: { ...leaseFields.lease, doc: `${leaseFields.lease.doc}. Live mode only: a backfill runs beside the live fetcher without it` },
  leaseTtlMs: leaseFields.leaseTtlMs,
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis holding the lease (LEASE=on, live mode); not used otherwise' },
  ...metricsFields(9101),
  logLevel: { ...logFields.logLevel, doc: 'least severe level logged; `debug` adds one line per published masterchain block' },
};

/** The fetcher's config; `reset` is the `--reset` argument: ignore the stored checkpoint, start from `startSeqno` (the next checkpoint overwrites it). */
export type FetcherServiceConfig = ConfigOf<typeof FETCHER_CONFIG> & { reset: boolean };


/**
 * Builds the config; bad values, unknown FETCHER_* variables, unknown arguments and a lone
 * FETCHER_TO_SEQNO are reported together. `argv`: the process arguments after the script (main.ts
 * passes them; library callers usually have none).
 */
export function loadFetcherConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = []): FetcherServiceConfig {
  const known = new Set(Object.values(FETCHER_CONFIG).map((f) => f.env));
  const unknown = Object.keys(env).filter((k) => k.startsWith('FETCHER_') && !known.has(k));
  const problems = unknown.map((k) => `unknown variable ${k}; accepted: ${[...known].filter((n) => n.startsWith('FETCHER_')).join(', ')}`);
  const unknownArgs = argv.filter((a) => !(FLAGS as readonly string[]).includes(a));
  if (unknownArgs.length > 0) problems.push(`unknown argument${unknownArgs.length > 1 ? 's' : ''} ${unknownArgs.join(' ')}; accepted: ${FLAGS.join(', ')}`);
  let cfg: FetcherServiceConfig | undefined;
  try {
    cfg = { ...loadConfig(FETCHER_CONFIG, env), reset: argv.includes('--reset') };
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

export const FETCHER_SERVICE: ServiceSpec<FetcherServiceConfig> = { name: 'fetcher', fields: FETCHER_CONFIG, load: loadFetcherConfig };
