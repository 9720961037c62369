/**
 * Every migration and every read-layer query runs on a current ClickHouse (chdb, in-process) with the
 * same results as on 18.16 (docker-compose users run a current image).
 *
 * The store is wrapped to record each SQL text it sends and, through a small HTTP proxy in front of
 * 18.16, the settings each request carried. Migrations run on a fresh 18.16 database; mainnet fixture
 * blocks, localnet account states and receipts are written through writeBatch, and so are a local
 * chain's Jetton and NFT traffic (blocks, token events and states, traces and actions; see
 * chdb-localnet-data.ts) and the recorded mainnet traces with their actions. Merges are stopped until
 * every row each INSERT stored is exported, then each table is merged (OPTIMIZE FINAL); then every
 * exported read function runs with literals from that data. chdb (test/python/chdb_run.py) replays
 * the DDL as executed, loads the same rows exported from 18.16 (its views fill their tables from
 * them), merges each table, and runs each captured query with the same settings. Results must be
 * equal: in order where the query orders at its top level, as multisets where it does not.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createStore, migrate, str, strList, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase } from '../support/clickhouse.js';
import { type ChdbStep, runChdb } from './python.js';
import { type Cases, load, nonEmpty, READS, type ReadName, readCases, type Row } from './store-read-cases.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_chdb_${randomBytes(4).toString('hex')}`;
const STORE_SRC = join(import.meta.dirname, '../../packages/store/src');

/**
 * URL parameters of the HTTP interface that are not settings (18.16 and current alike): the query
 * itself, its id, the database, and wait_end_of_query, which the HTTP handler reads (it is in neither
 * engine's system.settings).
 */
const HTTP_PARAMS = new Set(['query', 'query_id', 'database', 'wait_end_of_query']);

/** Exported functions of the read modules that issue no SQL of their own, and why. */
const NOT_READS: Record<string, string> = {
  accountStateKey: 'map key helper',
  messageKey: 'map key helper',
  sqlDirection: 'SQL fragment helper',
  sqlPage: 'SQL fragment helper',
  sqlWhere: 'SQL fragment helper',
  uniquePage: 'SQL fragment helper (a page of one row per key; its cluster form: store-cluster.test.ts)',
  pointRead: 'query options helper (settings of point reads)',
  transactionsWithMessage: 'SQL fragment, runs inside readTransactions (message filter cases)',
  readMessageRecords: 'runs inside readMessages (message cases): their transactions by key',
  tracesOfMessages: 'SQL fragment, runs inside readTraces and readActions (msgHashes cases)',
  advanceWatermark: 'pure: moves the watermark over receipts already read',
  incompleteness: 'pure: why a seqno is not whole, from receipts already read',
  servedSeqnos: 'SQL fragment helper (the floor and the watermark of a read scope)',
  checkRange: 'pure: a range\'s gap check over receipts already read',
  lowerFloor: 'pure: the floor moved over complete ranges already read',
  rangeComplete: 'pure: whether a range record lets the floor move',
  saveHistoryFloor: 'a write (insert), not a query',
  saveRangeCheck: 'a write (insert), not a query',
  addressBookInterfaces: 'pure: the interfaces of an address book row, from facts already read',
  saveWatermark: 'a write (insert), not a query',
  advanceTracesWatermark: 'pure: moves the traces watermark over receipts already read',
  saveTracesWatermark: 'a write (insert), not a query',
  tracesBound: 'pure: the lower of the two watermarks in a read scope',
  withinBound: 'SQL fragment helper (ranked reads)',
  bucketCandidates: 'SQL fragment helper (ranked reads)',
  buildTokenMetadata: 'composes readTokenAddresses and tokenMetadataOf',
  tokenMetadataOf: 'composes the token reads here and the metadata cache read',
  tokenMetadata: 'pure: shapes one metadata entry',
  metadataOfEach: 'pure: picks each address\'s entries from a built map',
  rankedPage: 'runs inside readJettonHolders and readTopBalances',
  summaryFromColumns: 'pure: a state summary from the columns readAccountStatesByHash reads',
  askHotTier: 'asks the hot tier (Redis), no query',
};

/** One SQL request of the store as 18.16 answered it. */
type Step = { kind: 'command' | 'query'; sql: string; read: string; rows: Row[]; settings: Record<string, string> };
type Sent = { sql: string; params: Record<string, string>; matched: boolean };

