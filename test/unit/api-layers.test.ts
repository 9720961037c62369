import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Guards the layers of services/api/src (its README, Layout): chain/ (liteserver reads, stacks,
// messages) under http/ (parameters, bodies, errors) under the two API versions v2/ and v3/, which
// never import each other. Tests beside the code count too.
const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../services/api/src');
const LAYERS = ['chain', 'http', 'v2', 'v3'] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may import (besides packages): itself and the layers below it. */
const MAY_IMPORT: Record<Layer, readonly string[]> = {
  chain: ['chain'],
  http: ['http', 'chain'],
  v2: ['v2', 'http', 'chain', 'wiring'],
  v3: ['v3', 'http', 'chain', 'wiring'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? files(path) : entry.endsWith('.ts') ? [path] : [];
  });
}

/** chain, http, v2, v3, or `wiring` for the service's own modules at the top (app, index state, status, limits). */
const layerOf = (path: string): string => {
  const top = relative(SRC, path).split('/')[0];
  return (LAYERS as readonly string[]).includes(top) ? top : 'wiring';
};

/** Every relative import of a file (static, type-only, re-exports, dynamic) as [specifier, resolved path]. */
function imports(file: string): [string, string][] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\(|import)\s*'(\.{1,2}\/[^']+)'/g)].map((m) => [m[1], resolve(dirname(file), m[1])]);
}

const edges = LAYERS.flatMap((layer) => files(join(SRC, layer)).flatMap((file) => imports(file).map(([spec, target]) => ({ file: relative(SRC, file), spec, from: layer, to: layerOf(target) }))));

describe('services/api layers', () => {
  it('reads the imports of every layer', () => {
    for (const [from, to] of [['v3', 'http'], ['v2', 'chain'], ['http', 'chain'], ['v3', 'v3']]) {
      expect(edges.some((e) => e.from === from && e.to === to), `${from} -> ${to}`).toBe(true);
    }
  });

  it('v2 and v3 never import each other; chain and http never import upward', () => {
    const wrong = edges.filter((e) => !MAY_IMPORT[e.from as Layer].includes(e.to)).map((e) => `${e.file} imports ${e.spec} (${e.from} -> ${e.to})`);
    expect(wrong).toEqual([]);
  });
});
