/**
 * The local network's validator set: a few ed25519 keys derived from the chain's seed, written into
 * the config as param 34 (cur_validators), and the signatures they put on every masterchain block.
 *
 * Key i: the ed25519 seed is sha256("tonstream-localnet:key:<chain seed>:validator:<i>") (see
 * traffic/keys.ts), its ADNL address sha256("tonstream-localnet:<chain seed>:validator-adnl:<i>").
 * Anyone who knows the chain's seed can re-derive (and so forge) them: these are test keys.
 */
import { hash as oneShotHash } from 'node:crypto';
import { beginCell, type Cell as CoreCell, Dictionary, type DictionaryValue } from '@ton/core';
import { crc32c } from '@tonstream/block';
import { LocalnetError } from './errors.js';
import { keyPairFromLabel, type KeyPair, signBytes } from './traffic/keys.js';
import type { BlockIdExt, BlockSignature } from './types.js';

/** Validators of a new chain; all of them validate the masterchain and sign each block. */
export const DEFAULT_VALIDATORS = 4;
/** The validator set never rotates: one catchain session for the chain's life. */
export const CATCHAIN_SEQNO = 0;
/** Validator i's weight: decreasing, as mainnet lists validators by stake; any 3 of 4 exceed 2/3. */
const WEIGHT_UNIT = 1_000_000_000_000_000n;
/** utime_until of the set: ten years after the chain's start. */
const SET_LIFETIME_S = 10 * 365 * 86_400;

/** TL constructor ids (little-endian on the wire). */
const TL = {
  /** ton.blockId root_cell_hash:int256 file_hash:int256 = ton.BlockId; what validators sign. */
  tonBlockId: 0xc50b6e70,
  /** pub.ed25519 key:int256 = PublicKey; its sha256 is the node's short id. */
  pubEd25519: 0x4813b4c6,
  /** What crypto/block/block.cpp compute_validator_set_hash starts with (inherited from test0.validatorSet). */
  validatorSetHash: 0x901660ed,
};

export type Validator = {
  publicKey: Buffer;
  weight: bigint;
  adnlAddr: Buffer;
  /** sha256 of the TL pub.ed25519 public key, hex. */
  nodeIdShort: string;
};

export type ValidatorSet = {
  ccSeqno: number;
  utimeSince: number;
  utimeUntil: number;
  validators: Validator[];
  totalWeight: bigint;
  /** gen_validator_list_hash_short of the blocks this set signs. */
  hashShort: number;
};

export type ValidatorKeys = { set: ValidatorSet; keys: KeyPair[] };

export function deriveValidators(seed: string, count: number, utimeSince: number): ValidatorKeys {
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new LocalnetError('bad_request', `validators: 1 to 100, not ${count}`);
  const keys = Array.from({ length: count }, (_, i) => keyPairFromLabel(`${seed}:validator:${i}`));
  const validators = keys.map((k, i) => ({
    publicKey: k.publicKey,
    weight: WEIGHT_UNIT * BigInt(count + 1 - i),
    adnlAddr: oneShotHash('sha256', `tonstream-localnet:${seed}:validator-adnl:${i}`, 'buffer'),
    nodeIdShort: nodeIdShort(k.publicKey),
  }));
  const set: ValidatorSet = {
    ccSeqno: CATCHAIN_SEQNO,
    utimeSince,
    utimeUntil: Math.min(0xffffffff, utimeSince + SET_LIFETIME_S),
    validators,
    totalWeight: validators.reduce((s, v) => s + v.weight, 0n),
    hashShort: validatorSetHashShort(CATCHAIN_SEQNO, validators),
  };
  return { set, keys };
}

/** sha256(TL pub.ed25519{key}), the id signatures are filed under. */
export function nodeIdShort(publicKey: Uint8Array): string {
  const tl = Buffer.alloc(36);
  tl.writeUInt32LE(TL.pubEd25519, 0);
  tl.set(publicKey, 4);
  return oneShotHash('sha256', tl, 'hex');
}

/** The 68 bytes validators sign for a block: TL ton.blockId{root_hash, file_hash}. */
export function blockSigningMessage(id: Pick<BlockIdExt, 'rootHash' | 'fileHash'>): Buffer {
  const msg = Buffer.alloc(68);
  msg.writeUInt32LE(TL.tonBlockId, 0);
  msg.write(id.rootHash, 4, 'hex');
  msg.write(id.fileHash, 36, 'hex');
  return msg;
}

