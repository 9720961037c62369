import { batchRows, type RecordBatch, type Row, type Store, TABLES } from '@tonstream/store';

/**
 * The writer of schema 17, the one before issue 26 changed what is stored (bench:storage's `before` side,
 * store.test.ts's rows written before migration 18): today's rows for the tables that kept their form, and as schema 17 wrote them the ones that
 * changed: `transactions` with its record text (no BoC or global version columns), the BoCs apart in
 * `transaction_bocs`, message rows with their whole record (no `reads_extra_flags`), and `messages_by_account`;
 * `transactions_by_mc_seqno` with the transaction hash, and trace and action rows with their whole record
 * text (the lookups migration 19 replaced are schema 17's views and fill themselves).
 */
export async function writeSchema17Batch(store: Store, batch: RecordBatch): Promise<void> {
  const rows: Record<string, Row[]> = batchRows(batch);
  rows.transactions = rows.transactions.map(({ boc: _boc, global_version: _version, ...row }, i) => {
    const { boc: _b, ...record } = batch.transactions[i].record;
    return { ...row, record: JSON.stringify(record) };
  });
  rows.transaction_bocs = batch.transactions.flatMap(({ record: t }) => (t.boc === undefined ? [] : [{ account: t.account, lt: t.lt, boc: t.boc }]));
  rows.messages = rows.messages.map(({ reads_extra_flags: _flags, ...row }, i) => ({ ...row, record: batch.messages[i].json }));
  rows.messages_by_account = batch.messages.flatMap(({ record: m }) => {
    const account = m.direction === 'in' ? m.destination : m.source;
    return account ? [{ account, created_lt: m.created_lt ?? m.tx_lt, hash: m.hash, direction: m.direction, tx_hash: m.tx_hash }] : [];
  });
  rows.transactions_by_mc_seqno = rows.transactions_by_mc_seqno.map((row, i) => ({ ...row, hash: batch.transactions[i].record.hash }));
  rows.traces = rows.traces.map((row, i) => ({ ...row, record: batch.traces[i].json }));
  rows.actions = rows.actions.map((row, i) => ({ ...row, record: batch.actions[i].json }));
  for (const table of [...TABLES, 'transaction_bocs', 'messages_by_account']) await store.insert(table, rows[table]);
}
