import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Guards the layout of docs/architecture.md: workspace dependencies form a DAG, packages import each
// other only through declared dependencies, and libraries take config and metrics as arguments.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

type Workspace = { name: string; dir: string; kind: 'packages' | 'services'; deps: Set<string>; imports: Map<string, string[]>; sources: string[] };

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts') && !path.includes('test-support') && !path.includes('/bench/')) out.push(path);
  }
  return out;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function workspaces(): Workspace[] {
  const out: Workspace[] = [];
  for (const kind of ['packages', 'services'] as const) {
    for (const n of listDir(join(ROOT, kind))) {
      const dir = join(ROOT, kind, n);
      let pkg: { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      try {
        pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      const sources = sourceFiles(join(dir, 'src'));
      const imports = new Map<string, string[]>();
      for (const file of sources) {
        for (const m of readFileSync(file, 'utf8').matchAll(/from '(@tonstream\/[a-z-]+)'/g)) {
          imports.set(m[1], [...(imports.get(m[1]) ?? []), file]);
        }
      }
      out.push({ name: pkg.name, dir, kind, deps: new Set(Object.keys(pkg.dependencies ?? {})), imports, sources });
    }
  }
  return out;
}

const all = workspaces();

describe('workspace architecture', () => {
  it('finds the packages', () => {
    expect(all.map((w) => w.name)).toEqual(expect.arrayContaining(['@tonstream/block', '@tonstream/runtime']));
  });

  it('imports other workspaces only through declared dependencies', () => {
    const problems: string[] = [];
    for (const w of all) {
      for (const [target, files] of w.imports) {
        if (target !== w.name && !w.deps.has(target)) problems.push(`${w.name} imports ${target} (${files[0]}) without declaring it`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('has no dependency cycle between workspaces', () => {
    const byName = new Map(all.map((w) => [w.name, w]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') {
        cycles.push([...path, name].join(' -> '));
        return;
      }
      state.set(name, 'visiting');
      for (const d of byName.get(name)?.deps ?? []) if (byName.has(d)) visit(d, [...path, name]);
      state.set(name, 'done');
    };
    for (const w of all) visit(w.name, []);
    expect(cycles).toEqual([]);
  });

  it('keeps services out of package dependencies', () => {
    const services = new Set(all.filter((w) => w.kind === 'services').map((w) => w.name));
    for (const w of all.filter((x) => x.kind === 'packages')) {
      expect([...w.deps].filter((d) => services.has(d)), w.name).toEqual([]);
    }
  });

  it('libraries neither read process.env nor import prom-client (runtime is the one place)', () => {
    const problems: string[] = [];
    for (const w of all.filter((x) => x.kind === 'packages' && x.name !== '@tonstream/runtime')) {
      for (const file of w.sources) {
        const text = readFileSync(file, 'utf8');
        if (/process\.env/.test(text)) problems.push(`${file} reads process.env`);
        if (/from 'prom-client'/.test(text)) problems.push(`${file} imports prom-client`);
      }
    }
    expect(problems).toEqual([]);
  });
});
