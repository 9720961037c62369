import { InvalidRecordError } from '@tonstream/records';
import type { ActionRecord, TraceRecord } from './trace-record.js';

const HASH = /^[A-Za-z0-9+/]{43}=$/;
const ADDRESS = /^-?[0-9]{1,10}:[0-9A-F]{64}$/;
const UINT64 = /^[0-9]{1,20}$/;
const ACTION_TYPE = /^[A-Za-z0-9_.]{1,64}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const uint32 = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffff_ffff;
const hash = (v: unknown) => typeof v === 'string' && HASH.test(v);
const hashOrNull = (v: unknown) => v === null || hash(v);
const lt = (v: unknown) => typeof v === 'string' && UINT64.test(v);

function parse(kind: string, json: string, maxChars: number): Obj {
  if (json.length > maxChars) throw new InvalidRecordError(`${kind} record of ${json.length} characters is over the ${maxChars}-character record limit`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new InvalidRecordError(`${kind} record is not JSON: ${(err as Error).message}`);
  }
  if (!isObj(value)) throw new InvalidRecordError(`${kind} record is not an object`);
  return value;
}

function expectFields(kind: string, o: Obj, checks: Record<string, (v: unknown) => boolean>): void {
  for (const [field, ok] of Object.entries(checks)) {
    if (!ok(o[field])) throw new InvalidRecordError(`${kind} record: field ${field} is missing or invalid`);
  }
}

const TRACE_STATES = new Set(['complete', 'pending', 'broken']);
const CLASSIFICATION_STATES = new Set(['unclassified', 'failed', 'ok', 'broken']);

/** Parses and checks a `ton.traces` record: every field the store's columns and the tree rely on. Throws InvalidRecordError only. */
export function parseTraceRecord(json: string, maxChars: number): TraceRecord {
  const o = parse('trace', json, maxChars);
  expectFields('trace', o, {
    trace_id: hash,
    external_hash: hashOrNull,
    external_hash_norm: hashOrNull,
    mc_seqno_start: uint32,
    mc_seqno_end: uint32,
    start_lt: lt,
    end_lt: lt,
    start_utime: uint32,
    end_utime: uint32,
    is_incomplete: (v) => typeof v === 'boolean',
    trace_info: (v) =>
      isObj(v) && TRACE_STATES.has(v.trace_state as string) && CLASSIFICATION_STATES.has(v.classification_state as string) && uint32(v.messages) && uint32(v.transactions) && uint32(v.pending_messages),
    nodes: (v) =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((n) => isObj(n) && hash(n.tx_hash) && typeof n.account === 'string' && ADDRESS.test(n.account) && lt(n.lt) && hashOrNull(n.in_msg_hash) && hashOrNull(n.parent) && uint32(n.out_msgs)),
  });
  return o as TraceRecord;
}

/** Parses and checks a `ton.actions` record: the fields the store indexes (the rest is kept as is). Throws InvalidRecordError only. */
export function parseActionRecord(json: string, maxChars: number): ActionRecord {
  const o = parse('action', json, maxChars);
  expectFields('action', o, {
    action_id: hash,
    trace_id: hash,
    type: (v) => typeof v === 'string' && ACTION_TYPE.test(v),
    success: (v) => v === null || typeof v === 'boolean',
    start_lt: lt,
    end_lt: lt,
    start_utime: uint32,
    end_utime: uint32,
    trace_end_lt: lt,
    trace_end_utime: uint32,
    trace_mc_seqno_end: uint32,
    transactions: (v) => Array.isArray(v) && v.every(hash),
    accounts: (v) => Array.isArray(v) && v.every((a) => typeof a === 'string' && ADDRESS.test(a)),
    parent_action_id: (v) => v === undefined || hashOrNull(v),
    ancestor_type: (v) => v === undefined || (Array.isArray(v) && v.every((t) => typeof t === 'string' && ACTION_TYPE.test(t))),
  });
  return o as ActionRecord;
}
