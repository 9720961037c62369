/**
 * The Merkle proofs liteserver answers carry, unsigned and built from real TL-B. Block proofs cut
 * the chain's real blocks, so their root hash is the block's root hash. The chain keeps no shard
 * states (its state hashes are synthetic, see packages/localnet), so state proofs are over a
 * ShardStateUnsplit assembled here around the accounts or the config asked for: right in structure
 * for readers such as ton-lite-client, but their hash is not the block's `state_update` new hash.
 */
import { type Augmentation, beginCell, Builder, type Cell, type CurrencyInput, type ExtBlkRef, merkleProof, storeCurrency, storeExtBlkRef, storeHashmapAugE, storeShardIdent } from '@tonstream/block';
import { applyPlan, hashmapPlan, hideCells, keyBits, keepRefs, type ProofPlan } from './proof-plan.js';

/** block#11ef55aa global_id:int32 info:^BlockInfo value_flow:^ValueFlow state_update:^(MERKLE_UPDATE ShardState) extra:^BlockExtra = Block; */
const BLOCK = { info: 0, valueFlow: 1, stateUpdate: 2, extra: 3 } as const;
/** block_extra in_msg_descr:^InMsgDescr out_msg_descr:^OutMsgDescr account_blocks:^ShardAccountBlocks rand_seed:bits256 created_by:bits256 custom:(Maybe ^McBlockExtra) = BlockExtra; */
const BLOCK_EXTRA = { accountBlocks: 2, custom: 3 } as const;
/** masterchain_block_extra#cca5 key_block:(## 1) shard_hashes:ShardHashes ...: shard_hashes' Maybe bit follows the tag and key_block. */
const MC_BLOCK_EXTRA_SHARD_HASHES_BIT = 17;

/**
 * global_balance of the McStateExtra in config proofs: mainnet's order of magnitude (5e9 TON).
 * ton-lite-client's getConfig (@ton/core loadMasterchainStateExtra) reads `config` with loadMaybeRef,
 * i.e. it takes the first bit after config_addr, the top bit of global_balance's 4-bit length, as a
 * Maybe flag; any balance of 8 bytes or more (>= 2^56 nanotons) sets it, as on mainnet.
 */
const GLOBAL_BALANCE_NANOTONS = 5_000_000_000n * 1_000_000_000n;

const HEADER_PLAN = keepRefs({ [BLOCK.info]: 'all', [BLOCK.stateUpdate]: 'all' });

/** The block header: BlockInfo (with its prev and master refs) and the state update; the rest pruned. */
export function blockHeaderProof(block: Cell): Cell {
  return merkleProof(applyPlan(block, HEADER_PLAN));
}

/**
 * A key block's header and the config its McBlockExtra carries, cut to the paths to `params` (an
 * absent parameter's path ends where its key leaves the dictionary): a forward proof link's
 * config_proof, from which clients read the validator set.
 */
export function keyBlockConfigProof(keyBlock: Cell, params: number[]): Cell {
  const custom = keyBlock.refs[BLOCK.extra].refs[BLOCK_EXTRA.custom];
  // McBlockExtra of a key block: config:ConfigParams is its last reference.
  const configRef = custom.refs.length - 1;
  const configPlan = hashmapPlan(32, params.map((p) => keyBits(BigInt(p), 32)), 'all');
  return merkleProof(applyPlan(keyBlock, keepRefs({ [BLOCK.info]: 'all', [BLOCK.stateUpdate]: 'all', [BLOCK.extra]: keepRefs({ [BLOCK_EXTRA.custom]: keepRefs({ [configRef]: configPlan }) }) })));
}

/** A masterchain block's header and its ShardHashes (what commits the shard blocks). */
export function shardHashesProof(mcBlock: Cell): Cell {
  return merkleProof(
    applyPlan(mcBlock, keepRefs({ [BLOCK.info]: 'all', [BLOCK.stateUpdate]: 'all', [BLOCK.extra]: keepRefs({ [BLOCK_EXTRA.custom]: keepRefs({ 0: 'all' }) }) })),
  );
}

/** The header and the account blocks, with the transactions whose hashes are in `hidden` pruned. */
export function transactionsProof(block: Cell, hidden: ReadonlySet<string>): Cell {
  return merkleProof(applyPlan(block, keepRefs({ [BLOCK.info]: 'all', [BLOCK.stateUpdate]: 'all', [BLOCK.extra]: keepRefs({ [BLOCK_EXTRA.accountBlocks]: hideCells(hidden) }) })));
}