// ---------------------------------------------------------------------------------------------
// Capture: a proxy that records each request's settings, and a store that records each statement.

async function startProxy(target: string) {
  const sent: Sent[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', target);
      const params = Object.fromEntries(url.searchParams);
      sent.push({ sql: params.query ?? body.toString('utf8'), params, matched: false });
      const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', (err) => res.destroy(err));
      upstream.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The settings the request of `sql` carried (the client appends a FORMAT clause to queries). */
function settingsOf(sent: Sent[], sql: string): Record<string, string> {
  const found = sent.find((s) => !s.matched && (s.sql === sql || s.sql.startsWith(`${sql.trim()} \nFORMAT`) || s.sql.startsWith(`${sql.trim()}\nFORMAT`)));
  if (!found) throw new Error(`no request seen for ${sql.slice(0, 200)}`);
  found.matched = true;
  return Object.fromEntries(Object.entries(found.params).filter(([k]) => !HTTP_PARAMS.has(k)));
}

function recordingStore(store: Store, steps: Step[], sent: Sent[], current: () => string): Store {
  return {
    ...store,
    async command(sql) {
      await store.command(sql);
      steps.push({ kind: 'command', sql, read: current(), rows: [], settings: settingsOf(sent, sql) });
    },
    async query<T>(sql: string, options?: Parameters<Store['query']>[1]) {
      const rows = await store.query<T>(sql, options);
      steps.push({ kind: 'query', sql, read: current(), rows: rows as Row[], settings: settingsOf(sent, sql) });
      return rows;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/** True when the statement orders its result at the top level (not only inside a subquery). */
function ordersAtTop(sql: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === "'") inString = false;
    } else if (c === "'") inString = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /^ORDER\s+BY\b/i.test(sql.slice(i, i + 12))) return true;
  }
  return false;
}

const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

/** Why two results differ, or null. */
function difference(sql: string, old: Row[], current: Row[]): string | null {
  const keysOf = (rows: Row[]) => JSON.stringify(rows.length > 0 ? Object.keys(rows[0]).sort() : []);
  if (old.length !== current.length) return `${old.length} rows on 18.16, ${current.length} on current`;
  if (keysOf(old) !== keysOf(current)) return `columns ${keysOf(old)} on 18.16, ${keysOf(current)} on current`;
  const a = ordersAtTop(sql) ? old.map((r) => JSON.stringify(r, Object.keys(r).sort())) : sorted(old);
  const b = ordersAtTop(sql) ? current.map((r) => JSON.stringify(r, Object.keys(r).sort())) : sorted(current);
  const i = a.findIndex((x, k) => x !== b[k]);
  return i < 0 ? null : `row ${i}: 18.16 ${a[i].slice(0, 300)} / current ${b[i].slice(0, 300)}`;
}

// ---------------------------------------------------------------------------------------------

/**
 * The harness's own table dumps, 64-bit integers quoted on both engines. FINAL: when a
 * ReplacingMergeTree collapses duplicates (background merges, on either engine) is unspecified, so the
 * raw row count is not comparable; the deduplicated rows, which every read sees, are.
 */
const DUMP_SETTINGS = { output_format_json_quote_64bit_integers: '1' };
/**
 * The harness's loading INSERTs: one per table, holding every row the writer's many INSERTs stored
 * (merges are stopped on 18.16 so that none is collapsed before the export). chdb's views must see
 * each of them, as 18.16's views saw each INSERT: a view keyed otherwise than its source (e.g.
 * nft_items_by_owner, by owner) keeps a row per version. A current engine would collapse the one
 * insert block before its views see it (optimize_on_insert; 18.16 has no such step).
 */
const LOAD_SETTINGS = { optimize_on_insert: '0' };
const dumpSql = (table: string) =>
  // applied_at is each engine's now().
  `SELECT ${table === 'schema_migrations' ? 'version, name' : '*'} FROM ${database}.${table} FINAL`;

let direct: Store;
let proxy: Awaited<ReturnType<typeof startProxy>>;
const steps: Step[] = [];
let label = 'migrate';
let called = new Map<ReadName, number>();
/** Tables (not views) of the database, and the tables materialized views fill. */
let tables: string[] = [];
const viewTargets = new Set<string>();
/** Each table's rows as stored (TabSeparatedWithNames), and deduplicated after loading and at the end. */
const exported = new Map<string, string>();
const loadedDump = new Map<string, Row[]>();
const finalDump = new Map<string, Row[]>();
/** A step for chdb and the rows 18.16 gave for it (null: it must only succeed). */
type Check = { what: string; step: ChdbStep; rows: Row[] | null };

async function dump18(table: string): Promise<Row[]> {
  const rs = await direct.client.query({ query: dumpSql(table), format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 1 } });
  return (await rs.json()) as Row[];
}

