import type { FutureSplitMerge } from '../tlb/block.js';
import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { addCurrency, type CurrencyInput, storeCurrency, ZERO_CURRENCY } from './currency.js';
import { type Augmentation, storeHashmapAugE, storeHashmapE, buildHashmap } from './dict.js';
import { BuildError } from './errors.js';

const ROOT_SHARD = 1n << 63n;

/** A shard's latest block as the masterchain records it; field names follow the reader's `ShardDescr`. */
export type ShardDescrDesc = {
  workchain: number;
  /** Shard id with its tag bit. */
  shard: bigint;
  seqno: number;
  regMcSeqno: number;
  startLt: bigint;
  endLt: bigint;
  rootHash: string;
  fileHash: string;
  genUtime: number;
  beforeSplit?: boolean;
  beforeMerge?: boolean;
  wantSplit?: boolean;
  wantMerge?: boolean;
  nxCcUpdated?: boolean;
  nextCatchainSeqno?: number;
  /** Default: the shard itself. */
  nextValidatorShard?: bigint;
  minRefMcSeqno?: number;
  splitMergeAt?: FutureSplitMerge;
  feesCollected?: CurrencyInput;
  fundsCreated?: CurrencyInput;
};

/** shard_fee_created$_ fees:CurrencyCollection create:CurrencyCollection = ShardFeeCreated; keyed by workchain and shard. */
export type ShardFeeDesc = { workchain: number; shard: bigint; fees: CurrencyInput; create: CurrencyInput };

export type McBlockExtraDesc = {
  /** Latest blocks of the shards; those of one workchain must tile it exactly. */
  shards?: ShardDescrDesc[];
  shardFees?: ShardFeeDesc[];
  /** sig_pair$_ node_id_short:bits256 sign:CryptoSignature; ed25519_signature#5 R:bits256 s:bits256 */
  prevBlkSignatures?: { nodeIdShort: string; signature: Uint8Array }[];
  /** Key blocks only: _ config_addr:bits256 config:^(Hashmap 32 ^Cell) = ConfigParams; params by number, or the dictionary cell. */
  config?: { configAddr: string; params: Map<number, Cell> | Cell };
};

type ShardFee = { fees: CurrencyInput; create: CurrencyInput };
const shardFeeAugmentation: Augmentation<ShardFee> = {
  store: (b, f) => {
    storeCurrency(b, f.fees);
    storeCurrency(b, f.create);
  },
  combine: (x, y) => ({ fees: addCurrency(x.fees, y.fees), create: addCurrency(x.create, y.create) }),
  empty: { fees: ZERO_CURRENCY, create: ZERO_CURRENCY },
};

/**
 * masterchain_block_extra#cca5 key_block:(## 1) shard_hashes:ShardHashes shard_fees:ShardFees
 *   ^[ prev_blk_signatures:(HashmapE 16 CryptoSignaturePair) recover_create_msg:(Maybe ^InMsg) mint_msg:(Maybe ^InMsg) ]
 *   config:key_block?ConfigParams = McBlockExtra;
 * No recover/mint messages.
 */
export function buildMcBlockExtra(d: McBlockExtraDesc, keyBlock: boolean): Cell {
  if (keyBlock !== (d.config !== undefined)) throw new BuildError('McBlockExtra: a key block carries the config, other blocks do not');
  const b = new Builder().storeUint(0xcca5, 16).storeBit(keyBlock);
  storeShardHashes(b, d.shards ?? []);
  // _ (HashmapAugE 96 ShardFeeCreated ShardFeeCreated) = ShardFees;
  storeHashmapAugE(
    b,
    96,
    (d.shardFees ?? []).map((f) => ({
      key: (BigInt.asUintN(32, BigInt(f.workchain)) << 64n) | f.shard,
      extra: { fees: f.fees, create: f.create },
      store: (v: Builder) => shardFeeAugmentation.store(v, f),
    })),
    shardFeeAugmentation,
  );
  const signatures = new Builder();
  storeHashmapE(
    signatures,
    16,
    (d.prevBlkSignatures ?? []).map((s, i) => ({
      key: BigInt(i),
      store: (v: Builder) => {
        if (s.signature.length !== 64) throw new BuildError(`prev_blk_signatures[${i}]: a signature has 64 bytes`);
        v.storeHash(s.nodeIdShort).storeUint(0x5, 4).storeBits(s.signature, 512);
      },
    })),
  );
  b.storeRef(signatures.storeBit(0).storeBit(0).endCell());
  if (d.config) {
    const params = d.config.params;
    const root =
      params instanceof Map
        ? buildHashmap(
            32,
            [...params].map(([n, cell]) => ({ key: BigInt(n), store: (v: Builder) => v.storeRef(cell) })),
          )
        : params;
    b.storeHash(d.config.configAddr).storeRef(root);
  }
  return b.endCell();
}

