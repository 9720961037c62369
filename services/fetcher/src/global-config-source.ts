/**
 * The TON global config, given as a file path or an http(s) URL: its liteservers, and whether it is
 * the local network's (the localnet marks the file it writes). A file that does not exist yet is
 * waited for: under `npm start` the localnet writes it a moment after the fetcher starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isLocalnetGlobalConfig, readGlobalConfig, type LiteServerAddress } from '@tonstream/liteserver';
import type { Logger } from '@tonstream/runtime';
import { type BackoffOptions, retryForever } from './retry.js';

/** Wait between checks for the file / retries of the download. */
const GLOBAL_CONFIG_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 5_000 };

export type GlobalConfigSource = {
  liteservers: LiteServerAddress[];
  /** Written by the local network (`tonstream_localnet: true`), which can be reset to a new chain. */
  localnet: boolean;
};

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export async function loadGlobalConfig(source: string, options: { logger: Logger; signal?: AbortSignal; fetch?: typeof fetch }): Promise<GlobalConfigSource> {
  const { logger, signal } = options;
  const get = options.fetch ?? fetch;
  return retryForever(
    async () => {
      let text: string;
      if (isUrl(source)) {
        const res = await get(source, { signal });
        if (!res.ok) throw new Error(`GET ${source}: HTTP ${res.status}`);
        text = await res.text();
      } else {
        if (!existsSync(source)) throw new Error(`global config ${source} does not exist (yet)`);
        text = readFileSync(source, 'utf-8');
      }
      const liteservers = readGlobalConfig(text);
      if (liteservers.length === 0) throw new Error(`global config ${source} lists no liteservers`);
      return { liteservers, localnet: isLocalnetGlobalConfig(text) };
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
