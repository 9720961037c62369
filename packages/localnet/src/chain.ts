import type { Address, TupleItem } from '@ton/core';
import { Blockchain } from '@ton/sandbox';
import { loadMessage, loadShardAccount, loadTransaction, parseBoc, Slice } from '@tonstream/block';
import { type ChainTip, zerostateTip } from './block-producer.js';
import { type ChainCore, chainKeyOf, newCore, parseAddress, rawOf, utimeOf } from './core.js';
import { coreAddress } from './emulator.js';
import { LocalnetError } from './errors.js';
import { type GetMethodOutput, runGetMethodOn } from './get-method.js';
import type { BlockLookup } from './history.js';
import { enqueue, produceRound, type RoundResult } from './round.js';
import { basechainShards, MASTERCHAIN, ROOT_SHARD, sameBlock, shardOfAccount } from './shards.js';
import { deployAtGenesis, PREFUNDED_BALANCE, PREFUNDED_WALLETS, type PrefundedWallet } from './prefunded.js';
import { writeSnapshot } from './snapshot.js';
import { deployTickTockStub } from './ticktock.js';
import { configWithValidators, DEFAULT_VALIDATORS, deriveValidators, type ValidatorSet } from './validators.js';
import { type BlockIdExt, type BlockRef, type LocalnetLogger, silentLogger, type StoredBlock, type TxRecord } from './types.js';

export const DEFAULT_ROUND_MS = 1000;
export const DEFAULT_SHARDS = 2;
/** Rounds of blocks and transactions kept in memory (about 4 minutes at one round a second). */
export const DEFAULT_HISTORY_ROUNDS = 256;
/** Rounds of account states kept for `getAccountState(address, atBlock)`; states carry code, so fewer. */
export const DEFAULT_STATE_HISTORY_ROUNDS = 32;

export type ChainOptions = {
  /** Makes block random seeds and zerostate hashes reproducible; any string. */
  seed: string;
  /** Time between rounds; gen_utime advances by it (in whole seconds). Default 1000. */
  roundMs?: number;
  /** Basechain shards, a power of two up to 256. Default 2. */
  shards?: number;
  /** Unix time (s) of the zerostate; round r gets now + floor(r * roundMs / 1000). Default: the wall clock. */
  now?: number;
  /** Rounds of blocks kept in memory. Default 256. */
  historyRounds?: number;
  /** Rounds of account states kept for historical queries. Default 32. */
  stateHistoryRounds?: number;
  /** global_id of the blocks. Default: config param 19 of the sandbox's (mainnet) config. */
  globalId?: number;
  /** Validators in config param 34 signing every masterchain block (keys derived from the seed). Default 4. */
  validators?: number;
  /** Wallets deployed and funded in the first block. Default PREFUNDED_WALLETS; [] for none. */
  prefundedWallets?: readonly PrefundedWallet[];
  /** Each prefunded wallet's starting balance in nanotons. Default PREFUNDED_BALANCE (10,000 TON). */
  prefundedBalance?: bigint;
  logger?: LocalnetLogger;
};

/** An account's state as of a block. */
export type AccountState = {
  /** Raw address, `wc:hex`. */
  address: string;
  /** BoC of the ShardAccount: the Account (or account_none) with its last transaction lt and hash. */
  shardAccountBoc: Uint8Array;
  status: 'nonexist' | 'uninit' | 'active' | 'frozen';
  balance: bigint;
  lastTxLt: bigint;
  lastTxHash: string;
  /** The masterchain block the state was asked at, and the account's shard block of that round. */
  block: BlockIdExt;
  shardBlock: BlockIdExt;
};

/** An account of a shard state: its address hash (hex), balance and ShardAccount BoC. */
export type ShardStateAccount = { addressHash: string; balance: bigint; shardAccountBoc: Uint8Array };

export type SubmittedMessage = { hash: string; workchain: number; shard: bigint };

