import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderEndpointTables } from '../../services/api/src/readme-tables.js';

// The README's endpoint tables are the declarations rendered (services/api/src/readme-tables.ts).
// After changing an endpoint: UPDATE_README=1 npx vitest run --project unit test/unit/api-readme-tables.test.ts
const README = join(dirname(fileURLToPath(import.meta.url)), '../../services/api/README.md');

describe('services/api README endpoint tables', () => {
  const text = readFileSync(README, 'utf8');

  it('holds a generated table for v3 and for v2', () => {
    expect(text).toContain('<!-- endpoints:v3 -->');
    expect(text).toContain('<!-- endpoints:v2 -->');
  });

  it('matches the declarations (UPDATE_README=1 rewrites it)', () => {
    const rendered = renderEndpointTables(text);
    if (process.env.UPDATE_README === '1') writeFileSync(README, rendered);
    else expect(text, 'README endpoint tables drifted: run with UPDATE_README=1').toBe(rendered);
  });
});
