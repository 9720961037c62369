import type { AccountStateRecord, BlockRecord, MessageRow, TransactionRow } from '@tonstream/block';
import type { TableName } from './schema.js';
import type { TsvValue } from './tsv.js';

/** A table row: flat scalars keyed by column name. */
export type Row = Record<string, TsvValue>;

/** What one write carries: records as the decoder publishes them. */
export type RecordBatch = {
  blocks: BlockRecord[];
  transactions: TransactionRow[];
  messages: MessageRow[];
  accountStates: AccountStateRecord[];
};

export function emptyBatch(): RecordBatch {
  return { blocks: [], transactions: [], messages: [], accountStates: [] };
}

/** Table rows for a batch: main tables plus their lookup tables. */
export function batchRows(batch: RecordBatch): Record<TableName, Row[]> {
  const rows: Record<TableName, Row[]> = {
    blocks: [],
    blocks_by_mc_seqno: [],
    transactions: [],
    transactions_by_hash: [],
    transactions_by_mc_seqno: [],
    messages: [],
    messages_by_account: [],
    account_states_latest: [],
  };
  for (const b of batch.blocks) {
    const shard = BigInt('0x' + b.shard).toString();
    rows.blocks.push({
      workchain: b.workchain,
      shard,
      seqno: b.seqno,
      root_hash: b.root_hash,
      file_hash: b.file_hash,
      mc_block_seqno: b.mc_block_seqno ?? 0,
      gen_utime: Number(b.gen_utime),
      start_lt: b.start_lt,
      end_lt: b.end_lt,
      tx_count: b.tx_count,
      record: JSON.stringify(b),
    });
    rows.blocks_by_mc_seqno.push({ mc_block_seqno: b.mc_block_seqno ?? 0, workchain: b.workchain, shard, seqno: b.seqno });
  }
  for (const t of batch.transactions) {
    const mc = t.mc_block_seqno ?? 0;
    rows.transactions.push({
      account: t.account,
      lt: t.lt,
      hash: t.hash,
      now: t.now,
      mc_block_seqno: mc,
      workchain: t.block_ref.workchain,
      shard: BigInt('0x' + t.block_ref.shard).toString(),
      block_seqno: t.block_ref.seqno,
      orig_status: t.orig_status,
      end_status: t.end_status,
      total_fees: t.total_fees,
      descr_type: t.description.type,
      aborted: t.description.aborted ? 1 : 0,
      in_msg_hash: t.in_msg?.hash ?? '',
      out_msg_count: t.out_msgs.length,
      // Messages live in their own table; the API joins them back.
      record: JSON.stringify({ ...t, in_msg: t.in_msg ? { hash: t.in_msg.hash } : null, out_msgs: t.out_msgs.map((m) => ({ hash: m.hash })) }),
    });
    rows.transactions_by_hash.push({ hash: t.hash, account: t.account, lt: t.lt });
    rows.transactions_by_mc_seqno.push({ mc_block_seqno: mc, lt: t.lt, account: t.account, hash: t.hash });
  }
  for (const m of batch.messages) {
    rows.messages.push({
      hash: m.hash,
      direction: m.direction,
      tx_hash: m.tx_hash,
      tx_lt: m.tx_lt,
      tx_now: 0,
      mc_block_seqno: m.mc_block_seqno ?? 0,
      source: m.source ?? '',
      destination: m.destination ?? '',
      value: m.value ?? '0',
      opcode: m.opcode === null ? -1 : Number.parseInt(m.opcode, 16),
      created_lt: m.created_lt ?? '0',
      created_at: m.created_at === null ? 0 : Number(m.created_at),
      body_hash: m.message_content.hash,
      hash_norm: m.hash_norm ?? '',
      record: JSON.stringify(m),
    });
    // Each side of the message gets a row for its account's history.
    const lt = m.created_lt ?? m.tx_lt;
    const account = m.direction === 'in' ? m.destination : m.source;
    if (account) rows.messages_by_account.push({ account, created_lt: lt, hash: m.hash, direction: m.direction, tx_hash: m.tx_hash });
  }
  for (const s of batch.accountStates) {
    rows.account_states_latest.push({
      account: s.account,
      last_trans_lt: s.last_trans_lt,
      last_trans_hash: s.last_trans_hash,
      account_state_hash: s.account_state_hash,
      balance: s.balance,
      status: s.status,
      code_hash: s.code_hash ?? '',
      data_hash: s.data_hash ?? '',
      frozen_hash: s.frozen_hash ?? '',
      mc_block_seqno: s.mc_block_seqno ?? 0,
      gen_utime: s.gen_utime,
      record: JSON.stringify(s),
    });
  }
  return rows;
}
