import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cell, loadMessage } from '@ton/core';
import { saveWatermark } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourcesTransactions } from '../support/mainnet-sources.js';
import { type ApiUnderTest, startApi } from './api-server.js';
import { runPython } from './python.js';
import { LOCALNET_STATES, MC, writeLocalnetStates, writeMainnetBlocks } from './v3-fixture-data.js';

/**
 * schemathesis (a property-based tester for OpenAPI, from PyPI) against our served
 * /api/v3/openapi.json over an index loaded with the fixture blocks and account states: no 5xx, and
 * every answer conforms to the schema the document gives for its status.
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_api_v3_st_${randomBytes(4).toString('hex')}`;

/** Fixed, so a failure reproduces (schemathesis prints the command and the seed). */
const SEED = 20261124;
/** Test cases per operation and phase: hypothesis's generation, not the server, takes most of the run (about a minute). */
const MAX_EXAMPLES = 10;
/**
 * One: with worker threads, the venv's Python 3.11 hits CPython gh-106905 (`SystemError: AST
 * constructor recursion depth mismatch` inside hypothesis's ast.parse), reported as a Runtime Error.
 */
const WORKERS = 1;
/** A guard, not a speed target: ~2.5 min on two cores running two suites, past 5 at load 16 (ci25). */
const RUN_TIMEOUT_MS = 600_000;
/**
 * Sent as a header, which wins over the `x_timeout` query parameter schemathesis generates: a
 * client's own 1 ms deadline answers 504 by design (documented), which `not_a_server_error` would
 * count. The bad-input suite covers x_timeout's parsing; a 504 here is a query slower than the cap.
 */
const TIMEOUT_HEADER = 'X-Timeout: 3000';

/** The parts of schemathesis's JSON run report (`--report json`) the test reads. */
type RunReport = {
  complete: boolean;
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number } | null;
  test_cases: { generated: number; with_failures: number; errored: number };
  failures: { title: string; count: number; operations: string[] }[];
  errors: { title: string; count: number }[];
};

/** The requests and answers of the run (`--report har`). */
type Har = { log: { entries: { request: { method: string; url: string }; response: { status: number } }[] } };

/**
 * Operations the loaded fixtures cannot answer with rows: the shard blocks the fixture masterchain
 * blocks reference are not among the fixtures (api-v3.test.ts checks that 404); no pending traces are
 * in this suite's Redis, and /pendingTransactions answers that with 404 (pending-api.test.ts checks
 * the answers with an emulated trace).
 */
const NO_STORED_ANSWER = ['GET /api/v3/masterchainBlockShardState', 'GET /api/v3/pendingTransactions'];

type Operation = { parameters?: { name: string; schema: { type?: string }; example?: unknown }[] };
type OpenApi = { paths: Record<string, Record<string, Operation>> };

let api: ApiUnderTest;
let workDir: string;

/**
 * Values stored in the loaded index, by parameter name, so that schemathesis's examples phase reaches
 * answers with rows (random values mostly find nothing). From the fixtures and @ton/core.
 */
function storedExamples(): Record<string, string> {
  const tx = sourcesTransactions()[0] as ReturnType<typeof sourcesTransactions>[number] & { boc_base64: string };
  // Transaction: its first ref holds the in message (Maybe ^Message) and the out messages.
  const messages = Cell.fromBase64(tx.boc_base64).refs[0].beginParse();
  const inCell = messages.loadBit() ? messages.loadRef() : null;
  const examples: Record<string, string> = {
    seqno: String(MC.b), mc_seqno: String(MC.b), workchain: '0', shard: '8000000000000000',
    hash: tx.hash_base64, lt: tx.lt, account: tx.account.toUpperCase(), address: LOCALNET_STATES[0].account,
  };
  if (inCell) {
    examples.msg_hash = inCell.hash().toString('base64');
    examples.body_hash = loadMessage(inCell.beginParse()).body.hash().toString('base64');
  }
  return examples;
}

/**
 * The served document with `example`s of stored values added to its parameters. Examples are
 * documentation only (no constraint changes), which the test checks before running on the copy.
 */
function withStoredExamples(doc: OpenApi): OpenApi {
  const copy = structuredClone(doc);
  const examples = storedExamples();
  for (const methods of Object.values(copy.paths)) {
    for (const op of Object.values(methods)) {
      for (const p of op.parameters ?? []) {
        const v = examples[p.name];
        // An example must match its schema, or schemathesis drops it.
        const typed = p.schema.type === 'integer' ? Number(v) : v;
        if (v !== undefined) p.example = p.schema.type === 'array' ? [typed] : typed;
      }
    }
  }
  return copy;
}

