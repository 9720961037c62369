import type { Store } from './client.js';
import { batchRows, type RecordBatch, type Row } from './rows.js';
import { type TableName, TABLES } from './schema.js';

export type WriteResult = { rows: number; byTable: Record<string, number> };

/**
 * Writes a batch to every table. Not atomic across tables, and need not be: rows are keyed by their
 * natural ids, so a batch retried after a partial failure (its Kafka offsets were not committed)
 * lands each fact once. Lookup tables go first so a reader never finds a main row it cannot reach;
 * receipts go last, since they say the rest is stored (index-progress.ts). `beforeReceipts` runs
 * between the two, given the rows (the hot tier's write: what the receipts say is stored must be there too).
 */
export async function writeBatch(store: Store, batch: RecordBatch, beforeReceipts?: (rows: Record<TableName, Row[]>) => Promise<void>): Promise<WriteResult> {
  const rows = batchRows(batch);
  const byTable: Record<string, number> = {};
  let total = 0;
  const rank = (t: string) => (t === 'index_receipts' || t === 'trace_receipts' ? 2 : t.includes('_by_') ? 0 : 1);
  const order = [...TABLES].sort((a, b) => rank(a) - rank(b));
  let receipts = false;
  for (const table of order) {
    if (!receipts && rank(table) === 2) {
      receipts = true;
      await beforeReceipts?.(rows);
    }
    await store.insert(table, rows[table]);
    byTable[table] = rows[table].length;
    total += rows[table].length;
  }
  return { rows: total, byTable };
}
