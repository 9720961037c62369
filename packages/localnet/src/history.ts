import { blockKey, sameBlock, shardHex } from './shards.js';
import type { BlockRef, StoredBlock, TxRecord } from './types.js';

/** How `lookupBlock` selects a block: by seqno, by an lt it contains, or by time. */
export type BlockLookup = { seqno: number } | { lt: bigint } | { utime: number };

export type Round = { mc: StoredBlock; shards: StoredBlock[] };

/**
 * The blocks of the last `maxRounds` rounds with their transactions, indexed by position, by chain
 * (for lt and time lookups) and by transaction hash and (account, lt).
 */
export type History = {
  add(round: Round): Round[];
  rounds(): Round[];
  get(ref: BlockRef): StoredBlock | undefined;
  lookup(workchain: number, shard: bigint, by: BlockLookup): StoredBlock | undefined;
  round(mcSeqno: number): Round | undefined;
  txByHash(hash: string): TxRecord | undefined;
  txByLt(account: string, lt: bigint): TxRecord | undefined;
  oldestMcSeqno(): number | undefined;
};

export function createHistory(maxRounds: number): History {
  const rounds: Round[] = [];
  const byKey = new Map<string, StoredBlock>();
  const chains = new Map<string, StoredBlock[]>();
  const txs = new Map<string, TxRecord>();
  const txsByLt = new Map<string, TxRecord>();
  const chainKey = (workchain: number, shard: bigint) => `${workchain}:${shardHex(shard)}`;

  const index = (b: StoredBlock) => {
    byKey.set(blockKey(b.id), b);
    const key = chainKey(b.id.workchain, b.id.shard);
    let chain = chains.get(key);
    if (!chain) chains.set(key, (chain = []));
    chain.push(b);
    for (const t of b.transactions) {
      txs.set(t.hash, t);
      txsByLt.set(`${t.account}:${t.lt}`, t);
    }
  };
  const unindex = (b: StoredBlock) => {
    byKey.delete(blockKey(b.id));
    const chain = chains.get(chainKey(b.id.workchain, b.id.shard));
    if (chain && chain[0] === b) chain.shift();
    for (const t of b.transactions) {
      txs.delete(t.hash);
      txsByLt.delete(`${t.account}:${t.lt}`);
    }
  };

  return {
    add(round) {
      rounds.push(round);
      for (const b of round.shards) index(b);
      index(round.mc);
      const evicted = rounds.splice(0, Math.max(0, rounds.length - maxRounds));
      for (const r of evicted) {
        for (const b of r.shards) unindex(b);
        unindex(r.mc);
      }
      return evicted;
    },
    rounds: () => rounds,
    get(ref) {
      const b = byKey.get(blockKey(ref));
      return b && sameBlock(b.id, ref) ? b : undefined;
    },
    lookup(workchain, shard, by) {
      const chain = chains.get(chainKey(workchain, shard));
      if (!chain || chain.length === 0) return undefined;
      if ('seqno' in by) return byKey.get(blockKey({ workchain, shard, seqno: by.seqno }));
      // The first block whose end lies past the lt (it contains the lt, or is the next one after it);
      // by time, the last block generated at or before it.
      if ('lt' in by) {
        const i = firstIndex(chain, (b) => b.endLt > by.lt);
        // Before the oldest kept block the answer was evicted (unless that block is the first ever).
        if (i === 0 && chain[0].startLt > by.lt && chain[0].id.seqno > 1) return undefined;
        return chain[i];
      }
      const after = firstIndex(chain, (b) => b.genUtime > by.utime);
      return after === 0 ? undefined : chain[after - 1];
    },
    round(mcSeqno) {
      const first = rounds[0]?.mc.id.seqno;
      return first === undefined ? undefined : rounds[mcSeqno - first];
    },
    txByHash: (hash) => txs.get(hash.toLowerCase()),
    txByLt: (account, lt) => txsByLt.get(`${account}:${lt}`),
    oldestMcSeqno: () => rounds[0]?.mc.id.seqno,
  };
}

/** Index of the first element for which `pred` holds (`pred` is monotonic); `list.length` if none. */
function firstIndex<T>(list: T[], pred: (x: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(list[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
