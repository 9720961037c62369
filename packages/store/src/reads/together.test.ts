import { describe, expect, it } from 'vitest';
import type { Store } from '../client.js';
import { type Part, readTogether } from './together.js';

/** A store answering every query with `rows`, recording the SQL and settings it was sent. */
function storeAnswering(rows: { part: string; part_key: string; part_values: string[] }[]) {
  const sent: { sql: string; settings: unknown }[] = [];
  const store = {
    database: 'db',
    query: async (sql: string, options?: { settings?: unknown }) => {
      sent.push({ sql, settings: options?.settings });
      return rows;
    },
  } as unknown as Store;
  return { store, sent };
}

const keys: Part<string[]> = { sql: 'SELECT 1', decode: (rows) => rows.map((r) => r.part_key) };

describe('readTogether()', () => {
  it('sends the parts with SQL as one UNION ALL with point-read settings and gives each part its own rows', async () => {
    const { store, sent } = storeAnswering([
      { part: 'a', part_key: 'x', part_values: [] },
      { part: 'b', part_key: 'y', part_values: ['1'] },
      { part: 'a', part_key: 'z', part_values: [] },
    ]);
    const got = await readTogether(store, { watermark: 1 }, {
      a: keys,
      b: { sql: 'SELECT 2', decode: async (rows) => rows.map((r) => Number(r.part_values[0])) },
      none: { sql: null, decode: (rows) => rows.length },
    });
    expect(got).toEqual({ a: ['x', 'z'], b: [1], none: 0 });
    expect(sent).toEqual([
      {
        sql: "SELECT 'a' AS part, part_key, part_values FROM (SELECT 1) UNION ALL SELECT 'b' AS part, part_key, part_values FROM (SELECT 2)",
        settings: { max_threads: 1, use_uncompressed_cache: 1 },
      },
    ]);
  });

  it('sends nothing when no part has SQL', async () => {
    const { store, sent } = storeAnswering([]);
    expect(await readTogether(store, { watermark: null }, { a: { ...keys, sql: null } })).toEqual({ a: [] });
    expect(sent).toEqual([]);
  });
});
