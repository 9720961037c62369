/**
 * bench:storage's arithmetic: the active parts of a database (system.parts, summed per table) folded
 * into bytes on disk per table and per transaction. Pure, so it is unit-tested (test/unit/bench-storage-report.test.ts).
 */

/** One table's active parts, summed (`SELECT table, sum(bytes_on_disk) … FROM system.parts WHERE active GROUP BY table`). */
export type TableParts = { table: string; bytes_on_disk: number; data_compressed_bytes: number; data_uncompressed_bytes: number; rows: number; parts: number };

export type TableStorage = { bytes: number; rows: number; bytes_per_tx: number };

export type SchemaStorage = {
  total_bytes: number;
  bytes_per_tx: number;
  /** Column data only (no marks, primary index, checksums), compressed and as read. */
  compressed_bytes: number;
  uncompressed_bytes: number;
  tables: Record<string, TableStorage>;
};

/** The bench's own bookkeeping tables (api-bench-traces.ts's `bench_traces`), not part of the schema. */
const BENCH_TABLE = /^bench_/;
/** A materialized view without `TO` stores its rows in `.inner.<view>`: counted under the view's name. */
const INNER = /^\.inner\./;

const perTx = (bytes: number, transactions: number) => (transactions > 0 ? Math.round((bytes / transactions) * 10) / 10 : 0);

/**
 * Bytes on disk per table and in total, and per transaction. `tables` names every table the schema
 * stores rows in, so a table left empty is reported with 0 bytes rather than missing; `parts` are its
 * active parts summed per table (a table may appear in either list under its `.inner.` name).
 */
export function storageReport(tables: readonly string[], parts: readonly TableParts[], transactions: number): SchemaStorage {
  const byTable = new Map<string, TableStorage>();
  const named = (table: string) => table.replace(INNER, '');
  for (const table of tables) if (!BENCH_TABLE.test(named(table))) byTable.set(named(table), { bytes: 0, rows: 0, bytes_per_tx: 0 });
  let total = 0;
  let compressed = 0;
  let uncompressed = 0;
  for (const p of parts) {
    const name = named(p.table);
    if (BENCH_TABLE.test(name)) continue;
    const t = byTable.get(name) ?? { bytes: 0, rows: 0, bytes_per_tx: 0 };
    t.bytes += p.bytes_on_disk;
    t.rows += p.rows;
    byTable.set(name, t);
    total += p.bytes_on_disk;
    compressed += p.data_compressed_bytes;
    uncompressed += p.data_uncompressed_bytes;
  }
  const sorted = [...byTable.entries()].sort(([a, x], [b, y]) => y.bytes - x.bytes || a.localeCompare(b));
  return {
    total_bytes: total,
    bytes_per_tx: perTx(total, transactions),
    compressed_bytes: compressed,
    uncompressed_bytes: uncompressed,
    tables: Object.fromEntries(sorted.map(([name, t]) => [name, { ...t, bytes_per_tx: perTx(t.bytes, transactions) }])),
  };
}

/** after / before in total bytes, to three decimals (1 when both are the same schema). */
export function storageRatio(before: SchemaStorage, after: SchemaStorage): number {
  return before.total_bytes > 0 ? Math.round((after.total_bytes / before.total_bytes) * 1000) / 1000 : 0;
}
