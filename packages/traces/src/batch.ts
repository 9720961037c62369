import { InvalidRecordError } from '@tonstream/records';

/**
 * The tracer's mark of one published batch (`ton.trace_batches`, key = `mc_seqno`): it traced
 * masterchain blocks `first_mc_seqno`..`mc_seqno` and published, for them, `traces` trace records and
 * `actions` action records, each message of which carries the header `mc_seqno`. The writer counts
 * what it stored of each batch against this mark: that is the traces watermark (packages/store
 * trace-progress.ts). `first_mc_seqno` 0: a tracer that began without a saved state, so it publishes
 * nothing for any seqno below `mc_seqno`.
 */
export type TraceBatch = { mc_seqno: number; first_mc_seqno: number; traces: number; actions: number };

/** Header of every `ton.traces` and `ton.actions` message: the masterchain seqno of the batch it belongs to. */
export const TRACE_BATCH_HEADER = 'mc_seqno';

const uint32 = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffff_ffff;

/** Parses and checks a `ton.trace_batches` record. Throws InvalidRecordError only. */
export function parseTraceBatch(json: string): TraceBatch {
  let o: unknown;
  try {
    o = JSON.parse(json);
  } catch (err) {
    throw new InvalidRecordError(`trace batch record is not JSON: ${(err as Error).message}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new InvalidRecordError('trace batch record is not an object');
  const b = o as Record<string, unknown>;
  for (const field of ['mc_seqno', 'first_mc_seqno', 'traces', 'actions']) {
    if (!uint32(b[field])) throw new InvalidRecordError(`trace batch record: field ${field} is missing or invalid`);
  }
  if ((b.first_mc_seqno as number) > (b.mc_seqno as number)) throw new InvalidRecordError('trace batch record: first_mc_seqno is above mc_seqno');
  return { mc_seqno: b.mc_seqno as number, first_mc_seqno: b.first_mc_seqno as number, traces: b.traces as number, actions: b.actions as number };
}
