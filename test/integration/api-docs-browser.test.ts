import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeBlock } from '@tonstream/block';
import { recordBatch, saveWatermark, writeBatch } from '@tonstream/store';
import { type Browser, chromium, type Page, type Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, startApi } from './api-server.js';
import { sourcesBlock } from '../support/mainnet-sources.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCREENSHOT = join(REPO_ROOT, '.local/artifacts/api-v3-docs.png');
const MC_BLOCK = 'mc_-1_8000000000000000_24374597.boc';
const database = `tonstream_api_docs_${randomBytes(4).toString('hex')}`;
// Swagger UI parses a ~1.5 MB bundle; the machine's two cores are shared.
const UI_TIMEOUT_MS = 60_000;

/** Debian's chromium (scripts/browser-env.sh; `npm test` exports TONSTREAM_CHROMIUM). Missing is an error. */
function chromiumPath(): string {
  const path = process.env.TONSTREAM_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`no chromium at ${path}: run \`bash scripts/browser-env.sh\` (npm test does)`);
  return path;
}

let api: ApiUnderTest;
let browser: Browser;
let page: Page;
const served: Response[] = [];
const offOrigin: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  const decoded = decodeBlock(readFileSync(join(import.meta.dirname, '../fixtures/mainnet/blocks', MC_BLOCK)), { mcSeqno: sourcesBlock(MC_BLOCK).seqno });
  await writeBatch(api.store, recordBatch({ blocks: [decoded.block], transactions: decoded.transactions, messages: decoded.messages }));
  await saveWatermark(api.store, { mc_seqno: sourcesBlock(MC_BLOCK).seqno, gen_utime: Number(decoded.block.gen_utime) });

  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (req) => {
    if (!req.url().startsWith(api.base) && !req.url().startsWith('data:')) offOrigin.push(req.url());
  });
  page.on('response', (res) => served.push(res));
  page.on('pageerror', (err) => pageErrors.push(err.message));
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
});

describe('the v3 docs page', () => {
  it('GET / redirects to /api/v3/index.html with a 301, as toncenter (reference §1.1)', async () => {
    const res = await fetch(`${api.base}/`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/api/v3/index.html');
  });

  it("serves only the page's assets from the swagger-ui-dist folder", async () => {
    const css = await fetch(`${api.base}/api/v3/swagger-ui.css`);
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    for (const path of ['package.json', 'swagger-initializer.js.map', 'oauth2-redirect.html', '..%2Fpackage.json', '%2E%2E%2Fswagger-ui-dist%2Fpackage.json']) {
      const res = await fetch(`${api.base}/api/v3/${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: string }).error, path).toMatch(/^no such endpoint/);
    }
  });

  it('lists every path of the served openapi.json, from local assets only', async () => {
    const doc = (await (await fetch(`${api.base}/api/v3/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.length).toBeGreaterThan(0);

    await page.goto(`${api.base}/api/v3/index.html`);
    await page.locator('.opblock').first().waitFor({ timeout: UI_TIMEOUT_MS });
    const listed = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    expect([...listed].sort()).toEqual([...documented].sort());
    await expect(page.title()).resolves.toBe('tonstream: toncenter API v3');
    expect(offOrigin).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(served.filter((r) => r.status() >= 400).map((r) => `${r.status()} ${r.url()}`)).toEqual([]);
  });

  it("'Try it out' on GET /masterchainInfo executes a 200 answering the fixture's masterchain block", async () => {
    const seqno = sourcesBlock(MC_BLOCK).seqno;
    const operation = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/v3/masterchainInfo"]') });
    await operation.locator('.opblock-summary-path').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v3/masterchainInfo', { timeout: UI_TIMEOUT_MS }),
      operation.getByRole('button', { name: 'Execute' }).click(),
    ]);
    expect(response.status()).toBe(200);
    expect(new URL(response.url()).origin).toBe(api.base);

    const live = operation.locator('.live-responses-table');
    await live.locator('.response-col_status').first().waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await live.locator('tbody .response-col_status').first().textContent())?.trim()).toBe('200');
    const shownBody = JSON.parse((await live.locator('.response-col_description .microlight').first().textContent()) ?? '') as { last: { workchain: number; seqno: number } };
    expect(shownBody.last).toMatchObject({ workchain: -1, seqno });
  });

  it('saves a full-page screenshot to .local/artifacts/api-v3-docs.png', async () => {
    mkdirSync(join(REPO_ROOT, '.local/artifacts'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    const png = readFileSync(SCREENSHOT);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    // The page is the viewport's width and, with every operation listed, much taller than it.
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.readUInt32BE(20)).toBeGreaterThan(900);
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(50_000);
  });
});
