export type { ActionRecord, AssembledTrace, ClassificationState, TraceInfo, TraceNodeRecord, TraceRecord, TraceState } from './trace-record.js';
export {
  assembleMasterchainBlock,
  emptyState,
  traceRecord,
  DEFAULT_INCOMPLETE_AFTER_MC_BLOCKS,
  SYSTEM_ADDRESS,
  type AssembleOptions,
  type AssemblerState,
  type BlockResult,
  type Edge,
  type PendingTrace,
} from './assembler.js';
export { compareTransactions, workchainOf } from './order.js';
export { joinTransactions, MissingMessageError } from './join.js';
export { traceTree, MISSING_NODE_WARNING, type TraceTree, type TraceTreeNode } from './tree.js';
export { parseActionRecord, parseTraceRecord } from './check.js';
export { actionAddresses } from './action-addresses.js';
export { parseTraceBatch, TRACE_BATCH_HEADER, type TraceBatch } from './batch.js';
