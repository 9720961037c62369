import { readFileSync } from 'node:fs';
import { createStore } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { migratedSchema, serverVersion, SNAPSHOT_COMMAND, SNAPSHOT_FILE, SNAPSHOT_SERVER } from '../support/schema-snapshot.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

describe('the committed schema snapshot (packages/store/schema.sql)', () => {
  it(`is what every migration makes on a fresh database of ClickHouse ${SNAPSHOT_SERVER}`, async () => {
    const probe = createStore({ url: CLICKHOUSE_URL, database: 'default' });
    const version = await serverVersion(probe).finally(() => probe.close());
    expect(version, `the snapshot is of ClickHouse ${SNAPSHOT_SERVER}; ${CLICKHOUSE_URL} runs ${version}`).toMatch(new RegExp(`^${SNAPSHOT_SERVER.replace('.', '\\.')}\\.`));

    const migrated = await migratedSchema(CLICKHOUSE_URL);
    expect(migrated, `the migrations and ${SNAPSHOT_FILE} disagree: if the change is meant, run \`${SNAPSHOT_COMMAND}\` (ClickHouse up) and commit the file`).toBe(
      readFileSync(SNAPSHOT_FILE, 'utf8'),
    );
  });
});
