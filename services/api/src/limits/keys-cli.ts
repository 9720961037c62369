import type { KeyStore, StoredKey } from '@tonstream/store';
import { TonstreamError } from '@tonstream/errors';

/** The limit a key gets when `create` is not given `--rps`: toncenter's free plan. */
export const DEFAULT_KEY_RPS = 10;
/** Characters of a key's hash `list` shows; enough to revoke it by. */
const SHOWN_HASH_CHARS = 16;

export const KEYS_USAGE = `usage: npm run keys -- <command>
  create [--rps N] [--label TEXT] [--json]   a new key (printed once; only its sha256 is stored); --rps default ${DEFAULT_KEY_RPS}
  list [--json]                              every key: hash prefix, rps, label, created
  revoke <key | hash prefix>                 removes a key (given in full, or at least 8 hex of its hash)
Redis: REDIS_URL (default redis://127.0.0.1:6379), API_REDIS_PREFIX (default tonstream:api:)`;

export type KeysCommand =
  | { command: 'create'; rps: number; label: string; json: boolean }
  | { command: 'list'; json: boolean }
  | { command: 'revoke'; target: string; json: boolean };

export class UsageError extends TonstreamError {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(`${message}\n${KEYS_USAGE}`);
  }
}

/** Parses `create|list|revoke` and their options; anything unexpected is a UsageError naming it. */
export function parseKeysArgs(args: readonly string[]): KeysCommand {
  const [command, ...rest] = args;
  const options = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--json') options.set('json', true);
    else if (arg === '--rps' || arg === '--label') {
      if (i + 1 >= rest.length) throw new UsageError(`${arg} needs a value`);
      options.set(arg.slice(2), rest[++i]);
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const json = options.get('json') === true;
  const allowOnly = (allowed: string[], positionals: number) => {
    for (const key of options.keys()) if (!allowed.includes(key)) throw new UsageError(`${command} takes no --${key}`);
    if (positional.length !== positionals) throw new UsageError(`${command} takes ${positionals} argument(s), got ${positional.length}`);
  };
  switch (command) {
    case 'create': {
      allowOnly(['rps', 'label', 'json'], 0);
      const rpsText = options.get('rps');
      const rps = typeof rpsText === 'string' ? Number(rpsText) : DEFAULT_KEY_RPS;
      if (typeof rpsText === 'string' && !/^\d+$/.test(rpsText)) throw new UsageError(`--rps must be a positive integer, got "${rpsText}"`);
      const label = options.get('label');
      return { command, rps, label: typeof label === 'string' ? label : '', json };
    }
    case 'list':
      allowOnly(['json'], 0);
      return { command, json };
    case 'revoke':
      allowOnly(['json'], 1);
      return { command, target: positional[0], json };
    default:
      throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${command}"`);
  }
}

function describe(key: StoredKey): string {
  return `${key.hash.slice(0, SHOWN_HASH_CHARS)}  rps ${key.rps}  created ${key.created_at}  label ${JSON.stringify(key.label)}`;
}

/** Runs a parsed command against the key store; returns what to print. */
export async function runKeysCommand(store: KeyStore, cmd: KeysCommand): Promise<string> {
  switch (cmd.command) {
    case 'create': {
      const { key, record } = await store.create({ rps: cmd.rps, label: cmd.label });
      if (cmd.json) return JSON.stringify({ key, ...record });
      return `${key}\nThe key above is shown once: only its sha256 is stored.\n${describe(record)}`;
    }
    case 'list': {
      const keys = await store.list();
      if (cmd.json) return JSON.stringify(keys);
      return keys.length === 0 ? 'no keys' : keys.map(describe).join('\n');
    }
    case 'revoke': {
      const revoked = await store.revoke(cmd.target);
      return cmd.json ? JSON.stringify(revoked) : `revoked ${describe(revoked)}`;
    }
  }
}
