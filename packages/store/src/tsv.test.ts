import { describe, expect, it } from 'vitest';
import { toTsv, tsvArray, tsvField } from './tsv.js';

describe('TabSeparated encoding', () => {
  it('escapes only what TabSeparated needs', () => {
    expect(tsvField('{"a":"b\\\\c"}')).toBe('{"a":"b\\\\\\\\c"}');
    expect(tsvField('a\tb\nc\rd\0e')).toBe('a\\tb\\nc\\rd\\0e');
    expect(tsvField('plain 0:ABC +/=')).toBe('plain 0:ABC +/=');
    expect(tsvField(-5)).toBe('-5');
    expect(() => tsvField(Number.NaN)).toThrow(/finite/);
  });

  it('writes arrays as ClickHouse literals: strings quoted with quote and backslash escaped, numbers bare', () => {
    expect(tsvArray(["a'b", 'c\\d', ''])).toBe("['a\\'b','c\\\\d','']");
    expect(tsvArray([1, 65535])).toBe('[1,65535]');
    expect(tsvArray([])).toBe('[]');
  });

  it('writes rows in column order and refuses a missing column', () => {
    expect(toTsv([{ b: 2, a: 'x' }, { a: 'y', b: '18446744073709551615' }], ['a', 'b'])).toBe('x\t2\ny\t18446744073709551615\n');
    expect(() => toTsv([{ a: 'x' }], ['a', 'b'])).toThrow(/lacks column b/);
  });
});
