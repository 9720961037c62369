/**
 * The TON global config, given as a file path or an http(s) URL: its liteservers, and whether it is
 * the local network's (the localnet marks the file it writes). A file that does not exist yet is
 * waited for: under `npm start` the localnet writes it a moment after the services start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isLocalnetGlobalConfig, type LiteServerAddress, readGlobalConfig } from '@tonstream/liteserver-emulator';
import { type BackoffOptions, retryForever } from './retry.js';
import { TonstreamError } from '@tonstream/errors';

/** Wait between checks for the file / retries of the download. */
export const GLOBAL_CONFIG_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 5_000 };

export type GlobalConfigSource = {
  liteservers: LiteServerAddress[];
  /** Written by the local network (`tonstream_localnet: true`), which can be reset to a new chain. */
  localnet: boolean;
};

export type LoadGlobalConfigOptions = {
  signal?: AbortSignal;
  /** Told of each failed look (missing file, HTTP error, unreadable JSON, no liteservers) before the next one. */
  onRetry?: (err: Error, attempt: number) => void;
  /** @default GLOBAL_CONFIG_BACKOFF */
  backoff?: BackoffOptions;
  fetch?: typeof fetch;
};

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** The global config at `source`, looked for again until it exists and lists a liteserver (or `signal` aborts: AbortedError). */
export async function loadGlobalConfig(source: string, options: LoadGlobalConfigOptions = {}): Promise<GlobalConfigSource> {
  const { signal, onRetry, backoff = GLOBAL_CONFIG_BACKOFF } = options;
  const get = options.fetch ?? fetch;
  return retryForever(
    async () => {
      let text: string;
      if (isUrl(source)) {
        const res = await get(source, { signal });
        if (!res.ok) throw new Error(`GET ${source}: HTTP ${res.status}`);
        text = await res.text();
      } else {
        if (!existsSync(source)) throw new GlobalConfigMissingError(`global config ${source} does not exist (yet)`);
        text = readFileSync(source, 'utf-8');
      }
      const liteservers = readGlobalConfig(text);
      if (liteservers.length === 0) throw new Error(`global config ${source} lists no liteservers`);
      return { liteservers, localnet: isLocalnetGlobalConfig(text) };
    },
    { backoff, signal, onError: (err, attempt) => onRetry?.(err instanceof Error ? err : new Error(String(err)), attempt) },
  );
}

/** The global config file is not there (yet); other failures mean it is there but unusable. */
export class GlobalConfigMissingError extends TonstreamError {
  readonly code = 'GLOBAL_CONFIG_MISSING';
}
