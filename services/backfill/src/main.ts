/**
 * `npm run backfill -- --from A --to B --lanes N [--overlap K] [--log-dir DIR]`: fills the index's
 * history [A .. B] in N lanes (backfill.ts). Defaults: A 1, B the seqno below the history floor. The
 * lanes' processes get this process's environment (KAFKA_*, CLICKHOUSE_*, REDIS_URL,
 * FETCHER_GLOBAL_CONFIG ...). Logs on stderr (each lane's processes under the log dir), a JSON summary
 * on stdout. Started again with the same range it resumes: complete lanes are skipped, the others go
 * on from their checkpoints and offsets.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createKafka } from '@tonstream/bus';
import { clickhouseFields, clickhouseOptions, ConfigError, createLogger, kafkaFields, loadConfig, logFields } from '@tonstream/runtime';
import { createStore, migrate, readHistoryFloor } from '@tonstream/store';
import { runBackfill } from './backfill.js';

const USAGE = 'usage: npm run backfill -- [--from A] [--to B] [--lanes N] [--overlap K] [--log-dir DIR]';
const CONFIG = { ...kafkaFields, ...clickhouseFields, ...logFields };
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const positive = (text: string | undefined, fallback: number | null, name: string, min = 1): number | null => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw new ConfigError([`--${name}: expected an integer >= ${min}, got ${JSON.stringify(text)}`]);
  return n;
};

async function main(): Promise<number> {
  let args;
  let config;
  try {
    args = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' }, lanes: { type: 'string' }, overlap: { type: 'string' }, 'log-dir': { type: 'string' } } }).values;
    config = loadConfig(CONFIG);
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, write: (line) => process.stderr.write(`${line}\n`), bindings: { service: 'backfill' } });
  const store = createStore(clickhouseOptions(config));
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-backfill', logger: logger.child({ module: 'kafka' }) });
  const admin = kafka.admin();
  try {
    let from, to, lanes, overlap;
    try {
      from = positive(args.from, 1, 'from')!;
      to = positive(args.to, null, 'to');
      lanes = positive(args.lanes, 2, 'lanes')!;
      overlap = positive(args.overlap, 16, 'overlap', 0)!;
      if (to === null) {
        const floor = await readHistoryFloor(store);
        if (floor === null) throw new ConfigError(['--to is needed: the index has no history floor yet (start the index first)']);
        to = floor - 1;
      }
      if (to < from) throw new ConfigError([`nothing to fill: --to ${to} is below --from ${from}`]);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      console.error(`${err.message}\n${USAGE}`);
      return 2;
    }
    // The index's schema (its writer made it; a backfill into a new database makes it here).
    await migrate(store);
    await admin.connect();
    // A stop signal stops every lane's processes; a later run with the same range resumes.
    const stop = new AbortController();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
    let result;
    try {
      result = await runBackfill({ from, to, lanes, overlap, basePrefix: config.topicPrefix, store, admin, root: ROOT, logDir: args['log-dir'] ?? '.local/backfill', env: process.env, logger, signal: stop.signal });
    } catch (err) {
      if (!stop.signal.aborted) throw err;
      logger.info('backfill stopped: its lanes resume when it is started again with the same range');
      return 143;
    }
    const transactions = result.lanes.reduce((n, l) => n + l.transactions, 0);
    const holes = result.lanes.flatMap((l) => l.holes);
    console.log(JSON.stringify({ from, to, lanes: result.lanes.length, seconds: result.seconds, transactions, tx_per_s: Math.round(transactions / result.seconds), floor: result.floor, holes, lane_results: result.lanes.map((l) => ({ from: l.from_seqno, to: l.to_seqno, transactions: l.transactions, seconds: l.seconds, restarts: l.restarts, skipped: l.skipped })) }));
    return holes.length > 0 ? 1 : 0;
  } finally {
    await admin.disconnect();
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
