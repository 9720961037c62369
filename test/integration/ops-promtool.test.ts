import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOY } from '../support/ops-queries.js';

/** promtool from Debian's prometheus package (`services.sh up` installs it; `npm test` runs that). Missing is an error. */
function promtool(...args: string[]): string {
  const bin = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find(existsSync);
  if (!bin) throw new Error('promtool not found: run `bash deploy/local/services.sh up prometheus` (npm test does)');
  try {
    return execFileSync(bin, args, { cwd: join(DEPLOY, 'prometheus'), encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
  }
}

describe('promtool on deploy/prometheus', () => {
  it('check rules: alerts.yml is valid', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: 11 rules found/);
  });

  it('check config: the scrape config docker-compose mounts is valid, with its rule file', () => {
    expect(promtool('check', 'config', 'prometheus.yml')).toMatch(/SUCCESS: 1 rule files found/);
  });

  it('test rules: every alert fires and stays quiet where alerts.test.yml says', () => {
    expect(promtool('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/);
  });
});
