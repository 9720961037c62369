export type * from './records.js';
export { transactionRow, isTransactionRow } from './records.js';
export { parseRecord, InvalidRecordError, MAX_RECORD_CHARS, type RecordKind, type RecordOf } from './parse.js';
export { MANIFEST_HEADER, parseManifest, type BlockManifest } from './manifest.js';
export type { JettonBurnEvent, JettonTransferEvent, NftTransferEvent, TokenEvent } from './token-events.js';
export { wireDescription } from './wire.js';
