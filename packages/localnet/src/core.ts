import { hash as oneShotHash } from 'node:crypto';
import { Address, type Cell as CoreCell, Dictionary } from '@ton/core';
import type { Blockchain } from '@ton/sandbox';
import { type Cell, cellFromBoc } from '@tonstream/block';
import type { ChainTip } from './block-producer.js';
import { createEmulator, type Emulator } from './emulator.js';
import type { QueuedMessage } from './execution.js';
import { createHistory, type History } from './history.js';
import { LocalnetError } from './errors.js';
import { MASTERCHAIN, ROOT_SHARD, shardOfAccount } from './shards.js';
import { createStateHistory, type StateHistory } from './state-history.js';
import type { BlockIdExt, LocalnetLogger, StoredBlock } from './types.js';
import type { RoundResult } from './round.js';
import type { ValidatorKeys } from './validators.js';

/** Options a chain keeps for its whole life (also saved in snapshots). */
export type ChainSettings = {
  seed: string;
  roundMs: number;
  shards: number;
  /** Unix time (s) of the zerostate (the validator set's utime_since); rounds are timed by `clock`. */
  genesisUtime: number;
  /**
   * Where round times count from: round r has gen_utime utime + floor((r - seqno) * roundMs / 1000).
   * Absent: { seqno: 0, utime: genesisUtime }. A restore moves it to the wall clock (`resumedClock`).
   */
  clock?: ChainClock;
  historyRounds: number;
  stateHistoryRounds: number;
  globalId: number;
  /** Validators signing the masterchain (config param 34); absent in chains made before they existed. */
  validators?: number;
};

/** What the config says about the chain, read once. */
export type ConfigFacts = {
  configAddr: string;
  electorAddr: string;
  globalId?: number;
  genSoftware?: { version: number; capabilities: bigint };
  /** The config dictionary as a block-builder cell, for the key block. */
  params: Cell;
};

/** Mutable state of one chain, shared by the round producer, the queries and the snapshot. */
export type ChainCore = {
  settings: ChainSettings;
  bc: Blockchain;
  emu: Emulator;
  logger: LocalnetLogger;
  config: ConfigFacts;
  shards: bigint[];
  history: History;
  states: StateHistory;
  /** First masterchain seqno whose account states are still known. */
  stateFloor: number;
  mcTip: ChainTip;
  shardTips: Map<bigint, ChainTip>;
  keyBlock?: BlockIdExt;
  /** The key block itself, kept past the history (forward proof links start from it), as liteservers keep key blocks. */
  keyBlockData?: StoredBlock;
  /** The validator set and its keys (derived from the seed); undefined for chains made without one. */
  validators?: ValidatorKeys;
  /** Internal messages for the next round, by destination chain key. */
  queues: Map<string, QueuedMessage[]>;
  /** Submitted externals for the next round, by destination chain key. */
  externals: Map<string, QueuedMessage[]>;
  listeners: Set<(r: RoundResult) => void>;
  /** Serializes rounds, funding and snapshots. */
  lock: <T>(fn: () => Promise<T>) => Promise<T>;
};

export function newCore(d: Omit<ChainCore, 'emu' | 'history' | 'states' | 'stateFloor' | 'queues' | 'externals' | 'listeners' | 'lock' | 'config'>): ChainCore {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    ...d,
    emu: createEmulator(d.bc),
    config: readConfig(d.bc.config),
    history: createHistory(d.settings.historyRounds),
    states: createStateHistory(),
    stateFloor: 1,
    queues: new Map(),
    externals: new Map(),
    listeners: new Set(),
    lock: <T>(fn: () => Promise<T>) => {
      const run = tail.then(fn, fn);
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

/** The key of the chain (masterchain or basechain shard) that holds an account. */
export function chainKeyOf(core: ChainCore, workchain: number, addressHash: string): string {
  if (workchain === MASTERCHAIN) return chainKey(MASTERCHAIN, ROOT_SHARD);
  if (workchain !== 0) throw new LocalnetError('bad_request', `workchain ${workchain} does not exist here (only -1 and 0)`);
  return chainKey(0, shardOfAccount(core.shards, addressHash));
}

export function chainKey(workchain: number, shard: bigint): string {
  return `${workchain}:${shard}`;
}

/** Reads config params 0 (config address), 1 (elector address), 8 (global version) and 19 (global id). */
export function readConfig(config: CoreCell): ConfigFacts {
  const dict = Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), config);
  const hash = (n: number) => {
    const c = dict.get(n);
    if (!c) throw new LocalnetError('failed', `config param ${n} is missing`);
    return c.beginParse().loadBuffer(32).toString('hex');
  };
  const p8 = dict.get(8)?.beginParse();
  const genSoftware = p8 && p8.loadUint(8) === 0xc4 ? { version: p8.loadUint(32), capabilities: p8.loadUintBig(64) } : undefined;
  return {
    configAddr: hash(0),
    electorAddr: hash(1),
    globalId: dict.get(19)?.beginParse().loadInt(32),
    genSoftware,
    params: cellFromBoc(config.toBoc()),
  };
}

/** A block's 32-byte rand_seed, reproducible from the chain seed. */
export function blockRandSeed(seed: string, workchain: number, shard: bigint, seqno: number): Uint8Array {
  return oneShotHash('sha256', `tonstream-localnet:${seed}:rand:${workchain}:${shard.toString(16)}:${seqno}`, 'buffer');
}

export function createdBy(seed: string): string {
  return oneShotHash('sha256', `tonstream-localnet:${seed}:validator`, 'hex');
}

/** Parses a raw (`0:ab..`) or user-friendly address. */
export function parseAddress(address: string | Address): Address {
  if (typeof address !== 'string') return address;
  try {
    return Address.parse(address);
  } catch (err) {
    throw new LocalnetError('bad_request', `not an address: ${address}`, { cause: err });
  }
}

export function rawOf(a: Address): string {
  return `${a.workChain}:${a.hash.toString('hex')}`;
}

export type ChainClock = { seqno: number; utime: number };

/** gen_utime of masterchain round `mcSeqno` (and of its shard blocks), for rounds since the clock's start. */
export function utimeOf(s: ChainSettings, mcSeqno: number): number {
  const start = s.clock ?? { seqno: 0, utime: s.genesisUtime };
  return start.utime + Math.floor(((mcSeqno - start.seqno) * s.roundMs) / 1000);
}

/**
 * The clock of a chain restored at unix time `now` after round `lastSeqno`: the next round is at the
 * wall clock, so a chain stopped for an hour does not stay an hour behind, but never before the time
 * the old clock gives it (block times never go back, whatever the wall clock does).
 */
export function resumedClock(s: ChainSettings, lastSeqno: number, now: number): ChainClock {
  const next = lastSeqno + 1;
  return { seqno: next, utime: Math.max(now, utimeOf(s, next)) };
}
