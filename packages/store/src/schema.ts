import { ident, str } from './sql.js';
import { CONTRACT_TABLES, contractTables, nftSalesBySellerTable } from './contract-schema.js';
import { TOKEN_TABLES, tokenHistoryTables, tokenTables } from './token-schema.js';
import { metadataTables } from './metadata/schema.js';
import { accountStateSummaryTable, transactionReadTables, transactionTracesGranularity } from './transaction-tables.js';

/**
 * Versioned schema. Each migration is a list of single statements (18.16 takes one per request),
 * all idempotent (`IF NOT EXISTS`), so a migration interrupted half way is simply applied again.
 * Never edit a released migration: add a new one.
 *
 * Store design (docs/architecture.md): every table is a ReplacingMergeTree keyed by its natural id, so
 * replayed batches collapse; the main table of each kind is ordered for its common range scan, other
 * access paths get narrow lookup tables written in the same batch. Tables are not partitioned:
 * 18.16 deduplicates (FINAL, OPTIMIZE) only within a partition. `record` keeps the full v3 JSON.
 */
export type Migration = { version: number; name: string; statements: (db: string) => string[] };

/**
 * Index granularity of the tables that hold `record` (migration 6). Lookups read a few granules
 * per key; the price of small granules is a larger primary index, which 18.16 keeps in memory:
 * measured 0.33 bytes per row for transactions and account_states, 0.46 for messages (about
 * 330 MB per billion transactions; 1024 takes a quarter of that, and was up to 1.5x slower).
 */
export const RECORD_GRANULARITY = 256;

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
  {
    version: 6,
    name: `tables with records at index granularity ${RECORD_GRANULARITY}`,
    // A read of one key decompresses whole granules of every column it selects, and `record` is most
    // of a row (1-2 KB): at the default 8192 rows a granule of it is 10-15 MB. Measured on bench:api's
    // dataset (1M transactions, 100k accounts; test/bench/api-table-design.ts), one query alone at
    // 8192 -> 256, with the read queries of this change: a page of an account's transactions 284 ->
    // 13 ms, of a masterchain block's 3,942 -> 16 ms, the oldest masterchain block 202 -> 7 ms, 20
    // code hashes 34 -> 20 ms; at 64 connections 256 served 1.0-1.5x the requests of 1024.
    statements: (database) =>
      RECORD_TABLES.flatMap(([table, engine]) => rebuildTable(database, table, `${engine} SETTINGS index_granularity = ${RECORD_GRANULARITY}`, table === 'messages' ? messageViews(database) : undefined)),
  },
  {
    version: 7,
    name: 'transactions by lt (the latest transactions of the whole chain)',
    // `/transactions` without an account, hash, block or message filter pages over every transaction
    // by lt: on `transactions` (ordered by account) that sorts the whole table, 130 ms at 1M rows on
    // bench:api's dataset, minutes at mainnet's billions. Ordered by lt, a page is a key range: the
    // read layer bounds it below (reads/transactions.ts) and reads only the rows above the bound. The
    // columns are the filters such a query may carry, so no other table is read for the page's keys.
    statements: (database) => {
      const db = ident(database);
      const columns = 'lt, account, workchain, shard, block_seqno, mc_block_seqno, now';
      return [
        `CREATE TABLE IF NOT EXISTS ${db}.transactions_by_lt (
          lt UInt64, account String, workchain Int32, shard UInt64, block_seqno UInt32, mc_block_seqno UInt32, now UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (lt, account)`,
        `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transactions_by_lt_mv TO ${db}.transactions_by_lt AS SELECT ${columns} FROM ${db}.transactions`,
        `INSERT INTO ${db}.transactions_by_lt SELECT ${columns} FROM ${db}.transactions`,
      ];
    },
  },
  {
    version: 8,
    name: 'traces and actions, with their lookups (by end lt, masterchain block, account, transaction)',
    statements: (database) => traceAndActionTables(database),
  },
  {
    version: 9,
    name: 'tokens: contract interfaces, Jetton masters and wallets, NFT collections and items, Jetton transfers and burns, NFT transfers',
    statements: (database) => tokenTables(database),
  },
  {
    version: 10,
    name: 'token metadata: the off-chain content cache and the metadata worker\'s discovery cursor',
    statements: (database) => metadataTables(database),
  },
  {
    version: 11,
    name: 'token state history; Jetton wallets and accounts ranked by balance',
    statements: (database) => tokenHistoryTables(database),
  },
  {
    version: 12,
    name: 'messages by their transaction (a page of transactions with its messages in one read); transaction BoCs',
    statements: (database) => transactionReadTables(database),
  },
  {
    version: 13,
    name: 'contracts: DNS entries, multisig wallets and orders, vesting wallets, NFT sales and auctions (every version), with their lookups',
    statements: (database) => contractTables(database),
  },
  {
    version: 14,
    name: 'transaction_traces at index granularity 256 (the trace ids of a page of transactions)',
    statements: (database) => transactionTracesGranularity(database),
  },
  {
    version: 15,
    name: 'account state summaries (a transaction\'s states before and after without the code and data BoCs)',
    statements: (database) => accountStateSummaryTable(database),
  },
  {
    version: 16,
    name: 'NFT sales by seller (the items an owner has put on sale)',
    statements: (database) => nftSalesBySellerTable(database),
  },
  {
    version: 17,
    name: 'trace batch receipts and the traces watermark',
    statements: (database) => {
      const db = ident(database);
      return [
        // One row per consumed message of the tracer, written after its rows (trace-progress.ts): a
        // trace's record or its actions keyed by the trace, so a replay collapses onto the first
        // receipt; a batch's mark under trace_id ''. Partitioned as index_receipts, to drop old ones.
        `CREATE TABLE IF NOT EXISTS ${db}.trace_receipts (
          mc_seqno UInt32, kind String, trace_id String,
          records UInt32, dead UInt32,
          first_mc_seqno UInt32, expect_traces UInt32, expect_actions UInt32, written_ms UInt64
        ) ENGINE = ReplacingMergeTree(written_ms) PARTITION BY intDiv(mc_seqno, ${RECEIPT_PARTITION_SEQNOS}) ORDER BY (mc_seqno, kind, trace_id)`,
        `CREATE TABLE IF NOT EXISTS ${db}.trace_watermark (
          mc_seqno UInt32, updated_at DateTime DEFAULT now()
        ) ENGINE = ReplacingMergeTree(mc_seqno) ORDER BY tuple()`,
      ];
    },
  },
];

