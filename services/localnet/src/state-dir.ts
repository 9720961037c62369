/** The small files of the state directory besides the chain snapshot (see STATE_FILES). */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { TonstreamError } from '@tonstream/errors';

/** What a chain's creation fixed that the process needs again after a restore. */
export type ChainIdentity = {
  /** The seed the chain and its traffic were created with; the traffic's keys derive from it. */
  seed: string;
  createdAt: string;
};

export class StateFileError extends TonstreamError {
  readonly code = 'STATE_FILE_INVALID';
}

/** The liteserver's 32-byte ed25519 seed: read, or made and saved (mode 0600) on first use. */
export function loadOrCreateKeySeed(path: string): Buffer {
  if (existsSync(path)) {
    const seed = Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
    if (seed.length !== 32) throw new StateFileError(`${path} must hold 64 hex digits (an ed25519 seed); delete it to make a new server key`);
    return seed;
  }
  const seed = randomBytes(32);
  writeFileSync(path, seed.toString('hex') + '\n', { mode: 0o600 });
  return seed;
}

export function readChainIdentity(path: string): ChainIdentity | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as ChainIdentity;
    if (typeof v.seed !== 'string') throw new Error('no seed');
    return v;
  } catch (err) {
    throw new StateFileError(`${path} is not a chain identity file: ${(err as Error).message}`, { cause: err });
  }
}

export function writeChainIdentity(path: string, identity: ChainIdentity): void {
  writeFileSync(path, JSON.stringify(identity, null, 2) + '\n');
}
