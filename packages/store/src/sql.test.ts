import { describe, expect, it } from 'vitest';
import { accountLtList, ident, int32, SqlValueError, str, strArray, strList, uint } from './sql.js';

describe('SQL literals', () => {
  it('escapes quotes, backslashes and NUL in strings', () => {
    expect(str(`a'b\\c\0`)).toBe(`'a\\'b\\\\c\\0'`);
    expect(strList(['x', "y'"])).toBe(`('x', 'y\\'')`);
    expect(strArray(['x', "y'"])).toBe(`['x', 'y\\'']`);
  });

  it('accepts only UInt64 values as unsigned integers', () => {
    expect(uint(0)).toBe('0');
    expect(uint(18446744073709551615n)).toBe('18446744073709551615');
    expect(uint('76734069000021')).toBe('76734069000021');
    for (const bad of [-1, 1.5, '1 OR 1=1', '18446744073709551616', '', '0x10']) expect(() => uint(bad)).toThrow(SqlValueError);
  });

  it('lists (account, lt) keys once each, escaped, and refuses an empty list', () => {
    expect(accountLtList([{ account: "0:A'B", lt: '5' }, { account: '0:C', lt: '18446744073709551615' }, { account: "0:A'B", lt: '5' }])).toBe("(('0:A\\'B', 5), ('0:C', 18446744073709551615))");
    expect(() => accountLtList([{ account: '0:A', lt: '-1' }])).toThrow(SqlValueError);
    expect(() => accountLtList([])).toThrow(SqlValueError);
  });

  it('bounds Int32 and identifiers', () => {
    expect(int32(-1)).toBe('-1');
    expect(() => int32(2 ** 31)).toThrow(SqlValueError);
    expect(ident('tonstream_1')).toBe('tonstream_1');
    for (const bad of ['a-b', 'x; DROP', '', '1abc', 'a'.repeat(64)]) expect(() => ident(bad)).toThrow(SqlValueError);
    expect(() => strList([])).toThrow(/empty IN list/);
    expect(() => strArray([])).toThrow(SqlValueError);
  });
});
