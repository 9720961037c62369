import type { ActionRecord } from '@tonstream/traces';

/** The fields of toncenter's public Action object (docs/toncenter-v3.md §3); the stored record also keeps classifier-internal ones. */
const PUBLIC_FIELDS = [
  'trace_id', 'action_id', 'start_lt', 'end_lt', 'start_utime', 'end_utime', 'trace_end_lt', 'trace_end_utime', 'trace_mc_seqno_end',
  'transactions', 'success', 'type', 'details', 'trace_external_hash', 'trace_external_hash_norm',
] as const;

/** A stored action as `/actions` serves it: `accounts` only when asked, `finality` always finalized (indexed data). */
export function toV3Action(a: ActionRecord, includeAccounts: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of PUBLIC_FIELDS) if (a[f] !== undefined && !(f.startsWith('trace_external') && a[f] === null)) out[f] = a[f];
  if (includeAccounts) out.accounts = a.accounts;
  out.finality = 'finalized';
  return out;
}
