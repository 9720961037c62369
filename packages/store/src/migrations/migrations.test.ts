import { describe, expect, it } from 'vitest';
import { MIGRATIONS as GENERATED } from '../schema.js';
import { MIGRATIONS } from './index.js';

describe('frozen migration files', () => {
  it('produce byte for byte the statements the schema helpers generate', () => {
    expect(MIGRATIONS.map((m) => [m.version, m.name])).toEqual(GENERATED.map((m) => [m.version, m.name]));
    for (const db of ['tonstream', 'tonstream_test_0a1b2c3d']) {
      for (const [i, m] of MIGRATIONS.entries()) expect(m.statements(db), `migration ${m.version} on ${db}`).toEqual(GENERATED[i].statements(db));
    }
  });
});