/**
 * Migration 8. The main tables are keyed by the trace (one read of a trace's record or actions is a
 * primary-key range); every other access path is a narrow lookup table filled by a materialized view
 * inside the writer's own INSERT (as migration 5), the per-account and per-transaction ones through
 * ARRAY JOIN over the row's lists. A trace published incomplete and later complete is two versions:
 * ReplacingMergeTree(end_lt) keeps the later, and reads take the latest with `LIMIT 1 BY`.
 */
function traceAndActionTables(database: string): string[] {
  const db = ident(database);
  const granularity = `SETTINGS index_granularity = ${RECORD_GRANULARITY}`;
  // Lookups carry every column their reads filter on, so a page is read from the lookup alone and
  // only its rows' records are fetched from the main table by key.
  const traceKey = 'end_lt UInt64, trace_id String, end_utime UInt32, mc_seqno_end UInt32';
  const actionKey = 'trace_end_lt UInt64, trace_id String, end_lt UInt64, action_id String, trace_end_utime UInt32, trace_mc_seqno_end UInt32, type String, ancestor_type Array(String)';
  const actionColumns = 'trace_end_lt, trace_id, end_lt, action_id, trace_end_utime, trace_mc_seqno_end, type, ancestor_type';
  const views: [table: string, columns: string, order: string, select: string][] = [
    ['traces_by_end_lt', traceKey, 'end_lt, trace_id', `SELECT end_lt, trace_id, end_utime, mc_seqno_end FROM ${db}.traces`],
    ['traces_by_mc_seqno', traceKey, 'mc_seqno_end, end_lt, trace_id', `SELECT end_lt, trace_id, end_utime, mc_seqno_end FROM ${db}.traces`],
    ['traces_by_account', `account String, ${traceKey}`, 'account, end_lt, trace_id', `SELECT account, end_lt, trace_id, end_utime, mc_seqno_end FROM ${db}.traces ARRAY JOIN accounts AS account`],
    ['transaction_traces', 'tx_hash String, trace_id String', 'tx_hash, trace_id', `SELECT tx_hash, trace_id FROM ${db}.traces ARRAY JOIN tx_hashes AS tx_hash`],
    ['actions_by_id', 'action_id String, trace_id String', 'action_id, trace_id', `SELECT action_id, trace_id FROM ${db}.actions`],
    ['actions_by_trace_end_lt', actionKey, 'trace_end_lt, trace_id, end_lt, action_id', `SELECT ${actionColumns} FROM ${db}.actions`],
    ['action_accounts', `account String, ${actionKey}`, 'account, trace_end_lt, trace_id, end_lt, action_id', `SELECT account, ${actionColumns} FROM ${db}.actions ARRAY JOIN accounts AS account`],
    ['actions_by_tx', 'tx_hash String, trace_id String, action_id String', 'tx_hash, trace_id, action_id', `SELECT tx_hash, trace_id, action_id FROM ${db}.actions ARRAY JOIN tx_hashes AS tx_hash`],
  ];
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.traces (
      trace_id String, end_lt UInt64, end_utime UInt32, start_lt UInt64, start_utime UInt32,
      mc_seqno_start UInt32, mc_seqno_end UInt32, external_hash String, external_hash_norm String,
      trace_state String, is_incomplete UInt8, transactions UInt32,
      tx_hashes Array(String), accounts Array(String),
      record String
    ) ENGINE = ReplacingMergeTree(end_lt) ORDER BY trace_id ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.actions (
      trace_id String, action_id String, type String, parent_action_id String, ancestor_type Array(String),
      start_lt UInt64, end_lt UInt64, trace_end_lt UInt64, trace_end_utime UInt32, trace_mc_seqno_end UInt32,
      tx_hashes Array(String), accounts Array(String),
      record String
    ) ENGINE = ReplacingMergeTree ORDER BY (trace_id, action_id) ${granularity}`,
    ...views.flatMap(([table, columns, order, select]) => [
      `CREATE TABLE IF NOT EXISTS ${db}.${table} (${columns}) ENGINE = ReplacingMergeTree ORDER BY (${order})`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS ${select}`,
    ]),
  ];
}

