import type { BlockRecord } from '@tonstream/records';

/** The v3 `Block` object: the record without the fields only the pipeline uses. */
export type V3Block = Omit<BlockRecord, 'prev_refs' | 'in_msg_descr_length' | 'out_msg_descr_length' | 'value_flow' | 'mc_block_seqno'> & {
  mc_block_seqno?: number;
};

export function toV3Block(record: BlockRecord): V3Block {
  const { prev_refs: _p, in_msg_descr_length: _i, out_msg_descr_length: _o, value_flow: _v, mc_block_seqno, ...rest } = record;
  return mc_block_seqno === null ? rest : { ...rest, mc_block_seqno };
}