beforeAll(async () => {
  direct = createStore({ url: CLICKHOUSE_URL, database });
  proxy = await startProxy(CLICKHOUSE_URL);
  const viaProxy = createStore({ url: proxy.url, database });
  const recording = recordingStore(viaProxy, steps, proxy.sent, () => label);

  await migrate(recording);
  // Every row each INSERT stored stays as stored until exported (LOAD_SETTINGS says why): no merges here.
  const migrated = await direct.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${str(database)} AND engine LIKE '%MergeTree'`);
  for (const { name } of migrated) await direct.command(`SYSTEM STOP MERGES ${database}.${name}`);
  const data = await load(viaProxy);

  const found = await direct.query<{ name: string; engine: string; create_table_query: string }>(
    `SELECT name, engine, create_table_query FROM system.tables WHERE database = ${str(database)} ORDER BY name`,
  );
  tables = found.filter((t) => !t.engine.endsWith('View')).map((t) => t.name);
  for (const view of found.filter((t) => t.engine === 'MaterializedView')) {
    const target = / TO \w+\.(\w+)/.exec(view.create_table_query);
    if (!target) throw new Error(`materialized view ${view.name} has no TO table; the harness cannot tell its inner table: ${view.create_table_query}`);
    viewTargets.add(target[1]);
  }
  for (const table of tables) {
    // Every row as stored, duplicates included: chdb gets the same parts' worth of rows to deduplicate.
    const rs = await direct.client.query({ query: `SELECT * FROM ${database}.${table}`, format: 'TabSeparatedWithNames' });
    exported.set(table, await rs.text());
    loadedDump.set(table, await dump18(table));
  }
  // Both engines read merged tables (chdb: the "merging" checks): which copy of a row any() meets first, or
  // whether a replaced version still answers, must not depend on when merges ran.
  for (const table of tables) {
    await direct.command(`SYSTEM START MERGES ${database}.${table}`);
    await direct.command(`OPTIMIZE TABLE ${database}.${table} FINAL`);
  }

  called = new Map();
  const cases = readCases(data);
  for (const [name, list] of Object.entries(cases) as [ReadName, Cases[ReadName]][]) {
    for (const [i, c] of list.entries()) {
      label = `${name}#${i}`;
      const before = steps.length;
      const result = await (READS[name] as (store: Store, ...args: unknown[]) => Promise<unknown>)(recording, ...c.args);
      expect(nonEmpty(result), `${label} answered ${c.empty ? 'something' : 'nothing'}`).toBe(!c.empty);
      called.set(name, (called.get(name) ?? 0) + steps.length - before);
    }
  }
  for (const table of tables) finalDump.set(table, await dump18(table));
  await viaProxy.close();
}, 300_000);

afterAll(async () => {
  await direct?.close();
  await dropDatabase(CLICKHOUSE_URL, database);
  await proxy?.close();
});

