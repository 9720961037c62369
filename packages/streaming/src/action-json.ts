import { isActionShown } from '@tonstream/actions';
import type { ActionRecord } from '@tonstream/traces';
import { cmpLt } from './trace-links.js';

/** The public fields of toncenter's v3 `Action`, in its order; the stored record also keeps classifier-internal ones (`ancestor_type`). */
const PUBLIC_FIELDS = [
  'trace_id', 'action_id', 'start_lt', 'end_lt', 'start_utime', 'end_utime', 'trace_end_lt', 'trace_end_utime', 'trace_mc_seqno_end',
  'transactions', 'success', 'type', 'details',
] as const;

/** An action as an event holds it: the record and its JSON per finality, built on first use. */
export type EventAction = { record: ActionRecord; json: Partial<Record<string, string>> };

/** What selects the actions a client is shown (reference §3): `action_types` (null: all), then the version rule. */
export type ActionFilter = { actionTypes: ReadonlySet<string> | null; supported: ReadonlySet<string> };

/** Actions in the order events list them (§6.2): `end_lt` descending, then `start_lt` descending. */
export function eventActions(records: readonly ActionRecord[]): EventAction[] {
  return [...records].sort((a, b) => cmpLt(b.end_lt, a.end_lt) || cmpLt(b.start_lt, a.start_lt) || (a.action_id < b.action_id ? -1 : 1)).map((record) => ({ record, json: {} }));
}

/**
 * The streamed v3 `Action` (§6.2): public fields plus `accounts`, the trace's external hashes and the
 * action's own `finality`; `trace_id` null while the root is emulated. `norm` is the event's key.
 */
export function actionJson(a: EventAction, finality: string, norm: string): string {
  const cached = a.json[finality];
  if (cached !== undefined) return cached;
  const r = a.record;
  const out: Record<string, unknown> = {};
  for (const f of PUBLIC_FIELDS) out[f] = r[f] ?? null;
  out.trace_external_hash = r.trace_external_hash ?? null;
  out.trace_external_hash_norm = norm;
  out.accounts = r.accounts;
  out.finality = finality;
  const json = JSON.stringify(out);
  a.json[finality] = json;
  return json;
}

export function isActionSelected(a: ActionRecord, f: ActionFilter): boolean {
  if (f.actionTypes !== null && !f.actionTypes.has(a.type)) return false;
  return isActionShown(a, f.supported);
}
