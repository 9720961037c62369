import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store } from '@tonstream/store';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandClickHouseMacros, expandGrafanaVariables, loadAlertRules, metricNames, panelQueries, withBoolComparisons } from '../support/ops-queries.js';
import { eventually, freePort, ROOT, type ServiceProcess, startService } from '../support/processes.js';
import { runPython } from './python.js';

/**
 * The operations files against a running stack, started once for all checks: localnet with traffic
 * -> fetcher -> decoder -> writer -> ClickHouse, the API (with API traffic, some of it bad), and a
 * Prometheus started by deploy/local/services.sh from deploy/prometheus/prometheus.yml, scraping
 * every second. Every dashboard query and alert expression must return a series, every SQL panel
 * rows; /status is opened in a real browser; killing the writer must make "indexer stalled" true.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const SERVICES = ['localnet', 'fetcher', 'decoder', 'writer', 'tracer', 'emulator', 'streamer', 'metadata', 'api'] as const;
/** What Grafana would put for $__rate_interval / $__interval / $__range on a short dashboard range. */
const GRAFANA_VARS = { rateInterval: '30s', interval: '5s', range: '10m' };
const SCREENSHOT = join(ROOT, '.local/artifacts/ops-status.png');
/** Wallet actions per round of 500 ms: every kind of action (failures, Jettons, NFTs) within the run, so every panel has a series. */
const TRAFFIC_RATE = 3;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-ops-${run}-`));
const database = `tonstream_ops_${run}`;
const ledgerPath = join(dir, 'ledger.jsonl');
const ports: Record<(typeof SERVICES)[number] | 'prometheus' | 'liteserver' | 'streaming', number> = { localnet: 0, fetcher: 0, decoder: 0, writer: 0, tracer: 0, emulator: 0, streamer: 0, metadata: 0, api: 0, prometheus: 0, liteserver: 0, streaming: 0 };
const procs: Partial<Record<(typeof SERVICES)[number], ServiceProcess>> = {};
let env: Record<string, string> = {};
let store: Store;
let promUrl = '';
let apiUrl = '';
let browser: Browser | undefined;
let apiTraffic: { stop(): Promise<void> } | undefined;

/** The part of a browser canvas the chart check reads (the test project has no DOM types). */
type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };

type LedgerRound = { mc_seqno: number; blocks: { workchain: number; transactions: unknown[] }[] };
const ledger = (): LedgerRound[] => (existsSync(ledgerPath) ? readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound) : []);

/** deploy/local/services.sh on a state dir of this test only, never the caller's servers. */
function prometheusScript(command: 'up' | 'down') {
  const targets = Object.fromEntries(SERVICES.map((s) => [`PROMETHEUS_TARGET_${s.toUpperCase()}`, `127.0.0.1:${ports[s]}`]));
  execFileSync('bash', [join(ROOT, 'deploy/local/services.sh'), command, 'prometheus'], {
    stdio: 'pipe',
    env: {
      ...process.env,
      ...targets,
      TONSTREAM_STATE_DIR: join(dir, 'state'),
      PROMETHEUS_URL: '',
      PROMETHEUS_PORT: String(ports.prometheus),
      PROMETHEUS_SCRAPE_INTERVAL: '1s',
    },
  });
}

type PromSeries = { metric: Record<string, string>; value: [number, string] };
async function promQuery(expr: string): Promise<PromSeries[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; error?: string; data: { result: PromSeries[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data.result;
}

async function clickhouse(sql: string, db = database): Promise<string> {
  const res = await fetch(`${CLICKHOUSE_URL}/?database=${db}&output_format_json_quote_64bit_integers=0`, { method: 'POST', body: sql });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status}: ${text.slice(0, 500)}\n${sql}`);
  return text;
}

/** A query of the dashboards' ClickHouse datasource: the tables unqualified, the database as its default. */
async function clickhouseRows(sql: string, db: string): Promise<Record<string, unknown>[]> {
  return (JSON.parse(await clickhouse(`${sql}\nFORMAT JSON`, db)) as { data: Record<string, unknown>[] }).data;
}

