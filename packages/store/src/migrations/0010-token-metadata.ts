import type { Migration } from './migration.js';

/**
 * The off-chain token metadata cache (issue 14). One row per TEP-64 URI, as written on chain, per
 * outcome: `pending` (found, not fetched; version 0, so it never replaces an outcome), `retry` (a
 * transient failure, tried again at `next_attempt_at`), `ok` (`content` is the fetched JSON object's
 * text) or `failed` (`reason` says why; not tried again). ReplacingMergeTree(updated_at) keeps the latest
 * outcome; reads take it with `LIMIT 1 BY uri`. `token_metadata_progress` holds the metadata worker's
 * discovery cursor: every URI of the token tables at or below it is in the cache.
 */
export const migration: Migration = {
  version: 10,
  name: 'token metadata: the off-chain content cache and the metadata worker\'s discovery cursor',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.token_metadata (
      uri String, status String, reason String, content String, attempts UInt16, next_attempt_at UInt64, updated_at UInt64
    ) ENGINE = ReplacingMergeTree(updated_at) ORDER BY uri`,
    `CREATE TABLE IF NOT EXISTS ${db}.token_metadata_progress (name String, mc_seqno UInt32, updated_at UInt64) ENGINE = ReplacingMergeTree(updated_at) ORDER BY name`,
  ],
};
