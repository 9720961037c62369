/**
 * The Redis layout of pending (emulated) traces, after toncenter's (docs/traces-and-actions.md §5.3), all
 * under one prefix (default `tonstream:`):
 *
 * | key | type | content |
 * |---|---|---|
 * | `pending:trace:<hash_norm>` | hash | `trace` (PendingTrace JSON), `tx:<in_msg hash>` (one PendingTransaction JSON per transaction), `actions` (JSON list), `index` (what the trace put in the keys below, for deletion) |
 * | `pending:account_txs:<wc:HEX>` | sorted set | `<hash_norm>:<in_msg hash>` by tx lt: the account's pending transactions |
 * | `pending:account_actions:<wc:HEX>` | sorted set | `<hash_norm>:<action_id>` by trace start lt: every account of every action |
 * | `pending:msg:<msg hash>` | string | `<hash_norm>`: every message of the trace (the external's raw hash included) |
 * | `pending:expiry` | sorted set | `<hash_norm>` by expiry time (ms): the emulator's sweeper expires and counts them |
 *
 * Hashes are standard base64 (they contain `/` and `+` but never `:`). Every key also carries a Redis
 * TTL a little past the trace's expiry, so nothing outlives it when no sweeper runs.
 */
export type PendingKeys = {
  prefix: string;
  trace(hashNorm: string): string;
  accountTxs(account: string): string;
  accountActions(account: string): string;
  message(hash: string): string;
  expiry: string;
};

export const DEFAULT_PENDING_PREFIX = 'tonstream:';

export function pendingKeys(prefix = DEFAULT_PENDING_PREFIX): PendingKeys {
  return {
    prefix,
    trace: (h) => `${prefix}pending:trace:${h}`,
    accountTxs: (a) => `${prefix}pending:account_txs:${a}`,
    accountActions: (a) => `${prefix}pending:account_actions:${a}`,
    message: (h) => `${prefix}pending:msg:${h}`,
    expiry: `${prefix}pending:expiry`,
  };
}

/** Field names inside a trace hash. */
export const TRACE_FIELDS = { trace: 'trace', actions: 'actions', index: 'index', txPrefix: 'tx:' } as const;

/** What a trace added to shared keys: `[account, member suffix]` pairs and message hashes. */
export type TraceIndex = { txs: [string, string][]; actions: [string, string][]; messages: string[] };
