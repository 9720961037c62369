import type { Migration } from './migration.js';

/**
 * Failed writes to the hot tier (issue 27, hot/gate.ts): the writer records one before the batch's
 * receipts, and the API stops reading the tier (`tier`: its Redis key prefix) until it is rebuilt.
 * Replacing: the same break recorded twice is one (and FINAL reads it, as every table).
 */
export const migration: Migration = {
  version: 20,
  name: 'hot tier breaks',
  statements: (db) => [`CREATE TABLE IF NOT EXISTS ${db}.hot_tier_breaks (at_ms UInt64, tier String, reason String) ENGINE = ReplacingMergeTree ORDER BY (tier, at_ms, reason)`],
};
