/** The localnet process's configuration: environment variables (see README) and the `--reset` flag. */
import { isIPv4 } from 'node:net';
import { join } from 'node:path';
import { ConfigError, type Field, int, loadConfig, LOG_LEVELS, type LogLevel, oneOf, str } from '@tonstream/runtime';

export type LocalnetConfig = {
  /** Interface the liteserver listens on; an IPv4 address, as global configs hold. @default 127.0.0.1 */
  host: string;
  /** Liteserver TCP port; 0 picks a free one (the global config tells which). @default 46732 */
  port: number;
  /** Time between rounds; a new chain's gen_utime advances with it. A restored chain keeps its own. @default 1000 */
  roundMs: number;
  /** Basechain shards of a new chain, a power of two up to 256. @default 2 */
  shards: number;
  /** Seeds a new chain (zero state, block random seeds) and its traffic (keys, choices). @default tonstream */
  seed: string;
  /** Wallet actions the traffic generator starts per round; 0 turns it off. @default 20 */
  trafficRate: number;
  /** Genesis wallets the traffic spreads its actions over; 0: 1.5 x the rate, at least 8. @default 0 */
  trafficWallets: number;
  /** Holds the snapshot, the chain's identity, the server key seed and by default the global config. @default .local/localnet */
  stateDir: string;
  /** Where the global config for clients is written. @default <stateDir>/global.config.json */
  globalConfigPath: string;
  /** Address clients are told in the global config, when it differs from `host` (e.g. 0.0.0.0 in a container). @default host */
  advertisedHost: string;
  /** JSON-lines record of every block, transaction and message produced; empty: off. @default '' */
  ledgerPath: string;
  /** Stop producing rounds once the masterchain reaches this seqno and keep serving (0: never). @default 0 */
  stopAtSeqno: number;
  metricsHost: string;
  /** @default 9104 */
  metricsPort: number;
  logLevel: LogLevel;
  /** `--reset`: start a new chain even if a snapshot exists. */
  reset: boolean;
};

/** Files in the state directory. */
export const STATE_FILES = {
  snapshot: 'snapshot.json',
  /** The chain's seed and zero state, written when the chain is created. */
  chain: 'chain.json',
  /** 32 bytes hex: the liteserver's ed25519 seed, kept across resets so clients' global config stays valid. */
  serverKey: 'liteserver-key.hex',
  globalConfig: 'global.config.json',
  /** The prefunded wallets: mnemonic, version, address and balance at start (public test keys). */
  wallets: 'wallets.json',
} as const;

const FLAGS = ['--reset'] as const;

function ipv4(env: string, doc: string, def: string): Field<string> {
  return {
    env,
    doc,
    default: def,
    accepts: 'an IPv4 address',
    parse: (raw) => {
      if (!isIPv4(raw)) throw new Error('not an IPv4 address');
      return raw;
    },
  };
}

function shardCount(env: string, doc: string, def: number): Field<number> {
  const base = int(env, doc, def, { min: 1, max: 256 });
  return {
    ...base,
    accepts: 'a power of two from 1 to 256',
    parse: (raw) => {
      const n = base.parse(raw);
      if ((n & (n - 1)) !== 0) throw new Error('not a power of two');
      return n;
    },
  };
}

const spec = {
  host: ipv4('LOCALNET_HOST', 'interface the liteserver listens on', '127.0.0.1'),
  port: int('LOCALNET_PORT', 'liteserver TCP port (0: any free port)', 46732, { min: 0, max: 65535 }),
  roundMs: int('LOCALNET_ROUND_MS', 'milliseconds between rounds of a new chain', 1000, { min: 10, max: 3_600_000 }),
  shards: shardCount('LOCALNET_SHARDS', 'basechain shards of a new chain', 2),
  seed: str('LOCALNET_SEED', 'seed of a new chain and of its traffic', 'tonstream'),
  trafficRate: int('LOCALNET_TRAFFIC_RATE', 'wallet actions per round (0: no traffic)', 20, { min: 0, max: 10_000 }),
  trafficWallets: int('LOCALNET_TRAFFIC_WALLETS', 'wallets the traffic spreads over (0: 1.5 x the rate, at least 8)', 0, { min: 0, max: 100_000 }),
  stateDir: str('LOCALNET_STATE_DIR', 'directory for the snapshot, chain identity and server key', '.local/localnet'),
  globalConfigPath: str('LOCALNET_GLOBAL_CONFIG', 'global config path (empty: <state dir>/global.config.json)', ''),
  advertisedHost: ipv4('LOCALNET_ADVERTISED_HOST', 'IPv4 address written into the global config (empty: LOCALNET_HOST)', ''),
  ledgerPath: str('LOCALNET_LEDGER', 'append a JSON line per round with every block, transaction and message hash (empty: off)', ''),
  stopAtSeqno: int('LOCALNET_STOP_AT_SEQNO', 'masterchain seqno after which no more rounds are produced; the liteserver keeps serving (0: never)', 0, { min: 0 }),
  metricsHost: str('METRICS_HOST', 'interface of /metrics and /healthcheck', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9104, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'least severe level logged', LOG_LEVELS, 'info'),
};

/** Builds the config; every bad variable or argument is reported at once in a ConfigError. */
export function loadLocalnetConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): LocalnetConfig {
  const unknown = argv.filter((a) => !(FLAGS as readonly string[]).includes(a));
  let values;
  try {
    values = loadConfig(spec, env);
  } catch (err) {
    if (err instanceof ConfigError && unknown.length > 0) throw new ConfigError([...err.problems, unknownArgs(unknown)]);
    throw err;
  }
  if (unknown.length > 0) throw new ConfigError([unknownArgs(unknown)]);
  return { ...values, globalConfigPath: values.globalConfigPath || join(values.stateDir, STATE_FILES.globalConfig), reset: argv.includes('--reset') };
}

function unknownArgs(args: string[]): string {
  return `unknown argument${args.length > 1 ? 's' : ''} ${args.join(' ')}; accepted: ${FLAGS.join(', ')}`;
}
