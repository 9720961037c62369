import type { TransactionDescrRecord } from './records.js';

/**
 * A transaction description as toncenter puts it on the wire: ton-index-go declares every field of
 * `TransactionDescr` and of each phase `omitempty`, so a null is left out, and so is an empty map
 * (`credit_extra_currencies: {}`). The record keeps its nulls (a null says "read, and absent" to
 * the pipeline); clients generated from toncenter's OpenAPI document expect the field gone.
 * `false` and `0` stay (toncenter's fields are pointers: only nil is omitted).
 */
export function wireDescription(d: TransactionDescrRecord): TransactionDescrRecord {
  return withoutEmpty(d) as TransactionDescrRecord;
}

function withoutEmpty(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    const kept = withoutEmpty(v);
    if (typeof kept === 'object' && kept !== null && !Array.isArray(kept) && Object.keys(kept).length === 0) continue;
    out[k] = kept;
  }
  return out;
}
