import type { BlockRecord } from '@tonstream/records';

/** The v3 `Block` object: the record without the fields only the pipeline uses (toncenter's Block has no `mc_block_seqno`). */
export type V3Block = Omit<BlockRecord, 'prev_refs' | 'in_msg_descr_length' | 'out_msg_descr_length' | 'value_flow' | 'mc_block_seqno' | 'shard_tops'>;

export function toV3Block(record: BlockRecord): V3Block {
  const { prev_refs: _p, in_msg_descr_length: _i, out_msg_descr_length: _o, value_flow: _v, shard_tops: _s, mc_block_seqno: _m, ...rest } = record;
  return rest;
}
