export { createStore, type QueryOptions, type Store, type StoreOptions } from './client.js';
export { migrate, type MigrateResult } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export { RECEIPT_PARTITION_SEQNOS, RECORD_GRANULARITY, TABLES, type TableName } from './schema.js';
export { balanceBucket } from './token-schema.js';
export { writeBatch, type WriteResult } from './write.js';
export { batchRows, emptyBatch, recordBatch, type RecordBatch, type Stored } from './rows.js';
export { StoreError, toStoreError } from './errors.js';
export { str, uint, int32, strList, ident, SqlValueError } from './sql.js';
export { toTsv, tsvField, type TsvValue } from './tsv.js';
export type { Row } from './rows.js';
export { advanceWatermark, dropOldReceipts, indexStart, readProgress, readWatermark, saveWatermark, type Advance, type BlockProgress, type Receipt, type ReceiptKind, type Watermark } from './index-progress.js';
export {
  advanceTracesWatermark,
  readTraceProgress,
  readTracesWatermark,
  readWatermarks,
  saveTracesWatermark,
  tracesStart,
  type TraceAdvance,
  type TraceBatchProgress,
  type TraceReceipt,
  type TraceReceiptKind,
  type TracesWatermark,
} from './trace-progress.js';
export { masterchainBlockIndexed, masterchainInfo } from './reads/masterchain.js';
export { checkRange, type HistoryRange, lowerFloor, rangeComplete, readHistoryFloor, readHistoryRanges, readRangeCheck, saveHistoryFloor, saveRangeCheck } from './history.js';
export { readBlocks, type BlockFilter, type BlockOrder } from './reads/blocks.js';
export { messageKey, readTransactionBocs, readTransactionMessages, readTransactions, type TransactionFilter, type TransactionOrder } from './reads/transactions.js';
export { accountStateKey, type AccountStateSummary, readAccountStates, readAccountStatesByHash, readCodeHashes, readTopBalances } from './reads/accounts.js';
export { readAdjacentTransactionHashes, readMessages, type FoundMessage, type MessageFilter, type MessageOrder } from './reads/messages.js';
export { readDeadLetterCounts, readIndexRates, type DeadLetterCount, type RateBucket } from './reads/status.js';
export type { Page, ReadScope, SortDirection } from './reads/scope.js';
export { POINT_READ_SETTINGS, servedSeqnos, tracesBound } from './reads/scope.js';
export { readTraces, readTransactionTraceIds, type TraceFilter, type TraceOrder } from './reads/traces.js';
export { TRACE_COLUMNS, type TraceRow, traceFromRow } from './trace-facts.js';
export { readActions, readTraceActions, type ActionFilter, type ActionOrder } from './reads/actions.js';
export * from './pending/index.js';
export * from './hot/index.js';
export * from './api-keys/index.js';
export { readJettonHolders, readJettonMasters, readJettonWallets, readNftCollections, readNftItems, readTokenAddresses, readTokenEvents, type EventFilter, type EventKind, type JettonWalletFilter, type NftItemFilter, type NftListing, type Row as TokenRow } from './reads/tokens.js';
export * from './metadata/index.js';
export { readDnsDomains, readDnsEntries, readMultisigOrders, readMultisigWallets, readNftSales, readNftSalesBySeller, readSalesOfItems, readVestingContracts, type ContractRow } from './reads/contracts.js';
export { readAddressFacts, type AddressFacts } from './reads/address-facts.js';
export { readCodeInterfaces, type CodeInterfaces } from './reads/code-interfaces.js';
export { buildTokenMetadata, metadataOfEach, tokenMetadataOf, tokenMetadata, type AddressMetadata, type TokenInfo } from './reads/token-metadata.js';
export { connectFailFastRedis } from './redis-connection.js';