/** Numbers as numbers: 18.16's JSON and a current server's differ in how they quote some types. */
const normalized = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(v) ? Number(v) : v]));

/** The tables the SQL panels read, copied (rows and engine) into the frozen database. */
const SQL_PANEL_TABLES = ['blocks', 'transactions', 'account_states_latest', 'jetton_wallets'];
const frozen = `${database}_frozen`;

async function freeze() {
  await clickhouse(`CREATE DATABASE IF NOT EXISTS ${frozen}`);
  for (const t of SQL_PANEL_TABLES) {
    await clickhouse(`CREATE TABLE ${frozen}.${t} AS ${database}.${t}`);
    await clickhouse(`INSERT INTO ${frozen}.${t} SELECT * FROM ${database}.${t}`);
  }
}

/**
 * The frozen tables recreated in a current ClickHouse (chdb 26, in-process: test/python/chdb_run.py)
 * from 18.16's own DDL and rows, then the SQL run there: the rows of each query.
 */
async function onCurrentClickHouse(sqls: string[]): Promise<{ version: string; rows: Record<string, unknown>[][] }> {
  type Step = { sql: string; format: string | null; data?: string; settings?: Record<string, string> };
  const steps: Step[] = [{ sql: `CREATE DATABASE ${frozen}`, format: null }];
  for (const t of SQL_PANEL_TABLES) {
    const ddl = (JSON.parse(await clickhouse(`SHOW CREATE TABLE ${frozen}.${t} FORMAT JSON`)) as { data: { statement: string }[] }).data[0].statement;
    steps.push({ sql: ddl, format: null }, { sql: `INSERT INTO ${frozen}.${t} FORMAT TabSeparated`, format: null, data: await clickhouse(`SELECT * FROM ${frozen}.${t} FORMAT TabSeparated`) });
  }
  steps.push({ sql: `USE ${frozen}`, format: null });
  for (const sql of sqls) steps.push({ sql, format: 'JSONEachRow', settings: { output_format_json_quote_64bit_integers: '0' } });
  const plan = join(dir, 'chdb-plan.json');
  writeFileSync(plan, JSON.stringify({ steps }));
  const run = await runPython(['test/python/chdb_run.py', plan]);
  if (run.code !== 0) throw new Error(`chdb_run.py exited ${run.code}: ${run.stderr.slice(-2000)}`);
  const out = JSON.parse(run.stdout) as { version: string; results: ({ ok: true; rows: string[] } | { ok: false; error: string })[] };
  const failed = out.results.map((r, i) => (r.ok ? null : `${steps[i].sql.slice(0, 200)}: ${r.error}`)).filter(Boolean);
  if (failed.length > 0) throw new Error(`on ClickHouse ${out.version}:\n${failed.join('\n')}`);
  return { version: out.version, rows: out.results.slice(-sqls.length).map((r) => (r as { rows: string[] }).rows.map((l) => normalized(JSON.parse(l) as Record<string, unknown>))) };
}

/** What each service printed last: a setup that timed out says where the pipeline stood. */
function serviceTails(): string {
  return Object.values(procs)
    .map((p) => `--- ${p.name}:\n${p.output().slice(-1500)}`)
    .join('\n');
}

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}

async function start(name: (typeof SERVICES)[number], extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(ports[name]), ...extra }, join(dir, 'logs'), args);
}

async function watermark(): Promise<number> {
  const res = await fetch(`${apiUrl}/api/v3/masterchainInfo`);
  return Number(res.headers.get('x-index-mc-seqno') ?? 0);
}

