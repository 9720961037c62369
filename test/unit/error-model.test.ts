import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Guards the error model of packages/errors: every error class of product code extends TonstreamError
// (a stable code, retriable, cause), so services decide retry, dead-letter and status the same way.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BASE_PACKAGE = join(ROOT, 'packages/errors');

function productSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'test-support' || entry === 'bench') continue;
    if (statSync(path).isDirectory()) out.push(...productSources(path));
    else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts') && !entry.endsWith('.fixture.ts')) out.push(path);
  }
  return out;
}

const sources = ['packages', 'services'].flatMap((kind) =>
  readdirSync(join(ROOT, kind))
    .map((name) => join(ROOT, kind, name, 'src'))
    .filter((src) => statSync(src, { throwIfNoEntry: false })?.isDirectory() && !src.startsWith(BASE_PACKAGE))
    .flatMap(productSources),
);

describe('error model', () => {
  it('finds the product sources', () => {
    expect(sources.length).toBeGreaterThan(100);
  });

  it('has no error class extending Error directly outside packages/errors', () => {
    const direct = sources.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/class (\w+) extends Error\b/g)].map((m) => `${relative(ROOT, file)}: ${m[1]}`),
    );
    expect(direct).toEqual([]);
  });

  it("lets bugs through the classifier's matchers: no bare catch reads a TypeError as \"no match\"", () => {
    const bare = sources
      .filter((file) => relative(ROOT, file).startsWith('packages/actions/src/matchers/') || relative(ROOT, file) === 'packages/actions/src/matcher.ts')
      .flatMap((file) => (/catch \{/.test(readFileSync(file, 'utf8')) ? [relative(ROOT, file)] : []));
    expect(bare).toEqual([]);
  });
});

