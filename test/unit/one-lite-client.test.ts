import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 25: one liteserver client in the tree. Only @tonstream/lite-client opens ton-lite-client
// connections; product code everywhere else goes through it (its pool, cooldown, retries, timeouts
// and observer). Test code is left out on purpose: the tests under test/, `*.test.ts`,
// `test-support/` and the benches (`src/bench/`) use the unmodified ton-lite-client as an
// independent stock client, to check our emulated liteserver and the chain the way a user would.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENT_PACKAGE = 'packages/lite-client/src/';
const ENGINES = ['LiteClient', 'LiteSingleEngine', 'LiteRoundRobinEngine'];

function productSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist' || entry === 'test-support' || entry === 'bench') continue;
    if (statSync(path).isDirectory()) out.push(...productSources(path));
    else if (/\.(ts|js|mjs)$/.test(entry) && !/\.test\.ts$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** What in `text` constructs a ton-lite-client engine or client, or imports one as a value. */
export function engineUses(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s*from\s*'ton-lite-client'/g)) {
    if (m[1]) continue;
    for (const spec of m[2].split(',').map((s) => s.trim())) {
      const name = spec.split(/\s+as\s+/)[0];
      if (!spec.startsWith('type ') && ENGINES.includes(name)) found.push(`imports ${name}`);
    }
  }
  for (const m of text.matchAll(/new\s+(LiteClient|LiteSingleEngine|LiteRoundRobinEngine)\b/g)) found.push(`new ${m[1]}`);
  return found;
}

const files = ['packages', 'services'].flatMap((d) => productSources(join(ROOT, d))).map((f) => relative(ROOT, f));

describe('one liteserver client', () => {
  it('recognises constructing and importing an engine, not type imports', () => {
    expect(engineUses("import { LiteClient, LiteSingleEngine as E } from 'ton-lite-client';")).toEqual(['imports LiteClient', 'imports LiteSingleEngine']);
    expect(engineUses("import type { LiteClient } from 'ton-lite-client';\nimport { type LiteEngine } from 'ton-lite-client';")).toEqual([]);
    expect(engineUses('const e = new LiteRoundRobinEngine([a]);')).toEqual(['new LiteRoundRobinEngine']);
  });

  it('finds the client package itself opening the connections', () => {
    const inPackage = files.filter((f) => f.startsWith(CLIENT_PACKAGE) && engineUses(readFileSync(join(ROOT, f), 'utf8')).length > 0);
    expect(inPackage).toEqual([`${CLIENT_PACKAGE}connect.ts`]);
  });

  it('has no other product file construct a ton-lite-client engine or client', () => {
    const problems = files
      .filter((f) => !f.startsWith(CLIENT_PACKAGE))
      .flatMap((f) => engineUses(readFileSync(join(ROOT, f), 'utf8')).map((use) => `${f} ${use} (use @tonstream/lite-client)`));
    expect(problems).toEqual([]);
  });
});
