import type { Migration } from './migration.js';

/**
 * The transaction BoC is the stored fact (transaction-facts.ts): `transactions.boc` holds it, and a row
 * whose record the BoC, the block columns and `global_version` give again keeps `record` empty. A message
 * row keeps its key and filter columns and `reads_extra_flags` (how its fee bits read): its record is
 * derived from its transaction's BoC. So `transaction_messages` (the messages again, by transaction)
 * goes: a derived transaction carries its messages whole, and an older one finds them in `messages`. `messages_by_account` goes too:
 * nothing read it. `transaction_bocs` is no longer written; rows written before keep their BoCs there.
 */
export const migration: Migration = {
  version: 18,
  name: 'transaction BoCs as the stored fact',
  statements: (db) => [
    `ALTER TABLE ${db}.transactions ADD COLUMN boc String AFTER record`,
    `ALTER TABLE ${db}.transactions ADD COLUMN global_version UInt32 AFTER boc`,
    `ALTER TABLE ${db}.messages ADD COLUMN reads_extra_flags UInt8 AFTER record`,
    `DROP TABLE IF EXISTS ${db}.transaction_messages_mv`,
    `DROP TABLE IF EXISTS ${db}.transaction_messages`,
    `DROP TABLE IF EXISTS ${db}.messages_by_account`,
  ],
};
