/**
 * Everything one masterchain block commits, ready to publish: its new shard blocks (parents
 * first) and then the masterchain block itself, each with the states of the accounts it touched.
 * Masterchain blocks are kept in a small cache because block N's job also needs block N-1 (its
 * shard tops are where the walk stops, its root hash checks N's prev ref).
 */
import type { RawBlock } from '@tonstream/bus';
import { type LoadedBlock, loadAccountStates, loadVerifiedBlock } from './block-loader.js';
import { describeId, type LiteApi, VerifyError } from './lite-api.js';
import { type FullBlockId, walkNewShardBlocks } from './shard-walk.js';

export type McBundle = {
  seqno: number;
  id: FullBlockId;
  genUtime: number;
  seenAtMs: number;
  /** Shard blocks first (parents before children), the masterchain block last. */
  blocks: RawBlock[];
  /** Bytes of block BoCs, by workchain. */
  blockBytes: Map<number, number>;
  accountStates: number;
  accountStateBytes: number;
  /** Touched accounts published without a state: the liteservers no longer had it. */
  missingStates: { block: string; accounts: string[] }[];
};

export type McPreparer = {
  prepare(seqno: number, seenAtMs: number): Promise<McBundle>;
  /** Tells the id of a masterchain block the caller already knows (the head), saving a lookup. */
  knowId(id: FullBlockId): void;
  /** Drops cached masterchain blocks below `seqno`. */
  forget(seqno: number): void;
};

export type McPreparerOptions = {
  lite: LiteApi;
  /** Shard blocks downloaded at once per masterchain block. @default 8 */
  walkConcurrency?: number;
};

export function createMcPreparer({ lite, walkConcurrency = 8 }: McPreparerOptions): McPreparer {
  const ids = new Map<number, FullBlockId>();
  const cache = new Map<number, Promise<LoadedBlock>>();

  const mcBlock = (seqno: number): Promise<LoadedBlock> => {
    let p = cache.get(seqno);
    if (!p) {
      p = (async () => {
        const id = ids.get(seqno) ?? (await lite.masterchainBlockId(seqno));
        return loadVerifiedBlock(lite, id);
      })();
      cache.set(seqno, p);
      // A failed download must not stay cached.
      p.catch(() => {
        if (cache.get(seqno) === p) cache.delete(seqno);
      });
    }
    return p;
  };

  const prepare = async (seqno: number, seenAtMs: number): Promise<McBundle> => {
    const [mc, prev] = await Promise.all([mcBlock(seqno), seqno > 1 ? mcBlock(seqno - 1) : undefined]);
    if (prev && mc.prevRefs[0]?.root_hash !== prev.id.root_hash) {
      cache.delete(seqno);
      cache.delete(seqno - 1);
      throw new VerifyError(`masterchain block ${describeId(mc.id)} has prev ref ${mc.prevRefs[0]?.root_hash} but block ${seqno - 1} has root hash ${prev.id.root_hash}`);
    }
    const shardBlocks = await walkNewShardBlocks({
      tops: mc.tops,
      prevTops: prev?.tops ?? [],
      concurrency: walkConcurrency,
      load: async (id) => {
        const block = await loadVerifiedBlock(lite, id);
        return { block, prevRefs: block.prevRefs };
      },
    });
    const all = [...shardBlocks.map((s) => s.block), mc];
    const loaded = await Promise.all(all.map((b) => loadAccountStates(lite, b)));
    const states = loaded.map((l) => l.states);
    const missingStates = loaded.flatMap((l, i) => (l.missing.length > 0 ? [{ block: describeId(all[i].id), accounts: l.missing }] : []));
    const blockBytes = new Map<number, number>();
    let accountStates = 0;
    let accountStateBytes = 0;
    const blocks: RawBlock[] = all.map((b, i) => {
      blockBytes.set(b.id.workchain, (blockBytes.get(b.id.workchain) ?? 0) + b.boc.length);
      accountStates += states[i].length;
      for (const s of states[i]) accountStateBytes += s.boc.length;
      return {
        workchain: b.id.workchain,
        shard: b.id.shard,
        seqno: b.id.seqno,
        root_hash: b.id.root_hash,
        file_hash: b.id.file_hash,
        mc_seqno: seqno,
        seen_at_ms: seenAtMs,
        // The masterchain block (last) says how many blocks it commits: the index counts a
        // masterchain seqno as stored once that many block metas and all their records are.
        ...(b === mc ? { mc_blocks: all.length } : {}),
        boc: b.boc,
        account_states: states[i],
      };
    });
    return { seqno, id: mc.id, genUtime: mc.genUtime, seenAtMs, blocks, blockBytes, accountStates, accountStateBytes, missingStates };
  };

  return {
    prepare,
    knowId: (id) => {
      ids.set(id.seqno, id);
    },
    forget: (seqno) => {
      for (const k of cache.keys()) if (k < seqno) cache.delete(k);
      for (const k of ids.keys()) if (k < seqno) ids.delete(k);
    },
  };
}
