import { Address, beginCell, Cell } from '@ton/core';
import { type BlockIdExt, lastTransactionOf, type LiteReads } from '@tonstream/lite-client';
import type { AccountSnapshot, ChainState, HeadBlock } from './chain-state.js';

/** How long a head is reused before asking again: a masterchain block every few seconds on mainnet, 1 s on localnet. */
export const HEAD_TTL_MS = 250;
/** Accounts kept per head; a new head starts a new cache, since any account may have changed. */
export const ACCOUNT_CACHE_SIZE = 10_000;
/** Library cells are content-addressed: kept for good, up to this many. */
export const LIBRARY_CACHE_SIZE = 1_000;

export type LiteStateOptions = {
  /** The reads of @tonstream/lite-client this needs. */
  lite: Pick<LiteReads, 'masterchainInfo' | 'accountState' | 'configAll' | 'libraries'>;
  /** @default HEAD_TTL_MS */
  headTtlMs?: number;
  now?: () => number;
};

const MASTERCHAIN_SHARD = BigInt.asIntN(64, 1n << 63n).toString();
const shardHex = (signed: string) => BigInt.asUintN(64, BigInt(signed)).toString(16).toUpperCase().padStart(16, '0');

function tlId(head: HeadBlock): BlockIdExt {
  return { kind: 'tonNode.blockIdExt', workchain: -1, shard: MASTERCHAIN_SHARD, seqno: head.seqno, rootHash: Buffer.from(head.rootHash, 'base64'), fileHash: Buffer.from(head.fileHash, 'base64') };
}

/**
 * masterchain_state_extra#cc26 shard_hashes:ShardHashes config:ConfigParams ..., with
 * ShardHashes = HashmapE (a Maybe bit) and ConfigParams = config_addr:bits256 config:^(Hashmap 32 ^Cell):
 * the dictionary cell the executor takes. The extra is the last reference of ShardStateUnsplit.
 */
export function configDictFromProof(configProof: Uint8Array): Cell {
  const state = Cell.fromBoc(Buffer.from(configProof))[0].refs[0];
  const extra = state?.refs[3];
  if (!extra || extra.isExotic) throw new Error('config proof without a McStateExtra');
  const s = extra.beginParse();
  if (s.loadUint(16) !== 0xcc26) throw new Error('config proof: McStateExtra tag is not 0xcc26');
  if (s.loadBit()) s.loadRef();
  s.skip(256);
  return s.loadRef();
}

/** ShardAccount = account:^Account last_trans_hash:bits256 last_trans_lt:uint64; `accountBoc` empty for account_none. */
export function shardAccountBoc(accountBoc: Uint8Array, lastTx: { hash: bigint; lt: bigint } | null): string {
  const account = accountBoc.length > 0 ? Cell.fromBoc(Buffer.from(accountBoc))[0] : beginCell().storeBit(0).endCell();
  const cell = beginCell().storeRef(account).storeUint(lastTx?.hash ?? 0n, 256).storeUint(lastTx?.lt ?? 0n, 64).endCell();
  return cell.toBoc().toString('base64');
}

/** The last transaction of an existing account (account$1), as the state proof's ShardAccount holds it. */
function lastTransactionIn(state: Uint8Array, proof: Uint8Array, accountHash: Uint8Array): { hash: bigint; lt: bigint } | null {
  if (state.length === 0 || !Cell.fromBoc(Buffer.from(state))[0].beginParse().loadBit()) return null;
  const last = lastTransactionOf(proof, accountHash);
  return last ? { hash: BigInt(`0x${last.hash.toString('hex')}`), lt: last.lt } : null;
}

/** Chain state read from liteservers through @tonstream/lite-client, cached per head. */
export function createLiteState({ lite, headTtlMs = HEAD_TTL_MS, now = Date.now }: LiteStateOptions): ChainState {
  let head: { value: Promise<HeadBlock>; atMs: number } | undefined;
  let accounts = { seqno: -1, map: new Map<string, Promise<AccountSnapshot>>() };
  let config: { seqno: number; value: Promise<string> } | undefined;
  const libraries = new Map<string, Cell>();

  // A failed lookup is not cached: the next emulation asks again.
  const uncacheOnError = <T>(p: Promise<T>, drop: () => void) => {
    p.catch(drop);
    return p;
  };

  return {
    head() {
      if (head && now() - head.atMs < headTtlMs) return head.value;
      const entry = {
        atMs: now(),
        value: lite.masterchainInfo().then((info) => ({
          seqno: info.last.seqno,
          shard: shardHex(info.last.shard),
          rootHash: Buffer.from(info.last.rootHash).toString('base64'),
          fileHash: Buffer.from(info.last.fileHash).toString('base64'),
          utime: info.lastUtime,
        })),
      };
      head = entry;
      return uncacheOnError(entry.value, () => {
        if (head === entry) head = undefined;
      });
    },

    account(at, address) {
      if (accounts.seqno !== at.seqno) accounts = { seqno: at.seqno, map: new Map() };
      const cache = accounts.map;
      const hit = cache.get(address);
      if (hit) return hit;
      if (cache.size >= ACCOUNT_CACHE_SIZE) cache.clear();
      const { workChain, hash } = Address.parseRaw(address);
      const value = lite.accountState(tlId(at), { workchain: workChain, hash }).then((res) => ({
        shardAccount: shardAccountBoc(res.state, lastTransactionIn(res.state, res.proof, hash)),
        shardBlock: { workchain: res.shardblk.workchain, shard: shardHex(res.shardblk.shard), seqno: res.shardblk.seqno },
      }));
      cache.set(address, value);
      return uncacheOnError(value, () => cache.delete(address));
    },

    config(at) {
      if (config && config.seqno === at.seqno) return config.value;
      const entry = {
        seqno: at.seqno,
        value: lite.configAll(tlId(at)).then((res) => configDictFromProof(res.configProof).toBoc().toString('base64')),
      };
      config = entry;
      return uncacheOnError(entry.value, () => {
        if (config === entry) config = undefined;
      });
    },

    async libraries(hashes) {
      const out = new Map<string, Cell>();
      const missing = hashes.filter((h) => !libraries.has(h));
      if (missing.length > 0) {
        const res = await lite.libraries(missing.map((h) => Buffer.from(h, 'hex')));
        if (libraries.size + res.result.length > LIBRARY_CACHE_SIZE) libraries.clear();
        for (const e of res.result) libraries.set(Buffer.from(e.hash).toString('hex'), Cell.fromBoc(Buffer.from(e.data))[0]);
      }
      for (const h of hashes) {
        const c = libraries.get(h);
        if (c) out.set(h, c);
      }
      return out;
    },
  };
}
