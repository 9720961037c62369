import { describe, expect, it } from 'vitest';
import { partitionForKey } from './partition.js';
import { bundleByPartition, bundleLines } from './record-bundle.js';

describe('record bundles', () => {
  const records = Array.from({ length: 40 }, (_, i) => ({ key: `0:${i.toString(16).padStart(64, '0')}`, json: JSON.stringify({ n: i, text: 'a\nb' }) }));

  it('groups records by their key partition, in order, and reads back to the same JSON texts', () => {
    const bundles = bundleByPartition(records, 4);
    expect(bundles.length).toBeGreaterThan(1);
    expect(bundles.reduce((n, b) => n + bundleLines(b.value).length, 0)).toBe(40);
    for (const b of bundles) {
      const lines = bundleLines(Buffer.from(b.value));
      const mine = records.filter((r) => partitionForKey(r.key, 4) === b.partition);
      expect(lines).toEqual(mine.map((r) => r.json));
      expect(lines.map((l) => JSON.parse(l).text)).toEqual(mine.map(() => 'a\nb'));
    }
  });

  it('reads a single record (the pre-bundle format) as a bundle of one, and skips blank lines', () => {
    expect(bundleLines(Buffer.from('{"a":1}'))).toEqual(['{"a":1}']);
    expect(bundleLines('{"a":1}\n{"b":2}\n')).toEqual(['{"a":1}', '{"b":2}']);
    expect(bundleByPartition([], 4)).toEqual([]);
  });
});