export function blockGlobalId(block: Cell): number {
  return Buffer.from(block.data).readInt32BE(4);
}

/** The root edge cell of a masterchain block's ShardHashes dictionary, or undefined when it is empty. */
export function shardHashesRoot(mcBlock: Cell): Cell | undefined {
  const extra = mcBlock.refs[BLOCK.extra].refs[BLOCK_EXTRA.custom];
  if (!extra) return undefined;
  const present = (extra.data[MC_BLOCK_EXTRA_SHARD_HASHES_BIT >> 3] >> (7 - (MC_BLOCK_EXTRA_SHARD_HASHES_BIT & 7))) & 1;
  return present ? extra.refs[0] : undefined;
}

/** ShardHashes as a cell of its own (`HashmapE 32 ^(BinTree ShardDescr)`), what getAllShardsInfo returns. */
export function shardHashesCell(root: Cell | undefined): Cell {
  return root ? beginCell().storeBit(1).storeRef(root).endCell() : beginCell().storeBit(0).endCell();
}

/** What a state proof says about the state besides its accounts. */
export type StateHeader = {
  globalId: number;
  workchain: number;
  shard: bigint;
  seqno: number;
  genUtime: number;
  genLt: bigint;
  minRefMcSeqno: number;
  /** Shard states: the masterchain block the shard block refers to. */
  masterRef?: ExtBlkRef;
};

/** depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection = DepthBalanceInfo; */
const depthBalance: Augmentation<CurrencyInput> = {
  store: (b, balance) => {
    b.storeUint(0, 5);
    storeCurrency(b, balance);
  },
  combine: (x, y) => ({ grams: x.grams + y.grams }),
  empty: { grams: 0n },
};

/** An account as the state's ShardAccounts holds it. */
export type StateAccount = { addressHash: string; balance: bigint; shardAccount: Cell };

/**
 * A Merkle proof of a ShardStateUnsplit holding `account` (absent accounts are absent from
 * ShardAccounts, as upstream): the path to the account's ShardAccount is kept, its Account cell and
 * everything else pruned. This is the second root of getAccountState's `proof`.
 */
export function accountStateProof(h: StateHeader, account: StateAccount | undefined, mcStateExtra?: Cell): Cell {
  const accounts = new Builder();
  storeHashmapAugE(
    accounts,
    256,
    account ? [{ key: account.addressHash, extra: { grams: account.balance }, store: (b: Builder) => b.storeCellContents(account.shardAccount) }] : [],
    depthBalance,
  );
  const state = shardStateCell(h, accounts.endCell(), mcStateExtra);
  const accountsPlan: ProofPlan = account ? keepRefs({ 0: hashmapPlan(256, [keyBits(BigInt(`0x${account.addressHash}`), 256)], 'prune') }) : 'all';
  return merkleProof(applyPlan(state, keepRefs({ [STATE.accounts]: accountsPlan })));
}

/**
 * A whole ShardStateUnsplit: the header, every account, the McStateExtra of a masterchain state
 * (liteServer.getState's `data`). Built like the state proofs, so its hash is not the block's
 * `state_update` new hash either.
 */
export function shardState(h: StateHeader, accounts: readonly StateAccount[], mcStateExtra?: Cell): Cell {
  const b = new Builder();
  storeHashmapAugE(
    b,
    256,
    accounts.map((a) => ({ key: a.addressHash, extra: { grams: a.balance }, store: (x: Builder) => x.storeCellContents(a.shardAccount) })),
    depthBalance,
  );
  return shardStateCell(h, b.endCell(), mcStateExtra);
}

/** What a masterchain state's McStateExtra holds that a config proof shows or hashes. */
export type McStateExtraInput = {
  shardHashes?: Cell;
  configAddr: string;
  config: Cell;
  lastKeyBlock?: ExtBlkRef;
  /** The current validator set's gen_validator_list_hash_short and catchain seqno. */
  validatorInfo?: { hashShort: number; ccSeqno: number };
};

/**
 * masterchain_state_extra#cc26 shard_hashes:ShardHashes config:ConfigParams
 *   ^[ flags:(## 16) validator_info:ValidatorInfo prev_blocks:OldMcBlocksInfo after_key_block:Bool
 *      last_key_block:(Maybe ExtBlkRef) block_create_stats:(flags . 0)?BlockCreateStats ]
 *   global_balance:CurrencyCollection = McStateExtra;
 * _ config_addr:bits256 config:^(Hashmap 32 ^Cell) = ConfigParams;
 * No old blocks index: flags 0, an empty prev_blocks.
 */
