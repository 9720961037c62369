import type { Migration } from './migration.js';
import { migration as m0001 } from './0001-records.js';
import { migration as m0002 } from './0002-index-receipts.js';
import { migration as m0003 } from './0003-account-states.js';
import { migration as m0004 } from './0004-shard-tops.js';
import { migration as m0005 } from './0005-message-lookups.js';
import { migration as m0006 } from './0006-record-granularity.js';
import { migration as m0007 } from './0007-transactions-by-lt.js';
import { migration as m0008 } from './0008-traces-and-actions.js';
import { migration as m0009 } from './0009-tokens.js';
import { migration as m0010 } from './0010-token-metadata.js';
import { migration as m0011 } from './0011-token-history.js';
import { migration as m0012 } from './0012-transaction-messages-and-bocs.js';
import { migration as m0013 } from './0013-contracts.js';
import { migration as m0014 } from './0014-transaction-traces-granularity.js';
import { migration as m0015 } from './0015-account-state-summaries.js';
import { migration as m0016 } from './0016-nft-sales-by-seller.js';
import { migration as m0017 } from './0017-trace-receipts.js';
import { migration as m0018 } from './0018-transaction-bocs-as-facts.js';
import { migration as m0019 } from './0019-slim-lookups.js';
import { migration as m0020 } from './0020-hot-tier-breaks.js';
import { migration as m0021 } from './0021-history-floor.js';
import { migration as m0022 } from './0022-bootstrap-progress.js';

export type { Migration } from './migration.js';

/**
 * Every schema version, in order. Each file is frozen once released: it imports nothing but the
 * `Migration` type and holds its SQL as text, so a later change elsewhere cannot change what an old
 * migration does. A schema change is a new file here (README: Migrations); `schema.sql` is the schema
 * they make, checked by test/integration/schema-snapshot.test.ts.
 */
export const MIGRATIONS: Migration[] = [m0001, m0002, m0003, m0004, m0005, m0006, m0007, m0008, m0009, m0010, m0011, m0012, m0013, m0014, m0015, m0016, m0017, m0018, m0019, m0020, m0021, m0022];