/** The tables that hold `record`, with the engine migrations 1 and 3 gave them. */
const RECORD_TABLES: [table: string, engine: string][] = [
  ['transactions', 'ReplacingMergeTree ORDER BY (account, lt)'],
  ['messages', 'ReplacingMergeTree ORDER BY (hash, direction, tx_hash)'],
  ['blocks', 'ReplacingMergeTree ORDER BY (workchain, shard, seqno)'],
  ['account_states', 'ReplacingMergeTree ORDER BY (account, last_trans_lt)'],
  ['account_states_latest', 'ReplacingMergeTree(last_trans_lt) ORDER BY account'],
];

/**
 * Statements giving `table` a new engine (18.16 cannot change index_granularity in place and has no
 * EXCHANGE TABLES). The new, empty table is renamed in first, so every write from then on lands in
 * it, then the old rows are copied in (until that copy ends, readers miss them). The old table stays
 * as `<table>_m6_old` until its rows are copied; a run stopped before that copies them on the next
 * run (rows are keyed by natural ids, so copying twice stores each fact once). Two runs must not
 * interleave (one's DROP could take the other's renamed old table): `migrate` holds a lock.
 * `views`: statements that re-attach the table's materialized views after the RENAME and refill their
 * targets after the copy (on 18.16 a view follows the table's name, on current ClickHouse its UUID).
 */
function rebuildTable(database: string, table: string, engine: string, views?: { attach: string[]; refill: string[] }): string[] {
  const db = ident(database);
  const old = `${table}_m6_old`;
  const fresh = `${table}_m6_new`;
  return [
    `INSERT INTO ${db}.${table} SELECT * FROM merge(${str(db)}, ${str(`^(${table}|${old})$`)}) WHERE _table = ${str(old)}`,
    `DROP TABLE IF EXISTS ${db}.${old}`,
    `CREATE TABLE IF NOT EXISTS ${db}.${fresh} AS ${db}.${table} ENGINE = ${engine}`,
    `RENAME TABLE ${db}.${table} TO ${db}.${old}, ${db}.${fresh} TO ${db}.${table}`,
    ...(views?.attach ?? []),
    `INSERT INTO ${db}.${table} SELECT * FROM ${db}.${old}`,
    // Rows written between the RENAME and the views' return have no lookup rows yet.
    ...(views?.refill ?? []),
    `DROP TABLE IF EXISTS ${db}.${old}`,
  ];
}

/** Migration 5's views on `messages`: dropped and made again, then its backfill (the lookup tables' refill). */
function messageViews(database: string): { attach: string[]; refill: string[] } {
  const five = MIGRATIONS.find((m) => m.version === 5)!.statements(database);
  const views = five.filter((sql) => sql.startsWith('CREATE MATERIALIZED VIEW'));
  const drops = views.map((sql) => `DROP TABLE IF EXISTS ${/^CREATE MATERIALIZED VIEW IF NOT EXISTS (\S+)/.exec(sql)![1]}`);
  return { attach: [...drops, ...views], refill: five.filter((sql) => sql.startsWith('INSERT INTO')) };
}

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
  'transaction_bocs',
  'messages',
  'messages_by_account',
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