export type Chain = {
  readonly shards: readonly bigint[];
  readonly roundMs: number;
  /** The sandbox that holds the accounts (for tests and tools; the chain drives its lt and time). */
  readonly sandbox: Blockchain;
  /** The last masterchain block. */
  head(): BlockIdExt;
  /** gen_utime the next round will have: the chain time an external submitted now executes at. */
  nextUtime(): number;
  /** The (made-up) masterchain zerostate the first block links to: liteServer.masterchainInfo's `init`. */
  zerostate(): BlockIdExt;
  /** A kept block (the key block is always kept), or undefined (also when `rootHash` is given and differs). */
  getBlock(ref: BlockRef): StoredBlock | undefined;
  /** By seqno, by an lt (the block containing it, or the next), or by time (the last block at or before it). */
  lookupBlock(workchain: number, shard: bigint, by: BlockLookup): StoredBlock | undefined;
  /** The shard blocks a masterchain block commits in its ShardHashes. */
  shardsAt(mcSeqno: number): StoredBlock[] | undefined;
  getAccountState(address: string | Address, atBlock?: BlockRef): Promise<AccountState>;
  /**
   * Every account of the block's shard that exists after the block's round (account_none left
   * out), by address hash: what the shard state's ShardAccounts holds. Answerable for the last
   * `stateHistoryRounds` rounds, as getAccountState.
   */
  shardAccountsAt(block: BlockRef): Promise<ShardStateAccount[]>;
  /** Up to `count` transactions of the account, newest first, from (lt, hash) along prev links. */
  getTransactions(address: string | Address, lt: bigint, hash: string, count: number): TxRecord[];
  getTransaction(address: string | Address, lt: bigint): TxRecord | undefined;
  getTransactionByHash(hash: string): TxRecord | undefined;
  listBlockTransactions(ref: BlockRef): TxRecord[];
  /** Runs a get method on the account as of `atBlock` (default: the head). */
  runGetMethod(address: string | Address, method: string | number, stack?: TupleItem[], atBlock?: BlockRef): Promise<GetMethodOutput & { block: BlockIdExt; shardBlock: BlockIdExt }>;
  /** The validator set of config param 34 (public parts); undefined for a chain made without one. */
  validatorSet(): ValidatorSet | undefined;
  /** The config dictionary (BoC of the Hashmap 32 ^Cell root) and the key block carrying it. */
  config(): { boc: Uint8Array; configAddr: string; keyBlock: BlockIdExt | undefined };
  /** Queues an external-in message (BoC) for the next round. */
  submitExternal(boc: Uint8Array): SubmittedMessage;
  /**
   * What a liteserver's sendMessage does before it takes an external: runs it on the destination's
   * current state (the next round's time), nothing committed, and refuses it, as a node would, when
   * the account does not accept it (a bad signature or seqno, an expired message, no funds).
   */
  checkExternal(boc: Uint8Array): Promise<void>;
  /** Credits an account outside any transaction, as a zerostate does (creates an uninit account). */
  fund(address: string | Address, nanotons: bigint): Promise<void>;
  produceRound(): Promise<RoundResult>;
  onRound(listener: (r: RoundResult) => void): () => void;
  /** Messages waiting for the next round. */
  pending(): { internal: number; external: number };
  /**
   * liteServer.getOutMsgQueueSizes: the internal messages waiting for delivery, by the block that
   * created them, masterchain first. Every message waits exactly one round, so these are the
   * messages of the last round's blocks (read from the blocks: right while the next round runs).
   */
  outMsgQueueSizes(): { block: BlockIdExt; size: number }[];
  /** Writes the sandbox state, the kept blocks and the queues as JSON; `restoreChain` continues from it. */
  snapshot(path: string): Promise<void>;
};