const withoutExamples = (doc: unknown): unknown =>
  JSON.parse(JSON.stringify(doc, (key, value: unknown) => (key === 'example' ? undefined : value)));

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  const mcBlocks = await writeMainnetBlocks(api.store);
  await writeLocalnetStates(api.store, 7);
  await saveWatermark(api.store, { mc_seqno: MC.c, gen_utime: Number(mcBlocks[MC.c].gen_utime) });
  workDir = mkdtempSync(join(tmpdir(), 'tonstream-schemathesis-'));
});

afterAll(async () => {
  await api?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The document without the operations tagged api/v2 (paths left empty are dropped). */
function withoutLiteserverOperations(doc: OpenApi): OpenApi {
  const paths = Object.fromEntries(
    Object.entries(doc.paths)
      .map(([path, methods]) => [path, Object.fromEntries(Object.entries(methods).filter(([, op]) => !((op as { tags?: string[] }).tags ?? []).includes('api/v2')))] as const)
      .filter(([, methods]) => Object.keys(methods).length > 0),
  );
  return { ...doc, paths } as OpenApi;
}

describe('schemathesis over /api/v3/openapi.json', () => {
  it('finds no 5xx and no answer that breaks its documented schema, on every operation', async () => {
    // The legacy v2-compatible operations (tag api/v2) read the liteserver: api-v2.test.ts covers them on the local network.
    const served = withoutLiteserverOperations((await (await fetch(`${api.base}/api/v3/openapi.json`)).json()) as OpenApi);
    const doc = withStoredExamples(served);
    expect(withoutExamples(doc)).toEqual(withoutExamples(served));
    const operations = Object.values(served.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
    expect(operations).toBeGreaterThanOrEqual(Object.keys(served.paths).length);
    writeFileSync(join(workDir, 'openapi.json'), JSON.stringify(doc));
    // No crash cache in the working tree: the run's only outputs go to workDir.
    writeFileSync(join(workDir, 'schemathesis.toml'), '[cache]\nenabled = false\n');
    const reportPath = join(workDir, 'run.json');
    const harPath = join(workDir, 'run.har');
    const run = await runPython(
      [
        '-m', 'schemathesis.cli', '--config-file', join(workDir, 'schemathesis.toml'),
        'run', join(workDir, 'openapi.json'), '--url', api.base,
        '--checks', 'not_a_server_error,response_schema_conformance',
        '--phases', 'examples,coverage,fuzzing',
        '--mode', 'all',
        '--seed', String(SEED),
        '--max-examples', String(MAX_EXAMPLES),
        '--generation-database', 'none',
        '--workers', String(WORKERS),
        '--request-timeout', '10',
        '--header', TIMEOUT_HEADER,
        '--report', 'json,har', '--report-json-path', reportPath, '--report-har-path', harPath,
        '--no-color',
      ],
      // Hypothesis keeps its example database in the working directory unless told otherwise.
      { HYPOTHESIS_STORAGE_DIRECTORY: join(workDir, 'hypothesis') },
      RUN_TIMEOUT_MS,
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, `schemathesis did not finish (killed after ${RUN_TIMEOUT_MS / 1000} s?):\n${output.slice(-3000)}`).not.toBeNull();
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as RunReport;
    // A broken setup (schema not loaded, server unreachable, operations filtered out) must not pass.
    expect(report.complete, output).toBe(true);
    expect(report.operations, output).toMatchObject({ total: operations, selected: operations, tested: operations, errored: 0, skipped: 0 });
    expect(report.test_cases.generated, output).toBeGreaterThanOrEqual(operations * MAX_EXAMPLES);
    // Schema conformance means little on error answers only: each operation must have been answered with rows.
    const answered = new Set<string>();
    for (const { request, response } of (JSON.parse(readFileSync(harPath, 'utf8')) as Har).log.entries) {
      if (response.status >= 200 && response.status < 300) answered.add(`${request.method} ${new URL(request.url).pathname}`);
    }
    const declared = Object.entries(served.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(declared.filter((op) => !answered.has(op))).toEqual(NO_STORED_ANSWER);
    expect(report.errors, output).toEqual([]);
    expect(report.failures, output).toEqual([]);
    expect(run.code, output).toBe(0);
  }, RUN_TIMEOUT_MS + 30_000);
});
