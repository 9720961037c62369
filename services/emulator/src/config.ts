import { clickhouseFields, type ConfigOf, consumerGroupFields, defaultFrom, int, kafkaFields, logFields, metricsFields, redisFields, serviceSpec, str } from '@tonstream/runtime';

/** The emulator's environment variables (its README's table is rendered from these). */
export const EMULATOR_CONFIG = {
  ...kafkaFields,
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis holding pending traces' },
  redisPrefix: str('PENDING_REDIS_PREFIX', 'prefix of the pending trace keys in Redis; the API reads with the same one', 'tonstream:'),
  globalConfig: defaultFrom(
    str('EMULATOR_GLOBAL_CONFIG', 'TON global config file of the liteservers the state comes from (waited for if missing)', '.local/localnet/global.config.json'),
    (env) => env.FETCHER_GLOBAL_CONFIG ?? '.local/localnet/global.config.json',
    '`$FETCHER_GLOBAL_CONFIG`, else `.local/localnet/global.config.json`',
  ),
  ttlMs: int('EMULATOR_TTL_MS', 'how long (ms) a pending trace is served after emulation unless the confirmed one replaces it first', 60_000, { min: 1_000, max: 86_400_000 }),
  // `none` is accepted here (not a URL): confirmed traces are then not looked up.
  clickhouseUrl: str('CLICKHOUSE_URL', 'ClickHouse HTTP URL of the index, where confirmed traces replace pending ones (`none`: pending traces leave by TTL only)', 'http://127.0.0.1:8123'),
  clickhouseDatabase: clickhouseFields.clickhouseDatabase,
  clickhouseCluster: clickhouseFields.clickhouseCluster,
  clickhouseInsertQuorum: clickhouseFields.clickhouseInsertQuorum,
  maxTransactions: int('EMULATOR_MAX_TRANSACTIONS', 'transactions emulated per trace at most (toncenter\'s limit)', 256, { min: 1, max: 10_000 }),
  maxDepth: int('EMULATOR_MAX_DEPTH', 'depth of a trace emulated at most (toncenter\'s limit)', 32, { min: 0, max: 1_000 }),
  ratePerDestination: int('EMULATOR_RATE_PER_DESTINATION', 'admission: emulations per destination per window (toncenter: 3 per 10 s)', 3, { min: 1, max: 1_000_000 }),
  rateWindowMs: int('EMULATOR_RATE_WINDOW_MS', 'admission: the window of the per-destination rate (ms)', 10_000, { min: 1, max: 3_600_000 }),
  concurrency: int('EMULATOR_CONCURRENCY', 'externals emulated at once (liteserver round trips overlap; the executor itself is one thread)', 4, { min: 1, max: 64 }),
  ...metricsFields(9106),
  ...consumerGroupFields(10_000),
  ...logFields,
};

export type EmulatorConfig = ConfigOf<typeof EMULATOR_CONFIG>;

export const EMULATOR_SERVICE = serviceSpec('emulator', EMULATOR_CONFIG);
