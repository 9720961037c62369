import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECEIPT_PARTITION_SEQNOS, RECORD_GRANULARITY } from '../schema.js';
import { balanceBucket } from '../token-schema.js';
import { MIGRATIONS } from './index.js';

/**
 * What each released migration runs (sha256 of its version, name and statements for database `db`,
 * first 16 hex digits). Versions 1-17 were taken from the statements the schema helpers generated before
 * the migrations were frozen into files. Never change a line: a new migration adds one.
 */
const RELEASED: Record<number, string> = {
  1: '839d0de7bedbc5d7',
  2: '671fae44e19c8a8c',
  3: '4dda389f0091c73b',
  4: 'f082b19da9b027a1',
  5: '58a559107c7cd8c5',
  6: 'a2f9a213fbbcabea',
  7: 'bfe7a22afade55b3',
  8: '3f06b26dc4060d43',
  9: '64f0ddc27bb37ac3',
  10: '033df2416220585f',
  11: '557827e1d32748c9',
  12: '235cdab5be167d2f',
  13: '9810ff4e718903b1',
  14: '8d647af5d508501c',
  15: '978d66ce1d895f32',
  16: '40c9197bdbf7c2f0',
  17: 'a5ef40b94b5e5a48',
  18: 'e73020bbde814d82',
  19: '2ff3363ce03f0504',
  20: 'bb4e25dc9b302ec8',
  21: 'c672ddcac8d57f8f',
  22: 'da08570c98189a4e',
};

const fingerprint = (m: (typeof MIGRATIONS)[number]) => createHash('sha256').update(JSON.stringify([m.version, m.name, m.statements('db')])).digest('hex').slice(0, 16);

const FILES = readdirSync(import.meta.dirname).filter((f) => /^\d{4}-[a-z0-9-]+\.ts$/.test(f)).sort();

describe('migrations', () => {
  it('are versions 1..N in order, with unique names, one file each named by its version', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(new Set(MIGRATIONS.map((m) => m.name)).size).toBe(MIGRATIONS.length);
    expect(FILES.map((f) => Number(f.slice(0, 4)))).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('import nothing but the Migration type, so nothing else can change what they run', () => {
    for (const file of FILES) {
      const imports = readFileSync(join(import.meta.dirname, file), 'utf8').split('\n').filter((line) => /^\s*(import|export .* from)\b/.test(line));
      expect(imports, file).toEqual(["import type { Migration } from './migration.js';"]);
    }
  });

  it('are never edited once released (a schema change is a new migration)', () => {
    for (const m of MIGRATIONS) {
      expect(fingerprint(m), `migration ${m.version}: a released migration changed, or a new one lacks its line in RELEASED (${m.version}: '${fingerprint(m)}')`).toBe(RELEASED[m.version]);
    }
  });

  it('name the database they are given and no other', () => {
    for (const m of MIGRATIONS) {
      for (const sql of m.statements('tonstream_a')) {
        expect(sql, `migration ${m.version}`).toMatch(/\btonstream_a\./);
        expect(sql.replace(/\btonstream_a\b/g, ''), `migration ${m.version}`).not.toMatch(/\btonstream\w*\./);
      }
    }
  });

  it('agree with the constants live code shares with the tables they made', () => {
    const sql = (version: number) => MIGRATIONS[version - 1].statements('db').join('\n');
    // Reads bound ranked pages by the bucket migration 11's views fill in.
    expect(sql(11)).toContain(`${balanceBucket('balance')} AS bucket`);
    expect(sql(11)).toContain(`${balanceBucket('toString(balance)')} AS bucket`);
    expect(sql(6)).toContain(`SETTINGS index_granularity = ${RECORD_GRANULARITY}`);
    // dropOldReceipts and the writer drop whole partitions of this many seqnos.
    for (const v of [2, 17]) expect(sql(v)).toContain(`PARTITION BY intDiv(mc_seqno, ${RECEIPT_PARTITION_SEQNOS})`);
  });
});
