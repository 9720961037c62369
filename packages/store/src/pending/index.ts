export { pendingKeys, DEFAULT_PENDING_PREFIX, TRACE_FIELDS, type PendingKeys, type TraceIndex } from './layout.js';
export { putPendingTrace, hasPendingTrace, traceIndex, REDIS_TTL_GRACE_MS, type PendingTraceEntry } from './write.js';
export { deletePendingTrace, sweepExpiredTraces, DELETE_PENDING_TRACE_LUA, SWEEP_EXPIRED_LUA } from './delete.js';
export { readPendingTraces, readPendingActions, readPendingTransactions, MAX_PENDING_TRACES, type PendingQuery, type StoredPendingTrace } from './read.js';
