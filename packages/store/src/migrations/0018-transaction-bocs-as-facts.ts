import type { Migration } from './migration.js';

/**
 * The transaction BoC is the stored fact (transaction-facts.ts): `transactions.boc` holds it, and a row
 * whose record the BoC, the block columns and `global_version` give again keeps `record` empty. Message
 * rows keep their fields but not their body and init-state BoCs, which their transactions' BoCs hold.
 * So `transaction_messages` (the messages again, by transaction) goes: a derived transaction carries its
 * messages whole, and an older one finds them in `messages` by hash. `messages_by_account` goes too:
 * nothing read it. `transaction_bocs` is no longer written; rows written before keep their BoCs there.
 */
export const migration: Migration = {
  version: 18,
  name: 'transaction BoCs as the stored fact',
  statements: (db) => [
    `ALTER TABLE ${db}.transactions ADD COLUMN boc String AFTER record`,
    `ALTER TABLE ${db}.transactions ADD COLUMN global_version UInt32 AFTER boc`,
    `DROP TABLE IF EXISTS ${db}.transaction_messages_mv`,
    `DROP TABLE IF EXISTS ${db}.transaction_messages`,
    `DROP TABLE IF EXISTS ${db}.messages_by_account`,
  ],
};