describe('store SQL on a current ClickHouse (chdb) beside 18.16', () => {
  it('exercises every exported read function of the store (a new read fails here until it has cases)', async () => {
    const modules = [...readdirSync(join(STORE_SRC, 'reads')).map((f) => join(STORE_SRC, 'reads', f)), join(STORE_SRC, 'index-progress.ts'), join(STORE_SRC, 'trace-progress.ts'), join(STORE_SRC, 'history.ts')].filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    const exported = new Set<string>();
    for (const file of modules) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) if (typeof value === 'function') exported.add(name);
    }
    const covered = new Set([...Object.keys(READS), ...Object.keys(NOT_READS)]);
    expect([...exported].filter((n) => !covered.has(n)), 'exported but neither read here nor listed in NOT_READS').toEqual([]);
    expect([...covered].filter((n) => !exported.has(n)), 'listed here but not exported').toEqual([]);
    // Each read sent SQL of its own.
    for (const name of Object.keys(READS) as ReadName[]) expect(called.get(name) ?? 0, name).toBeGreaterThan(0);
  });

  it('runs every migration and read query on the current engine with the same results', async () => {
    const asChdb = (s: Step): ChdbStep => ({ sql: s.sql, settings: s.settings, format: s.kind === 'query' ? 'JSONEachRow' : null });
    const dump = (at: string, rows: Map<string, Row[]>) =>
      tables.map((t): Check => ({ what: `${at} ${t}`, step: { sql: dumpSql(t), settings: DUMP_SETTINGS, format: 'JSONEachRow' }, rows: rows.get(t)! }));
    const migration = steps.filter((s) => s.read === 'migrate');
    // Each migration's statements are applied again before the ledger records it, as after an
    // interruption (a rerun starts the unrecorded migration over): each must be idempotent here too.
    const migrationChecks: Check[] = [];
    let unrecorded: Step[] = [];
    for (const s of migration) {
      if (s.kind === 'command' && /^INSERT INTO \S+\.schema_migrations\b/.test(s.sql)) {
        migrationChecks.push(...unrecorded.map((u) => ({ what: 'migration applied again', step: asChdb(u), rows: null })));
        unrecorded = [];
      } else if (s.kind === 'command' && !/\.schema_migrations/.test(s.sql) && !/\b(ADD|DROP) COLUMN\b/.test(s.sql)) {
        // (the ledger's and the lock's own statements are not a migration's; an ADD or DROP COLUMN, which
        // 18.16 cannot make conditional, fails when run again and migrate takes that as applied: store.test.ts)
        unrecorded.push(s);
      }
      migrationChecks.push({ what: `migration ${s.kind}`, step: asChdb(s), rows: s.rows });
    }
    const checks: Check[] = [
      ...migrationChecks,
      // Tables filled by materialized views get their rows from the views, on chdb as on 18.16.
      ...tables
        .filter((t) => t !== 'schema_migrations' && !viewTargets.has(t))
        .map((t) => ({ what: `loading ${t}`, step: { sql: `INSERT INTO ${database}.${t} FORMAT TabSeparatedWithNames`, settings: LOAD_SETTINGS, format: null, data: exported.get(t)! }, rows: null })),
      ...tables.map((t) => ({ what: `merging ${t}`, step: { sql: `OPTIMIZE TABLE ${database}.${t} FINAL`, settings: {}, format: null }, rows: null })),
      ...dump('loaded', loadedDump),
      ...steps.filter((s) => s.read !== 'migrate').map((s) => ({ what: `${s.read} ${s.kind}`, step: asChdb(s), rows: s.rows })),
      ...dump('final', finalDump),
    ];

    const { version, results } = await runChdb(checks.map((c) => c.step));
    expect(Number(version.split('.')[0]), `chdb's ClickHouse ${version}`).toBeGreaterThanOrEqual(25);
    expect(results).toHaveLength(checks.length);
    const findings = checks.flatMap((c, i) => {
      const r = results[i];
      const sql = c.step.sql.slice(0, 300);
      if (!r.ok) return [`${c.what}: fails on ${version}: ${r.error.slice(0, 400)}\n  ${sql}`];
      const diff = c.rows && difference(c.step.sql, c.rows, r.rows.map((line) => JSON.parse(line) as Row));
      return diff ? [`${c.what}: differs: ${diff}\n  ${sql}`] : [];
    });
    expect(findings).toEqual([]);
  });

  it('sends only settings that both engines know (anything else is "Unknown setting")', async () => {
    const names = [...new Set(steps.flatMap((s) => Object.keys(s.settings)))].sort();
    expect(names.length).toBeGreaterThan(0);
    const sql = `SELECT name FROM system.settings WHERE name IN ${strList(names)} ORDER BY name`;
    const old = (await direct.query<{ name: string }>(sql)).map((r) => r.name);
    const { results } = await runChdb([{ sql, settings: {}, format: 'JSONEachRow' }]);
    const r = results[0];
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const current = r.ok ? r.rows.map((l) => (JSON.parse(l) as { name: string }).name) : [];
    expect({ old, current }).toEqual({ old: names, current: names });
  });
});
