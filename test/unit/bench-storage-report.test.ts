import { describe, expect, it } from 'vitest';
import { storageRatio, storageReport, type TableParts } from '../bench/storage-report.js';

const parts = (table: string, bytes: number, rows: number, n = 1): TableParts => ({ table, bytes_on_disk: bytes, data_compressed_bytes: bytes - 100, data_uncompressed_bytes: bytes * 4, rows, parts: n });

describe('storageReport (bench:storage)', () => {
  it('sums bytes per table and in total, per transaction, largest table first', () => {
    const r = storageReport(['messages', 'transactions'], [parts('transactions', 3_000, 1_000), parts('messages', 5_000, 2_000)], 1_000);
    expect(r.total_bytes).toBe(8_000);
    expect(r.bytes_per_tx).toBe(8);
    expect(r.compressed_bytes).toBe(7_800);
    expect(r.uncompressed_bytes).toBe(32_000);
    expect(Object.keys(r.tables)).toEqual(['messages', 'transactions']);
    expect(r.tables.transactions).toEqual({ bytes: 3_000, rows: 1_000, bytes_per_tx: 3 });
    expect(r.tables.messages).toEqual({ bytes: 5_000, rows: 2_000, bytes_per_tx: 5 });
  });

  it("counts a materialized view's inner table under the view's name", () => {
    const r = storageReport(['.inner.messages_by_opcode'], [parts('.inner.messages_by_opcode', 700, 10)], 7);
    expect(r.tables).toEqual({ messages_by_opcode: { bytes: 700, rows: 10, bytes_per_tx: 100 } });
  });

  it('reports a stored table without parts as empty, and leaves out the bench bookkeeping tables', () => {
    const r = storageReport(['bench_traces', 'nft_sales', 'traces'], [parts('bench_traces', 900, 1), parts('traces', 1_000, 3)], 3);
    expect(r.tables).toEqual({ traces: { bytes: 1_000, rows: 3, bytes_per_tx: 333.3 }, nft_sales: { bytes: 0, rows: 0, bytes_per_tx: 0 } });
    expect(r.total_bytes).toBe(1_000);
  });

  it('is zero per transaction when nothing was written', () => {
    expect(storageReport(['transactions'], [], 0)).toEqual({ total_bytes: 0, bytes_per_tx: 0, compressed_bytes: 0, uncompressed_bytes: 0, tables: { transactions: { bytes: 0, rows: 0, bytes_per_tx: 0 } } });
  });

  it('gives after / before as the ratio', () => {
    const before = storageReport([], [parts('transactions', 4_000, 10)], 10);
    const after = storageReport([], [parts('transactions', 1_000, 10)], 10);
    expect(storageRatio(before, after)).toBe(0.25);
    expect(storageRatio(before, before)).toBe(1);
  });
});