export function mcStateExtra(d: McStateExtraInput): Cell {
  const b = beginCell().storeUint(0xcc26, 16);
  if (d.shardHashes) b.storeBit(1).storeRef(d.shardHashes);
  else b.storeBit(0);
  b.storeHash(d.configAddr).storeRef(d.config);
  // validator_info$_ validator_list_hash_short:uint32 catchain_seqno:uint32 nx_cc_updated:Bool; prev_blocks empty: 0 + KeyMaxLt (key:Bool max_end_lt:uint64)
  const vi = d.validatorInfo;
  const info = beginCell().storeUint(0, 16).storeUint(vi?.hashShort ?? 0, 32).storeUint(vi?.ccSeqno ?? 0, 32).storeBit(0).storeBit(0).storeBit(0).storeUint(0, 64).storeBit(0);
  if (d.lastKeyBlock) storeExtBlkRef(info.storeBit(1), d.lastKeyBlock);
  else info.storeBit(0);
  b.storeRef(info.endCell());
  storeCurrency(b, { grams: GLOBAL_BALANCE_NANOTONS });
  return b.endCell();
}

/**
 * A Merkle proof of a masterchain state showing its config: the whole dictionary, or with `params`
 * only the paths to those parameters. ton-lite-client's getConfig reads it as `configProof.refs[0]`.
 */
export function configStateProof(h: StateHeader, extra: McStateExtraInput, params?: number[]): Cell {
  const state = shardStateCell(h, emptyAccounts(), mcStateExtra(extra));
  const configRef = extra.shardHashes ? 1 : 0;
  const configPlan: ProofPlan = params ? hashmapPlan(32, params.map((p) => keyBits(BigInt(p), 32)), 'all') : 'all';
  return merkleProof(applyPlan(state, keepRefs({ [STATE.custom]: keepRefs({ [configRef]: configPlan }) })));
}

function emptyAccounts(): Cell {
  const b = new Builder();
  storeHashmapAugE(b, 256, [], depthBalance);
  return b.endCell();
}

/** References of ShardStateUnsplit. */
const STATE = { outMsgQueueInfo: 0, accounts: 1, other: 2, custom: 3 } as const;

/**
 * shard_state#9023afe2 global_id:int32 shard_id:ShardIdent seq_no:uint32 vert_seq_no:#
 *   gen_utime:uint32 gen_lt:uint64 min_ref_mc_seqno:uint32 out_msg_queue_info:^OutMsgQueueInfo
 *   before_split:(## 1) accounts:^ShardAccounts
 *   ^[ overload_history:uint64 underload_history:uint64 total_balance:CurrencyCollection
 *      total_validator_fees:CurrencyCollection libraries:(HashmapE 256 LibDescr) master_ref:(Maybe BlkMasterInfo) ]
 *   custom:(Maybe ^McStateExtra) = ShardStateUnsplit;
 */
function shardStateCell(h: StateHeader, accounts: Cell, custom?: Cell): Cell {
  const b = beginCell().storeUint(0x9023afe2, 32).storeInt(h.globalId, 32);
  storeShardIdent(b, { workchain: h.workchain, shard: h.shard });
  b.storeUint(h.seqno, 32).storeUint(0, 32).storeUint(h.genUtime, 32).storeUint(h.genLt, 64).storeUint(h.minRefMcSeqno, 32);
  // _ out_queue:OutMsgQueue proc_info:ProcessedInfo ihr_pending:IhrPendingInfo: all empty (the chain delivers within a round).
  b.storeRef(beginCell().storeBit(0).storeUint(0, 64).storeBit(0).storeBit(0).endCell());
  b.storeBit(0).storeRef(accounts);
  const other = beginCell().storeUint(0, 64).storeUint(0, 64);
  storeCurrency(other, { grams: 0n });
  storeCurrency(other, { grams: 0n });
  other.storeBit(0);
  if (h.masterRef) storeExtBlkRef(other.storeBit(1), h.masterRef);
  else other.storeBit(0);
  b.storeRef(other.endCell());
  b.storeMaybeRef(custom ?? null);
  return b.endCell();
}