/** Creates a chain and produces its first round (masterchain key block 1 with the config). */
export async function createChain(options: ChainOptions): Promise<Chain> {
  const roundMs = options.roundMs ?? DEFAULT_ROUND_MS;
  if (!Number.isInteger(roundMs) || roundMs <= 0) throw new LocalnetError('bad_request', `roundMs must be a positive integer, not ${roundMs}`);
  const shards = basechainShards(options.shards ?? DEFAULT_SHARDS);
  const bc = await Blockchain.create();
  const genesisUtime = options.now ?? Math.floor(Date.now() / 1000);
  bc.now = genesisUtime;
  const seed = options.seed;
  const validatorCount = options.validators ?? DEFAULT_VALIDATORS;
  const validators = deriveValidators(seed, validatorCount, genesisUtime);
  bc.setConfig(configWithValidators(bc.config, validators.set));
  const shardTips = new Map<bigint, ChainTip>(shards.map((s) => [s, zerostateTip(seed, 0, s)]));
  const core = newCore({
    settings: {
      seed,
      roundMs,
      shards: shards.length,
      genesisUtime,
      historyRounds: options.historyRounds ?? DEFAULT_HISTORY_ROUNDS,
      stateHistoryRounds: Math.max(1, options.stateHistoryRounds ?? DEFAULT_STATE_HISTORY_ROUNDS),
      globalId: 0,
      validators: validatorCount,
    },
    bc,
    logger: options.logger ?? silentLogger,
    shards,
    mcTip: zerostateTip(seed, MASTERCHAIN, ROOT_SHARD),
    shardTips,
    validators,
  });
  core.settings.globalId = options.globalId ?? core.config.globalId ?? -239;
  for (const hash of [core.config.configAddr, core.config.electorAddr]) await deployTickTockStub(bc, coreAddress(MASTERCHAIN, hash));
  await deployAtGenesis(core, options.prefundedWallets ?? PREFUNDED_WALLETS, options.prefundedBalance ?? PREFUNDED_BALANCE);
  const chain = chainApi(core);
  await chain.produceRound();
  return chain;
}