export function signBlock(v: ValidatorKeys, id: BlockIdExt): BlockSignature[] {
  const msg = blockSigningMessage(id);
  return v.keys.map((k, i) => ({ nodeIdShort: v.set.validators[i].nodeIdShort, signature: signBytes(k, msg) }));
}

/**
 * CRC32C of: int32 magic, int32 cc_seqno, uint32 count, then per validator its public key, int64
 * weight and ADNL address (little-endian, as crypto/block/block.cpp compute_validator_set_hash).
 */
export function validatorSetHashShort(ccSeqno: number, validators: readonly Validator[]): number {
  const buf = Buffer.alloc(12 + validators.length * 72);
  buf.writeUInt32LE(TL.validatorSetHash, 0);
  buf.writeInt32LE(ccSeqno, 4);
  buf.writeUInt32LE(validators.length, 8);
  validators.forEach((v, i) => {
    const at = 12 + i * 72;
    buf.set(v.publicKey, at);
    buf.writeBigInt64LE(v.weight, at + 32);
    buf.set(v.adnlAddr, at + 40);
  });
  return crc32c(buf);
}

/**
 * validators_ext#12 utime_since:uint32 utime_until:uint32 total:(## 16) main:(## 16) total_weight:uint64
 *   list:(HashmapE 16 ValidatorDescr) = ValidatorSet;
 * validator_addr#73 public_key:SigPubKey weight:uint64 adnl_addr:bits256 = ValidatorDescr;
 * ed25519_pubkey#8e81278a pubkey:bits256 = SigPubKey;
 */
export function validatorSetCell(set: ValidatorSet): CoreCell {
  const list = Dictionary.empty(Dictionary.Keys.Uint(16), validatorDescrValue);
  set.validators.forEach((v, i) => list.set(i, v));
  const n = set.validators.length;
  return beginCell().storeUint(0x12, 8).storeUint(set.utimeSince, 32).storeUint(set.utimeUntil, 32).storeUint(n, 16).storeUint(n, 16).storeUint(set.totalWeight, 64).storeDict(list).endCell();
}

/** ValidatorDescr stored in the dictionary's leaves (inline, not as a reference). */
const validatorDescrValue: DictionaryValue<Validator> = {
  serialize: (v, b) => {
    b.storeUint(0x73, 8).storeUint(0x8e81278a, 32).storeBuffer(v.publicKey).storeUint(v.weight, 64).storeBuffer(v.adnlAddr);
  },
  parse: () => {
    throw new Error('validator descriptions are only written here');
  },
};

/**
 * catchain_config_new#c2 flags:(## 7) { flags = 0 } shuffle_mc_validators:Bool mc_catchain_lifetime:uint32
 *   shard_catchain_lifetime:uint32 shard_validators_lifetime:uint32 shard_validators_num:uint32 = CatchainConfig;
 * (or the older catchain_config#c1 without flags). The masterchain subset is then the head of the
 * list in order, so clients compute the set (and its hash) without the validator-set PRNG.
 */
export function catchainConfigWithoutShuffle(param28: CoreCell | undefined): CoreCell {
  const lifetimes = [250, 250, 1000, 7];
  if (param28) {
    const s = param28.beginParse();
    const tag = s.loadUint(8);
    if (tag === 0xc2) s.skip(8);
    if (tag === 0xc1 || tag === 0xc2) for (let i = 0; i < 4; i++) lifetimes[i] = s.loadUint(32);
  }
  const b = beginCell().storeUint(0xc2, 8).storeUint(0, 7).storeBit(false);
  for (const v of lifetimes) b.storeUint(v, 32);
  return b.endCell();
}

/**
 * The config with this set as cur_validators (34), no previous, next or temporary sets (32, 33, 35,
 * 36, 37: the sandbox's mainnet config lists mainnet's validators there) and no masterchain shuffle (28).
 */
export function configWithValidators(config: CoreCell, set: ValidatorSet): CoreCell {
  const dict = Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), config);
  for (const n of [32, 33, 35, 36, 37]) dict.delete(n);
  dict.set(34, validatorSetCell(set));
  dict.set(28, catchainConfigWithoutShuffle(dict.get(28)));
  return beginCell().storeDictDirect(dict).endCell();
}
