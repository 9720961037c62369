/**
 * Liteservers from a TON global config given as a file path or an http(s) URL. A file that does not
 * exist yet is waited for: under `npm start` the localnet writes it a moment after the fetcher starts.
 */
import { existsSync } from 'node:fs';
import { readGlobalConfig, type LiteServerAddress } from '@tonstream/liteserver';
import type { Logger } from '@tonstream/runtime';
import { type BackoffOptions, retryForever } from './retry.js';

/** Wait between checks for the file / retries of the download. */
const GLOBAL_CONFIG_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 5_000 };

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export async function loadLiteservers(source: string, options: { logger: Logger; signal?: AbortSignal; fetch?: typeof fetch }): Promise<LiteServerAddress[]> {
  const { logger, signal } = options;
  const get = options.fetch ?? fetch;
  return retryForever(
    async () => {
      let servers: LiteServerAddress[];
      if (isUrl(source)) {
        const res = await get(source, { signal });
        if (!res.ok) throw new Error(`GET ${source}: HTTP ${res.status}`);
        servers = readGlobalConfig(await res.text());
      } else {
        if (!existsSync(source)) throw new Error(`global config ${source} does not exist (yet)`);
        servers = readGlobalConfig(source);
      }
      if (servers.length === 0) throw new Error(`global config ${source} lists no liteservers`);
      return servers;
    },
    {
      backoff: GLOBAL_CONFIG_BACKOFF,
      signal,
      onError: (err, attempt) => {
        if (attempt % 20 === 0) logger.warn('waiting for the global config', { source, attempt, err: (err as Error).message });
      },
    },
  );
}
