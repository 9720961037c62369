/** The localnet process's configuration: environment variables (see README) and the `--reset` flag. */
import { isIPv4 } from 'node:net';
import { join } from 'node:path';
import { bool, ConfigError, type ConfigOf, type Field, int, loadConfig, logFields, metricsFields, type ServiceSpec, str } from '@tonstream/runtime';

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

/** The localnet's environment variables (its README's table is rendered from these). */
export const LOCALNET_CONFIG = {
  host: ipv4('LOCALNET_HOST', 'interface the liteserver listens on; an IPv4 address, as global configs hold (written into the global config)', '127.0.0.1'),
  port: int('LOCALNET_PORT', 'liteserver TCP port; `0` picks a free one (the global config tells which)', 46732, { min: 0, max: 65535 }),
  roundMs: int('LOCALNET_ROUND_MS', 'milliseconds between rounds of a new chain (its gen_utime advances with it); a restored chain keeps its own', 1000, { min: 10, max: 3_600_000 }),
  shards: shardCount('LOCALNET_SHARDS', 'basechain shards of a new chain', 2),
  keepRounds: int('LOCALNET_KEEP_ROUNDS', 'rounds of blocks and transactions a new chain keeps and serves (older ones answer 651, as from a liteserver that garbage-collected them); raise it to backfill a longer chain from 1, as from an archive node', 256, { min: 1, max: 1_000_000 }),
  keepStateRounds: int('LOCALNET_KEEP_STATE_ROUNDS', 'rounds of account states a new chain keeps for getAccountState at a block (states carry code, so fewer than blocks; older ones answer as garbage-collected)', 32, { min: 1, max: 1_000_000 }),
  seed: str('LOCALNET_SEED', 'seed of a new chain (zero state, block random seeds) and of its traffic (keys, choices)', 'tonstream'),
  trafficRate: int('LOCALNET_TRAFFIC_RATE', 'wallet actions the traffic generator starts per round; `0`: no traffic', 20, { min: 0, max: 10_000 }),
  trafficWallets: int('LOCALNET_TRAFFIC_WALLETS', 'genesis wallets the traffic spreads its actions over; `0`: 1.5 x the rate, at least 8 (more wallets: more distinct accounts, each less busy)', 0, { min: 0, max: 100_000 }),
  advertisedHost: { ...ipv4('LOCALNET_ADVERTISED_HOST', 'IPv4 address clients are told in the global config, when it differs from LOCALNET_HOST (e.g. the container\'s address when listening on 0.0.0.0)', ''), shownDefault: 'LOCALNET_HOST' },
  ledgerPath: str('LOCALNET_LEDGER', 'append one JSON line per round: every block with its transactions and their message hashes (read with @ton/core); the chain\'s own record for end-to-end checks (empty: off)', ''),
  ledgerAccounts: bool('LOCALNET_LEDGER_ACCOUNTS', 'with LOCALNET_LEDGER: each line also lists the accounts the round changed (address, status, balance, last transaction lt; read with @ton/core), the first line of a process every account', false),
  stopAtSeqno: int('LOCALNET_STOP_AT_SEQNO', 'stop producing rounds once the masterchain reaches this seqno and keep serving: a chain at rest for exact end-to-end checks (`0`: never)', 0, { min: 0 }),
  stateDir: str('LOCALNET_STATE_DIR', 'holds the snapshot, the chain\'s identity, the server key seed and by default the global config', '.local/localnet'),
  globalConfigPath: { ...str('LOCALNET_GLOBAL_CONFIG', 'where the global config for clients is written', ''), shownDefault: '`<state dir>/global.config.json`' },
  ...metricsFields(9104),
  logLevel: { ...logFields.logLevel, doc: 'least severe level logged; `debug` logs a line per round, `info` a progress line every 10 rounds' },
};

/** The localnet's config; `reset` is the `--reset` argument: start a new chain even if a snapshot exists. */
export type LocalnetConfig = ConfigOf<typeof LOCALNET_CONFIG> & { reset: boolean };

/** Builds the config; every bad variable or argument is reported at once in a ConfigError. */
export function loadLocalnetConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv.slice(2)): LocalnetConfig {
  const unknown = argv.filter((a) => !(FLAGS as readonly string[]).includes(a));
  let values;
  try {
    values = loadConfig(LOCALNET_CONFIG, env);
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

export const LOCALNET_SERVICE: ServiceSpec<LocalnetConfig> = { name: 'localnet', fields: LOCALNET_CONFIG, load: loadLocalnetConfig };