/** _ (HashmapE 32 ^(BinTree ShardDescr)) = ShardHashes; keyed by workchain. */
export function storeShardHashes(b: Builder, shards: ShardDescrDesc[]): void {
  const byWorkchain = new Map<number, ShardDescrDesc[]>();
  for (const s of shards) byWorkchain.set(s.workchain, [...(byWorkchain.get(s.workchain) ?? []), s]);
  storeHashmapE(
    b,
    32,
    [...byWorkchain].map(([wc, list]) => ({ key: BigInt(wc), store: (v: Builder) => v.storeRef(binTree(wc, ROOT_SHARD, list)) })),
  );
}

/** bt_leaf$0 {X:Type} leaf:X = BinTree X;  bt_fork$1 {X:Type} left:^(BinTree X) right:^(BinTree X) = BinTree X; */
function binTree(wc: number, shard: bigint, list: ShardDescrDesc[]): Cell {
  const name = `${wc}:${shard.toString(16).padStart(16, '0')}`;
  if (list.length === 0) throw new BuildError(`ShardHashes: no shard covers ${name}`);
  if (list.some((s) => s.shard === shard)) {
    if (list.length > 1) throw new BuildError(`ShardHashes: shard ${name} overlaps others`);
    const b = new Builder().storeBit(0);
    storeShardDescr(b, list[0]);
    return b.endCell();
  }
  const half = (shard & -shard) >> 1n;
  if (half < 1n << 3n) throw new BuildError(`ShardHashes: shards below ${name} are deeper than 60 bits or not shard ids`);
  const left = list.filter((s) => s.shard < shard);
  const right = list.filter((s) => s.shard > shard);
  return new Builder()
    .storeBit(1)
    .storeRef(binTree(wc, shard - half, left))
    .storeRef(binTree(wc, shard + half, right))
    .endCell();
}

/**
 * shard_descr_new#a seq_no:uint32 reg_mc_seqno:uint32 start_lt:uint64 end_lt:uint64 root_hash:bits256 file_hash:bits256
 *   before_split:Bool before_merge:Bool want_split:Bool want_merge:Bool nx_cc_updated:Bool flags:(## 3) { flags = 0 }
 *   next_catchain_seqno:uint32 next_validator_shard:uint64 min_ref_mc_seqno:uint32 gen_utime:uint32
 *   split_merge_at:FutureSplitMerge ^[ fees_collected:CurrencyCollection funds_created:CurrencyCollection ] = ShardDescr;
 */
export function storeShardDescr(b: Builder, s: ShardDescrDesc): void {
  b.storeUint(0xa, 4)
    .storeUint(s.seqno, 32)
    .storeUint(s.regMcSeqno, 32)
    .storeUint(s.startLt, 64)
    .storeUint(s.endLt, 64)
    .storeHash(s.rootHash)
    .storeHash(s.fileHash)
    .storeBit(s.beforeSplit ?? false)
    .storeBit(s.beforeMerge ?? false)
    .storeBit(s.wantSplit ?? false)
    .storeBit(s.wantMerge ?? false)
    .storeBit(s.nxCcUpdated ?? false)
    .storeUint(0, 3)
    .storeUint(s.nextCatchainSeqno ?? 0, 32)
    .storeUint(s.nextValidatorShard ?? s.shard, 64)
    .storeUint(s.minRefMcSeqno ?? 0, 32)
    .storeUint(s.genUtime, 32);
  // fsm_none$0  fsm_split$10 split_utime:uint32 interval:uint32  fsm_merge$11 merge_utime:uint32 interval:uint32
  const fsm = s.splitMergeAt ?? { type: 'none' };
  if (fsm.type === 'none') b.storeBit(0);
  else b.storeBit(1).storeBit(fsm.type === 'merge').storeUint(fsm.utime, 32).storeUint(fsm.interval, 32);
  const fees = new Builder();
  storeCurrency(fees, s.feesCollected ?? ZERO_CURRENCY);
  storeCurrency(fees, s.fundsCreated ?? ZERO_CURRENCY);
  b.storeRef(fees.endCell());
}
