import { arr, B, component, more, N, obj, ref, S } from '../../http/schema-kit.js';

/** Response schemas of the block endpoints (docs/toncenter-v3.md §3 Block): 64-bit values and `gen_utime` are strings. */

export const BlockId = component('BlockId', obj({ workchain: N, shard: more(S, { description: 'hex, upper case' }), seqno: N }));
export const Block = component('Block', obj({
  workchain: N, shard: S, seqno: N, root_hash: S, file_hash: S,
  global_id: N, version: N, after_merge: B, before_split: B, after_split: B, want_merge: B, want_split: B,
  key_block: B, vert_seqno_incr: B, flags: N,
  gen_utime: more(S, { description: 'unix time as a string' }), start_lt: S, end_lt: S,
  validator_list_hash_short: N, gen_catchain_seqno: N, min_ref_mc_seqno: N, prev_key_block_seqno: N,
  vert_seqno: N, master_ref_seqno: N, rand_seed: S, created_by: S, tx_count: N,
  masterchain_block_ref: ref(BlockId), prev_blocks: arr(ref(BlockId)),
}));
export const MasterchainInfo = component('MasterchainInfo', obj({ last: ref(Block), first: ref(Block) }));
export const BlocksResponse = component('BlocksResponse', obj({ blocks: arr(ref(Block)) }));
