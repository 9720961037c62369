import { parseArgs } from 'node:util';
import { connectLitePool, createLiteReads, loadGlobalConfig } from '@tonstream/lite-client';
import { clickhouseOptions, ConfigError, loadConfig } from '@tonstream/runtime';
import { createStore } from '@tonstream/store';
import { bootstrapStates, DEFAULT_BOOTSTRAP_BATCH } from './bootstrap.js';
import { WRITER_CONFIG } from './config.js';

const USAGE = 'usage: npm run bootstrap -- --seqno S [--global-config PATH|URL] [--batch N]';
const DEFAULT_GLOBAL_CONFIG = '.local/localnet/global.config.json';

/**
 * `npm run bootstrap -- --seqno S`: writes the state of every account at masterchain block S (see
 * bootstrap.ts) into the writer's ClickHouse (CLICKHOUSE_*). The liteservers come from
 * `--global-config` (default FETCHER_GLOBAL_CONFIG, else the local network's file) and must serve
 * liteServer.getState (the local network's does). Progress on stderr, a JSON summary on stdout.
 */
async function main(): Promise<number> {
  let args;
  let config;
  try {
    args = parseArgs({ options: { seqno: { type: 'string' }, 'global-config': { type: 'string' }, batch: { type: 'string' } } }).values;
    config = loadConfig(WRITER_CONFIG);
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const seqno = Number(args.seqno);
  const batchSize = args.batch === undefined ? DEFAULT_BOOTSTRAP_BATCH : Number(args.batch);
  if (!Number.isInteger(seqno) || seqno < 1 || !Number.isInteger(batchSize) || batchSize < 1) {
    console.error(USAGE);
    return 2;
  }
  const source = args['global-config'] ?? process.env.FETCHER_GLOBAL_CONFIG ?? DEFAULT_GLOBAL_CONFIG;
  const { liteservers } = await loadGlobalConfig(source);
  const reads = createLiteReads(await connectLitePool(liteservers, { timeoutMs: 60_000 }));
  const store = createStore(clickhouseOptions(config));
  try {
    const started = Date.now();
    let shown = 0;
    const result = await bootstrapStates(reads, store, seqno, {
      batchSize,
      onProgress: (p) => {
        if (Date.now() - shown < 2_000 && p.accounts < p.blockAccounts) return;
        shown = Date.now();
        console.error(`bootstrap: ${p.block}: ${p.accounts.toLocaleString('en-US')}/${p.blockAccounts.toLocaleString('en-US')} accounts (${p.totalAccounts.toLocaleString('en-US')} in all)`);
      },
    });
    for (const s of result.skipped) console.error(`bootstrap: skipped ${s.account}: ${s.error}`);
    console.log(JSON.stringify({ mc_seqno: result.mcSeqno, blocks: result.blocks, accounts: result.accounts, skipped: result.skipped.length, seconds: (Date.now() - started) / 1000 }));
    return 0;
  } finally {
    reads.close();
    await store.close();
  }
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
