export { parseExternal, ExternalMessageError, type ExternalMessage } from './external.js';
export type { ChainState, HeadBlock, AccountSnapshot } from './chain-state.js';
export { createLiteState, configDictFromProof, shardAccountBoc, HEAD_TTL_MS, type LiteStateOptions } from './lite-state.js';
export { createTraceEmulator, MAX_TRACE_DEPTH, MAX_TRACE_TRANSACTIONS, type EmulationLimits, type EmulationOutcome, type EmulatedTransaction, type TraceEmulator, type TraceEmulatorOptions } from './emulate-trace.js';
export { decodeEmulatedTransaction, type DecodedTransaction } from './tx-record.js';
export { pendingTrace, pendingRows, type Finality, type PendingMarks, type PendingTrace, type PendingTraceNode, type PendingTraceResult, type PendingTransaction } from './pending-trace.js';
export { classifyPending, type ClassifiedAction, type ClassifierInput, type InterfaceLookup, type PendingAction, type TraceClassifier } from './classify.js';
export { detectInterfaces, type DetectedInterfaces, type InterfaceProbe } from './interfaces.js';
