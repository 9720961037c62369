import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeGlobalConfig } from '@tonstream/liteserver-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { GlobalConfigMissingError, loadGlobalConfig } from './global-config-source.js';
import { AbortedError } from './retry.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const server = { host: '127.0.0.1', port: 4924, publicKey: Buffer.alloc(32, 1) };
const fast = { baseMs: 1, maxMs: 2 };

describe('loadGlobalConfig()', () => {
  it('waits for a file that does not exist yet, telling each look, then reads its liteservers and the localnet mark', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lite-client-config-'));
    dirs.push(dir);
    const path = join(dir, 'global.config.json');
    const seen: Error[] = [];
    const config = await loadGlobalConfig(path, {
      backoff: fast,
      onRetry: (err, attempt) => {
        seen.push(err);
        if (attempt === 2) writeGlobalConfig(path, [server], { localnet: true });
      },
    });
    expect(config).toEqual({ liteservers: [server], localnet: true });
    expect(seen).toHaveLength(3);
    expect(seen.every((e) => e instanceof GlobalConfigMissingError)).toBe(true);
  });

  it('downloads an http(s) config, retrying an HTTP error; a config without liteservers is not accepted', async () => {
    const answers = [new Response('busy', { status: 503 }), new Response(JSON.stringify({ liteservers: [] })), new Response(JSON.stringify({ liteservers: [{ ip: 2130706433, port: 4924, id: { '@type': 'pub.ed25519', key: server.publicKey.toString('base64') } }] }))];
    const errors: string[] = [];
    const config = await loadGlobalConfig('https://example.org/global.config.json', { backoff: fast, fetch: async () => answers.shift()!, onRetry: (err) => errors.push(err.message) });
    expect(config).toEqual({ liteservers: [server], localnet: false });
    expect(errors).toEqual(['GET https://example.org/global.config.json: HTTP 503', 'global config https://example.org/global.config.json lists no liteservers']);
  });

  it('ends with AbortedError when aborted while waiting', async () => {
    const ctl = new AbortController();
    const p = loadGlobalConfig('/nonexistent/global.config.json', { signal: ctl.signal, backoff: fast, onRetry: () => ctl.abort() });
    await expect(p).rejects.toBeInstanceOf(AbortedError);
  });
});