/** The public face of a chain core (also used by `restoreChain`). */
export function chainApi(core: ChainCore): Chain {
  const head = () => core.mcTip.id;
  const blockOrThrow = (ref: BlockRef): StoredBlock => {
    const b = core.history.get(ref);
    if (!b) throw new LocalnetError('not_found', `block ${ref.workchain}:${ref.shard.toString(16)}:${ref.seqno} is not kept`);
    return b;
  };
  /** The round a block belongs to, and the account's block in that round. */
  const position = (account: { workChain: number; hash: Buffer }, atBlock?: BlockRef) => {
    const mcSeqno = atBlock ? blockOrThrow(atBlock).mcSeqno : core.mcTip.id.seqno;
    const round = core.history.round(mcSeqno);
    if (!round) throw new LocalnetError('not_found', `round ${mcSeqno} is not kept`);
    chainKeyOf(core, account.workChain, account.hash.toString('hex')); // rejects unknown workchains
    const shard = account.workChain === MASTERCHAIN ? undefined : shardOfAccount(core.shards, account.hash.toString('hex'));
    const shardBlock = shard === undefined ? round.mc : round.shards.find((b) => b.id.shard === shard)!;
    return { mcSeqno, mc: round.mc.id, genUtime: round.mc.genUtime, shardBlock: shardBlock.id };
  };
  const stateAt = async (a: Address, mcSeqno: number): Promise<string> => {
    if (mcSeqno < core.stateFloor) throw new LocalnetError('not_found', `account states are kept for the last ${core.settings.stateHistoryRounds} rounds; round ${mcSeqno} is older`);
    const s = core.states.at(rawOf(a), mcSeqno);
    return s === 'current' ? core.emu.shardAccount(a) : s;
  };

  return {
    shards: core.shards,
    roundMs: core.settings.roundMs,
    sandbox: core.bc,
    head,
    nextUtime: () => utimeOf(core.settings, core.mcTip.id.seqno + 1),
    zerostate: () => zerostateTip(core.settings.seed, MASTERCHAIN, ROOT_SHARD).id,
    getBlock: (ref) => core.history.get(ref) ?? (core.keyBlockData && sameBlock(core.keyBlockData.id, ref) ? core.keyBlockData : undefined),
    lookupBlock: (workchain, shard, by) => {
      const key = core.keyBlockData;
      const isKey = key && workchain === MASTERCHAIN && 'seqno' in by && by.seqno === key.id.seqno;
      return core.history.lookup(workchain, shard, by) ?? (isKey ? key : undefined);
    },
    shardsAt: (mcSeqno) => core.history.round(mcSeqno)?.shards,
    async getAccountState(address, atBlock) {
      const a = parseAddress(address);
      const pos = position(a, atBlock);
      const b64 = await stateAt(a, pos.mcSeqno);
      const bytes = Buffer.from(b64, 'base64');
      const table = parseBoc(bytes);
      const sa = loadShardAccount(new Slice(table, table.roots[0], 'ShardAccount'));
      const acc = sa.account;
      return {
        address: rawOf(a),
        shardAccountBoc: bytes,
        status: acc.type === 'none' ? 'nonexist' : acc.state.type,
        balance: acc.type === 'none' ? 0n : acc.balance.grams,
        lastTxLt: sa.lastTransLt,
        lastTxHash: sa.lastTransHash,
        block: pos.mc,
        shardBlock: pos.shardBlock,
      };
    },
    shardAccountsAt: (ref) =>
      // Under the round lock: an account's 'current' state must not move between the reads.
      core.lock(async () => {
        const b = blockOrThrow(ref);
        if (b.mcSeqno < core.stateFloor) throw new LocalnetError('not_found', `account states are kept for the last ${core.settings.stateHistoryRounds} rounds; round ${b.mcSeqno} is older`);
        const out: ShardStateAccount[] = [];
        for (const a of core.emu.knownAddresses()) {
          if (a.workChain !== b.id.workchain) continue;
          const hashHex = a.hash.toString('hex');
          if (a.workChain !== MASTERCHAIN && shardOfAccount(core.shards, hashHex) !== b.id.shard) continue;
          const s = core.states.at(rawOf(a), b.mcSeqno);
          const bytes = Buffer.from(s === 'current' ? await core.emu.shardAccount(a) : s, 'base64');
          const table = parseBoc(bytes);
          const acc = loadShardAccount(new Slice(table, table.roots[0], 'ShardAccount')).account;
          if (acc.type === 'none') continue;
          out.push({ addressHash: hashHex, balance: acc.balance.grams, shardAccountBoc: bytes });
        }
        return out.sort((x, y) => (x.addressHash < y.addressHash ? -1 : x.addressHash > y.addressHash ? 1 : 0));
      }),
    getTransactions(address, lt, hash, count) {
      const account = rawOf(parseAddress(address));
      const out: TxRecord[] = [];
      let tx = core.history.txByLt(account, lt);
      if (!tx || tx.hash !== hash.toLowerCase()) throw new LocalnetError('not_found', `transaction ${account} lt ${lt} hash ${hash} is not kept`);
      while (tx && out.length < count) {
        out.push(tx);
        const prev: TxRecord | undefined = tx.prevLt === 0n ? undefined : core.history.txByLt(account, tx.prevLt);
        tx = prev && prev.hash === tx.prevHash ? prev : undefined;
      }
      return out;
    },
    getTransaction: (address, lt) => core.history.txByLt(rawOf(parseAddress(address)), lt),
    getTransactionByHash: (hash) => core.history.txByHash(hash),
    listBlockTransactions: (ref) => blockOrThrow(ref).transactions,
    async runGetMethod(address, method, stack = [], atBlock) {
      const a = parseAddress(address);
      const pos = position(a, atBlock);
      const b64 = await stateAt(a, pos.mcSeqno);
      const randomSeed = Buffer.from(core.history.get(pos.mc)?.id.rootHash ?? '00'.repeat(32), 'hex');
      const out = await runGetMethodOn(core.bc, b64, method, stack, { now: pos.genUtime, randomSeed });
      return { ...out, block: pos.mc, shardBlock: pos.shardBlock };
    },
    validatorSet: () => core.validators?.set,
    config: () => ({ boc: core.bc.config.toBoc(), configAddr: core.config.configAddr, keyBlock: core.keyBlock }),
    checkExternal: (boc) =>
      core.lock(async () => {
        let msg;
        try {
          const table = parseBoc(boc);
          msg = loadMessage(new Slice(table, table.roots[0], 'Message'));
        } catch (err) {
          throw new LocalnetError('bad_request', 'not a message BoC', { cause: err });
        }
        if (msg.info.type !== 'external-in' || msg.info.dest.type !== 'std') return; // submitExternal refuses it
        const dest = coreAddress(msg.info.dest.workchain, msg.info.dest.hash);
        const now = utimeOf(core.settings, core.mcTip.id.seqno + 1);
        const r = await core.emu.wouldAccept(dest, boc, { lt: 0n, now, randomSeed: new Uint8Array(32) });
        if (!r.ok) {
          const code = r.exitCode === undefined ? '' : `, exit code ${r.exitCode}`;
          throw new LocalnetError('bad_request', `cannot apply external message to current state : External message was not accepted (${r.error}${code})`);
        }
      }),
    submitExternal(boc) {
      let msg;
      let hash: string;
      try {
        const table = parseBoc(boc);
        msg = loadMessage(new Slice(table, table.roots[0], 'Message'));
        hash = table.hashHex(table.roots[0]);
      } catch (err) {
        throw new LocalnetError('bad_request', 'not a message BoC', { cause: err });
      }
      if (msg.info.type !== 'external-in') throw new LocalnetError('bad_request', `not an external-in message but ${msg.info.type}`);
      const dest = msg.info.dest;
      if (dest.type !== 'std') throw new LocalnetError('bad_request', 'the destination is not a std address');
      const key = chainKeyOf(core, dest.workchain, dest.hash);
      enqueue(core, core.externals, { hash, boc: Uint8Array.from(boc), kind: 'external', createdLt: 0n, destWorkchain: dest.workchain, destHash: dest.hash });
      return { hash, workchain: dest.workchain, shard: BigInt(key.slice(key.indexOf(':') + 1)) };
    },
    fund: (address, nanotons) =>
      core.lock(async () => {
        const a = parseAddress(address);
        const before = await core.emu.shardAccount(a);
        const contract = await core.bc.getContract(a);
        contract.balance = contract.balance + nanotons;
        core.states.record(core.mcTip.id.seqno + 1, rawOf(a), before, await core.emu.shardAccount(a));
      }),
    produceRound: () => core.lock(() => produceRound(core)),
    onRound(listener) {
      core.listeners.add(listener);
      return () => core.listeners.delete(listener);
    },
    pending() {
      const count = (m: Map<string, unknown[]>) => [...m.values()].reduce((n, l) => n + l.length, 0);
      return { internal: count(core.queues), external: count(core.externals) };
    },
    outMsgQueueSizes() {
      const round = core.history.round(core.mcTip.id.seqno);
      if (!round) throw new LocalnetError('failed', `the last round ${core.mcTip.id.seqno} is not kept`);
      return [round.mc, ...round.shards].map((b) => ({ block: b.id, size: b.transactions.reduce((n, t) => n + queuedOutMessages(t.boc), 0) }));
    },
    snapshot: (path) => core.lock(() => writeSnapshot(core, path)),
  };
}

/** Internal messages a transaction created that the next round delivers (what `enqueue` routes). */
function queuedOutMessages(txBoc: Uint8Array): number {
  const table = parseBoc(txBoc);
  const tx = loadTransaction(new Slice(table, table.roots[0], 'transaction'));
  return tx.outMsgs.filter((m) => m.info.type === 'internal' && m.info.dest.type === 'std' && (m.info.dest.workchain === MASTERCHAIN || m.info.dest.workchain === 0)).length;
}
