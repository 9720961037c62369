/**
 * The fetcher process (exit codes and signals: `runService` of @tonstream/runtime; 0 also after a
 * finished backfill, 1 when its checkpoint belongs to another chain). Argument: `--reset` (ignore
 * the stored checkpoint).
 */
import { runService } from '@tonstream/runtime';
import { FETCHER_SERVICE } from './config.js';
import { startFetcher } from './start.js';

await runService(FETCHER_SERVICE, startFetcher);
