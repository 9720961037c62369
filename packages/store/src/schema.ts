import { ident } from './sql.js';

/**
 * Versioned schema. Each migration is a list of single statements (18.16 takes one per request),
 * all idempotent (`IF NOT EXISTS`), so a migration interrupted half way is simply applied again.
 * Never edit a released migration: add a new one.
 *
 * Store design (ARCHITECTURE.md): every table is a ReplacingMergeTree keyed by its natural id, so
 * replayed batches collapse; the main table of each kind is ordered for its common range scan, other
 * access paths get narrow lookup tables written in the same batch. Tables are not partitioned:
 * 18.16 deduplicates (FINAL, OPTIMIZE) only within a partition. `record` keeps the full v3 JSON.
 */
export type Migration = { version: number; name: string; statements: (db: string) => string[] };

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'blocks, transactions, messages, latest account states',
    statements: (database) => {
      const db = ident(database);
      return [
        `CREATE TABLE IF NOT EXISTS ${db}.blocks (
          workchain Int32, shard UInt64, seqno UInt32,
          root_hash String, file_hash String, mc_block_seqno UInt32,
          gen_utime UInt32, start_lt UInt64, end_lt UInt64, tx_count UInt32,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (workchain, shard, seqno)`,
        `CREATE TABLE IF NOT EXISTS ${db}.blocks_by_mc_seqno (
          mc_block_seqno UInt32, workchain Int32, shard UInt64, seqno UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_block_seqno, workchain, shard, seqno)`,
        `CREATE TABLE IF NOT EXISTS ${db}.transactions (
          account String, lt UInt64, hash String, now UInt32, mc_block_seqno UInt32,
          workchain Int32, shard UInt64, block_seqno UInt32,
          orig_status String, end_status String, total_fees UInt64, descr_type String, aborted UInt8,
          in_msg_hash String, out_msg_count UInt16,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (account, lt)`,
        `CREATE TABLE IF NOT EXISTS ${db}.transactions_by_hash (
          hash String, account String, lt UInt64
        ) ENGINE = ReplacingMergeTree ORDER BY hash`,
        `CREATE TABLE IF NOT EXISTS ${db}.transactions_by_mc_seqno (
          mc_block_seqno UInt32, lt UInt64, account String, hash String
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_block_seqno, lt, account)`,
        `CREATE TABLE IF NOT EXISTS ${db}.messages (
          hash String, direction String, tx_hash String, tx_lt UInt64, tx_now UInt32, mc_block_seqno UInt32,
          source String, destination String, value UInt64, opcode Int64, created_lt UInt64, created_at UInt32,
          body_hash String, hash_norm String,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (hash, direction, tx_hash)`,
        `CREATE TABLE IF NOT EXISTS ${db}.messages_by_account (
          account String, created_lt UInt64, hash String, direction String, tx_hash String
        ) ENGINE = ReplacingMergeTree ORDER BY (account, created_lt, hash, direction, tx_hash)`,
        `CREATE TABLE IF NOT EXISTS ${db}.account_states_latest (
          account String, last_trans_lt UInt64, last_trans_hash String, account_state_hash String,
          balance UInt64, status String, code_hash String, data_hash String, frozen_hash String,
          mc_block_seqno UInt32, gen_utime UInt32,
          record String
        ) ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY account`,
      ];
    },
  },
  {
    version: 2,
    name: 'index receipts and the stored-up-to watermark',
    statements: (database) => {
      const db = ident(database);
      return [
        // One row per consumed Kafka message of a block, written after its rows (index-progress.ts).
        // All rows of a key share one mc_seqno, so partitions by mc_seqno keep replays collapsing
        // and let old receipts be dropped a partition at a time.
        `CREATE TABLE IF NOT EXISTS ${db}.index_receipts (
          mc_seqno UInt32, block String, kind String, part UInt16,
          records UInt32, dead UInt32,
          expect_transactions UInt32, expect_messages UInt32, expect_account_states UInt32,
          mc_blocks UInt32, index_from UInt32, gen_utime UInt32, written_ms UInt64
        ) ENGINE = ReplacingMergeTree(written_ms) PARTITION BY intDiv(mc_seqno, ${RECEIPT_PARTITION_SEQNOS}) ORDER BY (mc_seqno, block, kind, part)`,
        `CREATE TABLE IF NOT EXISTS ${db}.index_watermark (
          mc_seqno UInt32, gen_utime UInt32, updated_at DateTime DEFAULT now()
        ) ENGINE = ReplacingMergeTree(mc_seqno) ORDER BY tuple()`,
      ];
    },
  },
  {
    version: 3,
    name: 'account states by account and lt (history, state hash lookups)',
    statements: (database) => {
      const db = ident(database);
      return [
        // Every stored state, not only the latest: the API serves the latest state at or below the
        // watermark, and a transaction's account_state_before/after by (account, state hash).
        `CREATE TABLE IF NOT EXISTS ${db}.account_states (
          account String, last_trans_lt UInt64, account_state_hash String, mc_block_seqno UInt32,
          balance UInt64, code_hash String,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (account, last_trans_lt)`,
      ];
    },
  },
  {
    version: 4,
    name: 'shard state of each masterchain block',
    statements: (database) => {
      const db = ident(database);
      return [
        // The shard blocks a masterchain block's ShardHashes reference (/masterchainBlockShardState);
        // a top may have been committed by an earlier masterchain block, so this is not blocks_by_mc_seqno.
        `CREATE TABLE IF NOT EXISTS ${db}.shard_tops (
          mc_seqno UInt32, workchain Int32, shard UInt64, seqno UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_seqno, workchain, shard, seqno)`,
      ];
    },
  },
  {
    version: 5,
    name: 'messages by body hash, opcode and normalised hash',
    statements: (database) => {
      const db = ident(database);
      const key = 'hash String, direction String, tx_hash String';
      // Filled by materialized views inside the writer's own INSERT into messages (measured: +4% on
      // that insert; a lookup table the writer inserts itself costs a round trip each, 24% end to
      // end), then backfilled from the rows stored before this migration. Replays and a backfill that
      // overlaps the views collapse: every table is keyed by the message row's natural id.
      const lookups: [table: string, columns: string, order: string, select: string, where: string][] = [
        ['messages_by_body_hash', `body_hash String, ${key}`, 'body_hash', 'body_hash', "body_hash != ''"],
        ['messages_by_opcode', `opcode Int64, created_lt UInt64, ${key}`, 'opcode, created_lt', 'opcode, created_lt', 'opcode >= 0'],
        ['messages_by_hash_norm', `hash_norm String, ${key}`, 'hash_norm', 'hash_norm', "hash_norm != ''"],
      ];
      return lookups.flatMap(([table, columns, order, select, where]) => {
        const rows = `SELECT ${select}, hash, direction, tx_hash FROM ${db}.messages WHERE ${where}`;
        return [
          `CREATE TABLE IF NOT EXISTS ${db}.${table} (${columns}) ENGINE = ReplacingMergeTree ORDER BY (${order}, hash, direction, tx_hash)`,
          `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS ${rows}`,
          `INSERT INTO ${db}.${table} ${rows}`,
        ];
      });
    },
  },
];

/** Masterchain seqnos per partition of index_receipts (about 40 days of mainnet). */
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
  'messages_by_account',
  'account_states_latest',
  'account_states',
  'index_receipts',
] as const;
export type TableName = (typeof TABLES)[number];
