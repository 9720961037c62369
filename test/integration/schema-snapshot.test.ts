import { readFileSync } from 'node:fs';
import { createStore } from '@tonstream/store';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatCreateStatement, type MigratedSchema, migratedSchema, serverVersion, SNAPSHOT_COMMAND, SNAPSHOT_FILE, SNAPSHOT_SERVER, snapshotText } from '../support/schema-snapshot.js';
import { runChdb } from './python.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

/**
 * A statement without what only the layout of a server's printing changes: current ClickHouse prints
 * one clause a line and back-quotes column names; 18.16 prints one line.
 */
function layoutFree(statement: string): string {
  return statement.replace(/`/g, '').replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').replace(/;$/, '').trim();
}

describe('the committed schema snapshot (packages/store/schema.sql)', () => {
  let migrated: MigratedSchema;
  beforeAll(async () => {
    const probe = createStore({ url: CLICKHOUSE_URL, database: 'default' });
    const version = await serverVersion(probe).finally(() => probe.close());
    if (!version.startsWith(`${SNAPSHOT_SERVER}.`)) throw new Error(`the snapshot is of ClickHouse ${SNAPSHOT_SERVER}; ${CLICKHOUSE_URL} runs ${version}`);
    migrated = await migratedSchema(CLICKHOUSE_URL);
  });

  it(`is what every migration makes on a fresh database of ClickHouse ${SNAPSHOT_SERVER}`, () => {
    expect(snapshotText(migrated.statements, migrated.database), `the migrations and ${SNAPSHOT_FILE} disagree: if the change is meant, run \`${SNAPSHOT_COMMAND}\` (ClickHouse up) and commit the file`).toBe(
      readFileSync(SNAPSHOT_FILE, 'utf8'),
    );
  });

  it('is what the same statements make on current ClickHouse (chdb), up to the layout it prints', async () => {
    const { database, commands, statements } = migrated;
    const names = statements.map((s) => new RegExp(`^CREATE (?:TABLE|MATERIALIZED VIEW) ${database}\\.(\\w+)`).exec(s)![1]);
    const run = await runChdb([
      ...commands.map((sql) => ({ sql, settings: {}, format: null })),
      { sql: `SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name`, settings: {}, format: 'TabSeparated' },
      ...names.map((name) => ({ sql: `SHOW CREATE TABLE ${database}.${name}`, settings: {}, format: 'JSONEachRow' })),
    ]);
    const failed = run.results.flatMap((r, i) => (r.ok ? [] : [`${i < commands.length ? commands[i] : 'read'}: ${r.error.slice(0, 300)}`]));
    expect(failed, `on ${run.version}`).toEqual([]);
    const [tables, ...shown] = run.results.slice(commands.length).map((r) => (r.ok ? r.rows : []));
    expect(tables, `tables on ${run.version}`).toEqual(names);
    const comparable = (statement: string) => layoutFree(formatCreateStatement(statement, database));
    const current = shown.map(([row]) => comparable((JSON.parse(row) as { statement: string }).statement));
    expect(current, `current ClickHouse ${run.version} vs 18.16`).toEqual(statements.map(comparable));
  });
});