/** Requests a client makes, some of them wrong (422, 404), so the API's error panels have series. */
function startApiTraffic() {
  let running = true;
  const paths = ['/api/v3/masterchainInfo', '/api/v3/blocks?limit=2', '/api/v3/blocks?workchain=x', '/api/v3/no-such-endpoint', '/api/v3/topAccountsByBalance?limit=3'];
  const loop = (async () => {
    for (let i = 0; running; i++) {
      await fetch(`${apiUrl}${paths[i % paths.length]}`).then((r) => r.arrayBuffer(), () => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return { stop: async () => ((running = false), await loop) };
}

beforeAll(async () => {
  for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
  promUrl = `http://127.0.0.1:${ports.prometheus}`;
  apiUrl = `http://127.0.0.1:${ports.api}`;
  env = {
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: `ops${run}.`,
    FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
    FETCHER_START_SEQNO: '1',
    LOG_LEVEL: 'warn',
  };
  store = createStore({ url: CLICKHOUSE_URL, database });
  prometheusScript('up');
  await start(
    'localnet',
    { LOCALNET_PORT: String(ports.liteserver), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '500', LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE), LOCALNET_SEED: `ops-${run}`, LOCALNET_LEDGER: ledgerPath, LOG_LEVEL: 'info' },
    ['--reset'],
  );
  await procs.localnet!.waitFor(/localnet serving/);
  await start('api', { API_PORT: String(ports.api), PROMETHEUS_URL: promUrl });
  await start('writer');
  await start('tracer');
  await start('emulator', { PENDING_REDIS_PREFIX: `ops${run}:` });
  // Every port is drawn up front: one drawn now could be a port a service started above has not bound yet.
  await start('streamer', { STREAMER_PORT: String(ports.streaming) });
  await start('metadata');
  await start('decoder');
  await start('fetcher');
  try {
    await eventually('the API to serve masterchain block 5', async () => ((await watermark()) >= 5 ? true : undefined), 180_000, 500, assertAlive);
    apiTraffic = startApiTraffic();
    // Every target scraped and up, over enough samples for the panels' 30 s rate windows. A scrape
    // may miss its 1 s timeout now and then on two busy cores (a busy event loop), so not every one.
    await eventually(
      'Prometheus to have 30 s of scrapes of every service, at least 25 of them up',
      async () => {
        const up = await promQuery('sum_over_time(up{job="tonstream"}[30s])');
        const short = SERVICES.filter((s) => !up.some((u) => u.metric.service === s && Number(u.value[1]) >= 25));
        if (short.length > 0) throw new Error(`short of 25 successful scrapes: ${short.join(', ')} (${up.map((u) => `${u.metric.service} ${u.value[1]}`).join(', ')})`);
        return true;
      },
      120_000,
      1_000,
      assertAlive,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\nwatermark ${await watermark().catch(() => 'unknown')}\n${serviceTails()}`, { cause: err });
  }
}, 360_000);

afterAll(async () => {
  await apiTraffic?.stop();
  await browser?.close();
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  try {
    prometheusScript('down');
  } finally {
    await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await store.command(`DROP DATABASE IF EXISTS ${frozen}`).catch(() => undefined);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

describe('operations against the running stack', () => {
  it('every Prometheus panel query of every dashboard returns at least one series', async () => {
    const queries = panelQueries().filter((q) => q.expr);
    expect(queries.length).toBeGreaterThan(40);
    const empty: string[] = [];
    for (const q of queries) {
      const expr = expandGrafanaVariables(q.expr!, GRAFANA_VARS);
      if ((await promQuery(expr)).length === 0) empty.push(`${q.where}: ${expr}`);
    }
    expect(empty, 'panels without data').toEqual([]);
  });

  it('every metric the panels and alerts read has series, and every alert expression (comparisons made bool) returns one', async () => {
    const names = [...new Set([...panelQueries().flatMap((q) => (q.expr ? metricNames(q.expr) : [])), ...loadAlertRules().flatMap((r) => metricNames(r.expr))])];
    // Read until one round passes: on a loaded machine a 1 s scrape can miss a target for a moment
    // (its series gone, `up` 0), which is not what this test is about; a persistent gap still fails.
    const observe = async () => {
      const missing: string[] = [];
      for (const n of names) if ((await promQuery(`count(${n})`)).length === 0) missing.push(n);
      const empty: string[] = [];
      const holding: string[] = [];
      for (const rule of loadAlertRules()) {
        const expr = withBoolComparisons(rule.expr);
        if ((await promQuery(expr)).length === 0) empty.push(`${rule.alert}: ${expr}`);
        // A healthy stack: none of the alert expressions themselves holds.
        const held = await promQuery(rule.expr);
        if (held.length > 0) holding.push(`${rule.alert}: ${JSON.stringify(held)}`);
      }
      return { missing, empty, holding };
    };
    let last = await observe();
    await eventually('every series present and no alert expression holding', async () => {
      if (last.missing.length + last.empty.length + last.holding.length === 0) return true;
      last = await observe();
      return undefined;
    }, 60_000, 2_000).catch(() => undefined);
    expect(last.missing, 'metrics without series').toEqual([]);
    expect(last.empty, 'alert expressions that can never hold').toEqual([]);
    expect(last.holding, 'alert expressions holding on a healthy stack').toEqual([]);
  });

  it("every ClickHouse panel's SQL, macros expanded, returns rows over the data the pipeline stored, the same on 18.16 and a current ClickHouse", async () => {
    const queries = panelQueries().filter((q) => q.sql);
    expect(queries.length).toBe(4);
    // A frozen copy, so that both engines and the ledger check see the same rows while the pipeline runs on.
    const before = await watermark();
    await freeze();
    const nowS = Date.now() / 1000;
    const range = { fromS: nowS - 3600, toS: nowS + 60, intervalS: 10 };
    const sqls = queries.map((q) => expandClickHouseMacros(q.sql!, range));
    const old: Record<string, unknown>[][] = [];
    for (const [i, sql] of sqls.entries()) {
      const rows = await clickhouseRows(sql, frozen);
      expect(rows.length, queries[i].where).toBeGreaterThan(0);
      old.push(rows);
    }
    // Checked against the chain's own ledger: the transactions/s panel, summed over its buckets, holds
    // every transaction up to the watermark seen before the copy and none the chain never made.
    const rounds = ledger();
    const txUpTo = (n: number) => rounds.filter((r) => r.mc_seqno <= n).reduce((s, r) => s + r.blocks.reduce((t, b) => t + b.transactions.length, 0), 0);
    const txRows = old[queries.findIndex((q) => q.where.includes('Transactions/s'))];
    const panelTotal = txRows.reduce((s, r) => s + (Number(r.masterchain) + Number(r.basechain)) * range.intervalS, 0);
    expect(txUpTo(before)).toBeGreaterThan(0);
    expect(panelTotal).toBeGreaterThanOrEqual(txUpTo(before));
    expect(panelTotal).toBeLessThanOrEqual(txUpTo(Infinity));
    const balances = old[queries.findIndex((q) => q.where.includes('Top accounts'))].map((r) => Number(r.balance_ton));
    expect(balances[0]).toBeGreaterThan(0);
    expect([...balances].sort((a, b) => b - a)).toEqual(balances);

    const current = await onCurrentClickHouse(sqls);
    expect(current.version).not.toMatch(/^18\./);
    for (const [i, q] of queries.entries()) expect(current.rows[i], `${q.where} on ClickHouse ${current.version}`).toEqual(old[i].map(normalized));
  }, 180_000);

  it('/status in a real browser shows the watermark, non-empty rate charts and every service up', async () => {
    const chromiumPath = process.env.TONSTREAM_CHROMIUM ?? '/usr/bin/chromium';
    if (!existsSync(chromiumPath)) throw new Error(`no chromium at ${chromiumPath}: run \`bash scripts/browser-env.sh\` (npm test does)`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    const offOrigin: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => void (r.url().startsWith(apiUrl) || offOrigin.push(r.url())));
    const before = await watermark();
    await page.goto(`${apiUrl}/status`);
    await page.locator('#status[data-loaded="true"]').waitFor({ timeout: 30_000 });
    expect(Number(await page.locator('#watermark').textContent())).toBeGreaterThanOrEqual(before);
    for (const id of ['chart-blocks', 'chart-tx']) {
      const chart = page.locator(`#${id}`);
      expect(Number(await chart.getAttribute('data-points')), id).toBeGreaterThan(1);
      // Drawn, not just sized: the canvas has pixels of the series' colour (#2563eb).
      const drawn = await chart.locator('canvas').evaluate((el) => {
        const c = el as unknown as Canvas;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] === 0x25 && d[i + 1] === 0x63 && d[i + 2] === 0xeb) n++;
        return n;
      });
      expect(drawn, `${id}: pixels of the series line`).toBeGreaterThan(50);
    }
    // The page's numbers against the chain's ledger: the whole run is inside the 10-minute window, so
    // the buckets hold every masterchain round up to the watermark, its blocks and its transactions.
    const snap = (await (await fetch(`${apiUrl}/status/data.json`)).json()) as { watermark: { seqno: number }; rates: { buckets: { mc_blocks: number; blocks: number; transactions: number }[] } };
    const rounds = ledger().filter((r) => r.mc_seqno <= snap.watermark.seqno);
    const sum = (k: 'mc_blocks' | 'blocks' | 'transactions') => snap.rates.buckets.reduce((s, b) => s + b[k], 0);
    expect(sum('mc_blocks')).toBe(rounds.length);
    expect(sum('blocks')).toBe(rounds.reduce((s, r) => s + r.blocks.length, 0));
    expect(sum('transactions')).toBe(rounds.reduce((s, r) => s + r.blocks.reduce((t, b) => t + b.transactions.length, 0), 0));
    // Every service up as Prometheus last scraped it: on a loaded machine one 1 s scrape can miss (shown
    // as down), so the page is read again until a round of scrapes found them all.
    const upRows = SERVICES.map((s) => `${s} ok`).sort();
    const serviceRows = async () => (await page.locator('#services tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)))).map((r) => `${r[0]} ${r[1]}`).sort();
    let shown = await serviceRows();
    await eventually('every service up on /status', async () => {
      if (JSON.stringify(shown) === JSON.stringify(upRows)) return true;
      await page.reload();
      await page.locator('#status[data-loaded="true"]').waitFor({ timeout: 30_000 });
      shown = await serviceRows();
      return undefined;
    }, 30_000, 1_000).catch(() => undefined);
    expect(shown).toEqual(upRows);
    expect(await page.locator('#health-source').textContent()).toContain('Prometheus');
    expect(pageErrors).toEqual([]);
    expect(offOrigin).toEqual([]);
    mkdirSync(join(ROOT, '.local/artifacts'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    const png = readFileSync(SCREENSHOT);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);
  });

  it('"indexer stalled" holds within its `for` window after the writer is killed, and not after its restart', async () => {
    const rule = loadAlertRules().find((r) => r.alert === 'TonstreamIndexerStalled')!;
    const forMs = Number(/^(\d+)m$/.exec(rule.for ?? '')![1]) * 60_000;
    expect(await promQuery(rule.expr)).toEqual([]);
    const killedAt = Date.now();
    await procs.writer!.kill9();
    await eventually('the stalled expression to hold', async () => ((await promQuery(rule.expr)).length > 0 ? true : undefined), forMs, 1_000);
    const tookMs = Date.now() - killedAt;
    console.log(`indexer stalled: expression true ${(tookMs / 1000).toFixed(1)} s after kill -9 of the writer (for: ${rule.for})`);
    // The writer's scrape target is down meanwhile: the service-down expression holds too.
    expect((await promQuery(loadAlertRules().find((r) => r.alert === 'TonstreamServiceDown')!.expr)).map((s) => s.metric.service)).toEqual(['writer']);
    const restartedAt = Date.now();
    await start('writer');
    await eventually('the stalled expression to clear', async () => ((await promQuery(rule.expr)).length === 0 ? true : undefined), 120_000, 1_000);
    console.log(`indexer stalled: expression false ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after the writer restarted`);
  }, 360_000);
});
