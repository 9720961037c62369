/**
 * Connection URLs with credentials never reach a service's output, as real processes print it: the
 * API logging the rate limits' Redis (REDIS_URL with a user and password) while it is unreachable,
 * and a service refusing a bad REDIS_URL at start. Each must still name the URL, with `***` for the
 * password.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '@tonstream/store';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const SECRET = `pw${randomBytes(8).toString('hex')}`;
const database = `tonstream_creds_${randomBytes(4).toString('hex')}`;
const logDir = mkdtempSync(join(tmpdir(), 'tonstream-credentials-'));
const procs: ServiceProcess[] = [];

afterAll(async () => {
  for (const p of procs) await p.stop();
  const store = createStore({ url: CLICKHOUSE_URL, database: 'default' });
  await store.command(`DROP DATABASE IF EXISTS ${database}`);
  await store.close();
  rmSync(logDir, { recursive: true, force: true });
});

describe('credentials in connection URLs', () => {
  it('the API names its unreachable Redis without the password', async () => {
    // Port 1: nothing listens, so the connection is refused and the API says so.
    const p = startService('api', {
      API_HOST: '127.0.0.1',
      API_PORT: String(await freePort()),
      CLICKHOUSE_URL,
      CLICKHOUSE_DATABASE: database,
      API_RATE_LIMIT: 'on',
      REDIS_URL: `redis://tonstream:${SECRET}@127.0.0.1:1/0`,
      API_GLOBAL_CONFIG: 'none',
      LOG_LEVEL: 'debug',
    }, logDir);
    procs.push(p);
    const line = await p.waitFor(/Redis unreachable/, 60_000);
    expect(line).toContain('redis://tonstream:***@127.0.0.1:1/0');
    await p.waitFor(/api listening/, 60_000);
    expect(p.output()).not.toContain(SECRET);
  });

  it('a service refusing a bad REDIS_URL at start shows it without the password', async () => {
    const p = startService('api', { REDIS_URL: `http://tonstream:${SECRET}@127.0.0.1:6379`, API_GLOBAL_CONFIG: 'none' }, logDir);
    procs.push(p);
    const code = await p.exited();
    expect(code).toBe(2);
    expect(p.output()).toContain('REDIS_URL="http://tonstream:***@127.0.0.1:6379" is invalid');
    expect(p.output()).not.toContain(SECRET);
  });
});
