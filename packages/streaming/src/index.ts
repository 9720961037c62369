export { normalizeAddress, normalizeTraceHash, userFriendly } from './address.js';
export { formatCursor, parseCursor, isAfter, wholeBlock, type Cursor, type Position, type Stage } from './cursor.js';
export {
  SUBSCRIBABLE_TYPES,
  FINALITY_RANK,
  emptySubscription,
  parseSubscription,
  applySubscription,
  parseUnsubscribe,
  parseEnvelope,
  type Envelope,
  type Finality,
  type Parsed,
  type SubscribableType,
  type Subscription,
  type SubscriptionRequest,
  type Transport,
  type UnsubscribeRequest,
} from './subscription.js';
export { createTraceLinks, cmpLt, type TraceLinks, type TraceRef } from './trace-links.js';
export { blockEvents, traceEvents, transactionsEvent, eventAddresses, eventTrace, extrasAddresses, notificationJson, transactionJson, accountStateJson, type AddressExtras, type BlockEvent, type EventTx, type JettonWalletState, type TraceNode, type View } from './events.js';
export { actionJson, eventActions, isActionSelected, type ActionFilter, type EventAction } from './action-json.js';
export { jettonWalletOf } from './jetton-wallets.js';
export { decodePendingTraceMessage, pendingEvents, type PendingTraceMessage } from './pending-events.js';
export { createTracerJoin, type TracerJoin } from './tracer-join.js';
export { createCollector, type Collector, type CollectorOptions, type Consumed, type McRecords } from './collector.js';
export { createFanout, newClientState, type Client, type Fanout, type FanoutOptions, type ReplayProgress, type ResumeCheck } from './fanout.js';
