import { CONTRACT_TABLES } from './contract-schema.js';
import { TOKEN_TABLES } from './token-schema.js';

/**
 * Index granularity of the tables that hold `record` (migration 6). Lookups read a few granules
 * per key; the price of small granules is a larger primary index, which 18.16 keeps in memory:
 * measured 0.33 bytes per row for transactions and account_states, 0.46 for messages (about
 * 330 MB per billion transactions; 1024 takes a quarter of that, and was up to 1.5x slower).
 * The migrations hold the value as text: a change needs a migration.
 */
export const RECORD_GRANULARITY = 256;

/**
 * Masterchain seqnos per partition of index_receipts and trace_receipts (about 40 days of mainnet):
 * the partitioning migrations 2 and 17 gave them, so a change needs a migration too.
 */
export const RECEIPT_PARTITION_SEQNOS = 1_000_000;

/** Tables written by `writeBatch`, for tests and tools that check every table. */
export const TABLES = [
  'blocks',
  'blocks_by_mc_seqno',
  'shard_tops',
  'transactions',
  'transactions_by_hash',
  'transactions_by_mc_seqno',
  'messages',
  'account_states_latest',
  'account_states',
  'traces',
  'actions',
  ...TOKEN_TABLES,
  ...CONTRACT_TABLES,
  'index_receipts',
  'trace_receipts',
] as const;
export type TableName = (typeof TABLES)[number];
