import { type AccountStateRecord, type BlockRecord, type MessageRow, type TransactionRow, transactionRow } from '@tonstream/records';
import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { actionColumns, actionText, traceColumns, traceText } from './trace-facts.js';
import type { Receipt } from './index-progress.js';
import type { TraceReceipt } from './trace-progress.js';
import type { TableName } from './schema.js';
import { tsvArray, type TsvValue } from './tsv.js';
import { tokenRows } from './token-rows.js';
import { contractRows } from './contract-rows.js';
import { derivesFromBoc, messageText, readsExtraFlags } from './transaction-facts.js';

/** A table row: flat scalars keyed by column name. */
export type Row = Record<string, TsvValue>;

/**
 * A record and the JSON text its table's `record` column keeps (what the API serves). The writer
 * passes on the text it consumed instead of serializing the record again.
 */
export type Stored<T> = { record: T; json: string };

/** What one write carries: records as the decoder publishes them. */
export type RecordBatch = {
  blocks: Stored<BlockRecord>[];
  transactions: Stored<TransactionRow>[];
  messages: Stored<MessageRow>[];
  accountStates: Stored<AccountStateRecord>[];
  /** The tracer's output: not part of any block's receipt (their availability is the tracer's progress). */
  traces: Stored<TraceRecord>[];
  actions: Stored<ActionRecord>[];
  /** What the batch stores of each consumed message; written after every other row. */
  receipts: Receipt[];
  /** The same for the tracer's messages (trace-progress.ts). */
  traceReceipts: TraceReceipt[];
};

export function emptyBatch(): RecordBatch {
  return { blocks: [], transactions: [], messages: [], accountStates: [], traces: [], actions: [], receipts: [], traceReceipts: [] };
}

/** A batch of plain records (e.g. from decodeBlock); transactions are stored with their messages by hash. */
export function recordBatch(records: { blocks?: BlockRecord[]; transactions?: TransactionRow[]; messages?: MessageRow[]; accountStates?: AccountStateRecord[]; traces?: TraceRecord[]; actions?: ActionRecord[] }): RecordBatch {
  const stored = <T>(record: T): Stored<T> => ({ record, json: JSON.stringify(record) });
  return {
    blocks: (records.blocks ?? []).map(stored),
    transactions: (records.transactions ?? []).map((t) => stored(transactionRow(t))),
    messages: (records.messages ?? []).map(stored),
    accountStates: (records.accountStates ?? []).map(stored),
    traces: (records.traces ?? []).map(stored),
    actions: (records.actions ?? []).map(stored),
    receipts: [],
    traceReceipts: [],
  };
}

/** Table rows for a batch: main tables plus their lookup tables. */
export function batchRows(batch: RecordBatch): Record<TableName, Row[]> {
  const rows: Record<TableName, Row[]> = {
    blocks: [],
    blocks_by_mc_seqno: [],
    shard_tops: [],
    transactions: [],
    transactions_by_hash: [],
    transactions_by_mc_seqno: [],
    messages: [],
    account_states_latest: [],
    account_states: [],
    traces: [],
    actions: [],
    index_receipts: batch.receipts,
    trace_receipts: batch.traceReceipts,
    ...tokenRows(batch.accountStates, batch.transactions),
    ...contractRows(batch.accountStates),
  };
  for (const { record: b, json } of batch.blocks) {
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
      record: json,
    });
    rows.blocks_by_mc_seqno.push({ mc_block_seqno: b.mc_block_seqno ?? 0, workchain: b.workchain, shard, seqno: b.seqno });
    for (const top of b.shard_tops ?? []) {
      rows.shard_tops.push({ mc_seqno: b.seqno, workchain: top.workchain, shard: BigInt('0x' + top.shard).toString(), seqno: top.seqno });
    }
  }
  for (const { record: t, json } of batch.transactions) {
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
      // The BoC is the fact; the record text only where the BoC and these columns do not give it again.
      record: derivesFromBoc(t) ? '' : t.boc === undefined ? json : withoutBoc(json, t),
      boc: t.boc ?? '',
      global_version: t.global_version ?? 0,
    });
    rows.transactions_by_hash.push({ hash: t.hash, account: t.account, lt: t.lt });
    rows.transactions_by_mc_seqno.push({ mc_block_seqno: mc, lt: t.lt, account: t.account });
  }
  for (const { record: m, json } of batch.messages) {
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
      record: messageText(m, json),
      reads_extra_flags: readsExtraFlags(m),
    });
  }
  for (const { record: s, json: consumed } of batch.accountStates) {
    const json = withoutContract(consumed, s);
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
      record: json,
    });
    rows.account_states.push({
      account: s.account,
      last_trans_lt: s.last_trans_lt,
      account_state_hash: s.account_state_hash,
      mc_block_seqno: s.mc_block_seqno ?? 0,
      balance: s.balance,
      code_hash: s.code_hash ?? '',
      record: json,
    });
  }
  for (const { record: t, json } of batch.traces) {
    const columns = traceColumns(t);
    rows.traces.push({ ...columns, tx_hashes: tsvArray(columns.tx_hashes), accounts: tsvArray(columns.accounts), record: traceText(t, columns, json) });
  }
  for (const { record: a, json } of batch.actions) {
    const columns = actionColumns(a);
    rows.actions.push({ ...columns, ancestor_type: tsvArray(columns.ancestor_type), tx_hashes: tsvArray(columns.tx_hashes), accounts: tsvArray(columns.accounts), record: actionText(a, columns, json) });
  }
  return rows;
}

/**
 * A transaction's JSON text without its `boc` field, which has its own column: the v3 reads decompress
 * the whole `record`, and the BoC would be about half of it. The field is cut from the text (the writer
 * stores the text it consumed, not a new serialization): base64 holds no quote, so `,"boc":"<value>"`
 * can only be the field itself. Text in another layout is serialized again.
 */
function withoutBoc(json: string, t: TransactionRow): string {
  const field = `,"boc":${JSON.stringify(t.boc)}`;
  const at = json.indexOf(field);
  if (at >= 0) return json.slice(0, at) + json.slice(at + field.length);
  const { boc: _boc, ...rest } = t;
  return JSON.stringify(rest);
}

/**
 * An account state's JSON text without its contract facts: the token and contract tables hold what
 * the API serves of them, and a state read back derives them again (`factsOf`), so the history keeps
 * no second copy. The decoder writes `contract` last; text in another layout is serialized again.
 */
function withoutContract(json: string, s: AccountStateRecord): string {
  if (s.contract === undefined) return json;
  const field = `,"contract":${JSON.stringify(s.contract)}}`;
  if (json.endsWith(field)) return `${json.slice(0, json.length - field.length)}}`;
  const { contract: _contract, ...rest } = s;
  return JSON.stringify(rest);
}
