import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What code and READMEs cite lives in docs/ (docs/README.md): every `docs/<file>.md §N` names a file
 * there with a heading numbered N, and no citation points at the reference notes outside the
 * repository (`shared/reference/…`, a bare `toncenter-v3.md`).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['packages', 'services', 'test', 'scripts', 'deploy', 'README.md'];
const SKIP = new Set(['node_modules', 'dist', 'fixtures', '.local']);
const DOC_NAMES = 'toncenter-v3|toncenter-v2|streaming|traces-and-actions|liteserver-and-sandbox|local-infra|architecture';

function files(path: string): string[] {
  if (statSync(path).isFile()) return /\.(ts|md|sh|py|ya?ml)$/.test(path) ? [path] : [];
  return readdirSync(path).filter((n) => !SKIP.has(n)).flatMap((n) => files(join(path, n)));
}

/** Section numbers of a docs file: `## 2. Endpoints` -> 2, `### 2.8 Actions` -> 2.8. */
function sections(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  return new Set([...text.matchAll(/^#{2,6} +§?(\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]));
}

const sources = SCANNED.flatMap((p) => files(join(ROOT, p))).filter((f) => !f.endsWith('docs-citations.test.ts'));

describe('citations of docs/', () => {
  it('name a section that exists', () => {
    const known = new Map<string, Set<string>>();
    const missing: string[] = [];
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(new RegExp(`docs/(${DOC_NAMES})\\.md\`?\\)?[ ,]*§ ?(\\d+(?:\\.\\d+)*)`, 'g'))) {
        const doc = `${m[1]}.md`;
        if (!known.has(doc)) known.set(doc, sections(doc));
        if (!known.get(doc)!.has(m[2].replace(/\.$/, ''))) missing.push(`${relative(ROOT, file)}: docs/${doc} §${m[2]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('never point outside the repository', () => {
    const outside = new RegExp(`shared/(reference|ARCHITECTURE)|(?<![\\w/-])(${DOC_NAMES.replace('|architecture', '')})\\.md|ARCHITECTURE\\.md`);
    const found = sources.flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => [f, i, line] as const)).filter(([, , line]) => outside.test(line));
    expect(found.map(([f, i, line]) => `${relative(ROOT, f)}:${i + 1}: ${line.trim()}`)).toEqual([]);
  });
});
