import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectLitePool, createLiteReads, loadGlobalConfig, type LiteReads } from '@tonstream/lite-client';
import { clickhouseOptions, ConfigError, loadConfig } from '@tonstream/runtime';
import { createStore, migrate } from '@tonstream/store';
import { bootstrapDone, type BootstrapProgress, type BootstrapResult, bootstrapStateFiles, bootstrapStates, DEFAULT_BOOTSTRAP_BATCH, waitForIndexStart } from './bootstrap.js';
import { WRITER_CONFIG } from './config.js';

const USAGE = [
  'usage: npm run bootstrap -- --seqno S [--global-config PATH|URL] [--batch N] [--restart]',
  '       npm run bootstrap -- --seqno S --state-file PATH [--state-file PATH ...] [--batch N] [--restart]   (PATH: a shard-state BoC, or a directory of them)',
  '       npm run bootstrap -- --at-index-start [--global-config PATH|URL] [--batch N]',
].join('\n');
const DEFAULT_GLOBAL_CONFIG = '.local/localnet/global.config.json';

/**
 * `npm run bootstrap`: writes the state of every account at masterchain block S (see bootstrap.ts)
 * into the writer's ClickHouse (CLICKHOUSE_*), migrating it first.
 * - `--seqno S`: the shard states from the liteservers of `--global-config` (default
 *   FETCHER_GLOBAL_CONFIG, else the local network's file), which must serve liteServer.getState.
 * - `--seqno S --state-file PATH…`: the shard states from files (or every file of a directory).
 * - `--at-index-start`: S is where the index began, waited for; nothing is done if a bootstrap at S
 *   finished before, or if the liteservers are not the local network's (what `npm start` runs beside
 *   the services).
 * A run continues a stopped one at the same S (`--restart`: from the start). Progress on stderr, a
 * JSON summary on stdout.
 */
async function main(): Promise<number> {
  let args;
  let config;
  try {
    args = parseArgs({
      options: {
        seqno: { type: 'string' },
        'state-file': { type: 'string', multiple: true },
        'at-index-start': { type: 'boolean' },
        'global-config': { type: 'string' },
        batch: { type: 'string' },
        restart: { type: 'boolean' },
      },
    }).values;
    config = loadConfig(WRITER_CONFIG);
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const atIndexStart = args['at-index-start'] === true;
  const files = args['state-file'] ?? [];
  const seqno = args.seqno === undefined ? undefined : Number(args.seqno);
  const batchSize = args.batch === undefined ? DEFAULT_BOOTSTRAP_BATCH : Number(args.batch);
  const bad =
    !Number.isInteger(batchSize) || batchSize < 1 ||
    (atIndexStart ? seqno !== undefined || files.length > 0 || args.restart === true : seqno === undefined || !Number.isInteger(seqno) || seqno < 1);
  if (bad) {
    console.error(USAGE);
    return 2;
  }
  let paths: string[];
  try {
    paths = files.flatMap(stateFiles);
  } catch (err) {
    console.error(`bootstrap: ${(err as Error).message}`);
    return 2;
  }
  const store = createStore(clickhouseOptions(config));
  let reads: LiteReads | undefined;
  const source = args['global-config'] ?? process.env.FETCHER_GLOBAL_CONFIG ?? DEFAULT_GLOBAL_CONFIG;
  const globalConfig = paths.length > 0 ? undefined : await loadGlobalConfig(source);
  const liteReads = async () => {
    reads = createLiteReads(await connectLitePool(globalConfig!.liteservers, { timeoutMs: 60_000 }));
    return reads;
  };
  try {
    if (atIndexStart && !globalConfig!.localnet) {
      // Upstream liteservers refuse getState: only the local network's serve whole states.
      console.error(`bootstrap: ${source} is not the local network's: its liteservers do not serve whole shard states; nothing to do (bootstrap from shard-state files: --seqno S --state-file)`);
      console.log(JSON.stringify({ skipped: 'not a local network' }));
      return 0;
    }
    await migrate(store);
    const started = Date.now();
    let at = seqno ?? 0;
    if (atIndexStart) {
      at = await waitForIndexStart(store, { onWait: () => console.error('bootstrap: waiting for the index to start (its first masterchain block stored)') });
      if (await bootstrapDone(store, at)) {
        console.error(`bootstrap: the index began at ${at}; a bootstrap at ${at} finished before: nothing to do`);
        console.log(JSON.stringify({ mc_seqno: at, done_before: true }));
        return 0;
      }
      console.error(`bootstrap: the index began at ${at}: bootstrapping at ${at}`);
    }
    const options = { batchSize, restart: args.restart === true, onProgress: progressPrinter(), onWarning: (m: string) => console.error(`bootstrap: warning: ${m}`) };
    let result: BootstrapResult;
    try {
      result = paths.length > 0 ? await bootstrapStateFiles(paths, store, at, options) : await bootstrapStates(await liteReads(), store, at, options);
    } catch (err) {
      if (!atIndexStart) throw err;
      console.error(`bootstrap: no bootstrap at ${at}, where the index began: ${(err as Error).message}`);
      console.error(
        'bootstrap: liteservers keep states for a while only (the local network: its last 32 rounds), so this must run soon after the index starts. ' +
          'An index begun earlier can be bootstrapped from shard-state files (--seqno S --state-file), or started anew.',
      );
      return 1;
    }
    for (const s of result.skipped) console.error(`bootstrap: skipped ${s.account}: ${s.error}`);
    const seconds = (Date.now() - started) / 1000;
    console.log(JSON.stringify({ mc_seqno: result.mcSeqno, blocks: result.blocks, accounts: result.accounts, already: result.already, skipped: result.skipped.length, seconds, accounts_per_second: Math.round(result.accounts / Math.max(seconds, 0.001)) }));
    return 0;
  } finally {
    reads?.close();
    await store.close();
  }
}

/** `--state-file` PATH: the file, or every file of the directory (by name). */
function stateFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const names = readdirSync(path).filter((n) => statSync(join(path, n)).isFile()).sort();
  if (names.length === 0) throw new Error(`${path}: no files in the directory`);
  return names.map((n) => join(path, n));
}

/** A progress line at most every 2 s, and at the end of every part. */
function progressPrinter(): (p: BootstrapProgress) => void {
  const started = Date.now();
  let shown = 0;
  const n = (x: number) => x.toLocaleString('en-US');
  return (p) => {
    const end = p.position >= 1;
    if (!end && Date.now() - shown < 2_000) return;
    shown = Date.now();
    const head = `bootstrap: part ${p.part}/${p.parts} ${p.block}:`;
    if (p.alreadyDone) {
      console.error(`${head} done by an earlier run (${n(p.accounts)} accounts)`);
      return;
    }
    const of = p.blockAccounts === null ? `${n(p.accounts)} accounts (${(p.position * 100).toFixed(1)}% of its addresses)` : `${n(p.accounts)}/${n(p.blockAccounts)} accounts`;
    const rate = Math.round(p.totalAccounts / Math.max((Date.now() - started) / 1000, 0.001));
    console.error(`${head} ${of}${end ? ', done' : ''}; ${n(p.totalAccounts)} written by this run, ${n(rate)} accounts/s`);
  };
}

// Exits rather than waiting for the loop to drain: ton-lite-client never clears its own query
// timers (packages/lite-client/README.md), which would hold the process for the query timeout.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
