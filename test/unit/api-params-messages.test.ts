import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import * as kinds from '../../services/api/src/http/kinds.js';

// Expected values are written out or come from @ton/core, never from the parsers under test.
describe('opcode kind (toncenter OpcodeType: hex first, then signed 32-bit decimal)', () => {
  it.each([
    ['0x0f8a7ea5', 0x0f8a7ea5],
    ['0X0F8A7EA5', 0x0f8a7ea5],
    ['f8a7ea5', 0x0f8a7ea5],
    ['ffffffff', 0xffffffff],
    ['10', 0x10], // valid hex is read as hex, as toncenter does
    ['0', 0],
    ['-1', 0xffffffff],
    ['-2147483648', 0x80000000],
    ['+5', 5],
    ['123456789', 123456789], // 9 digits: not hex, so decimal
  ])('%s -> %d', (text, want) => {
    expect(kinds.opcode.parse(text)).toBe(want);
  });
  it.each(['', '0x', '0x123456789', '2147483648', '-2147483649', 'xyz', '0xg1', '1.5', ' 1'])('refuses %j', (text) => {
    expect(kinds.opcode.parse(text)).toBeUndefined();
  });
});

describe('addressNullable kind', () => {
  const a = Address.parseRaw('0:' + 'ab'.repeat(32));
  it('reads null as null and addresses as raw upper case', () => {
    expect(kinds.addressNullable.parse('null')).toBeNull();
    expect(kinds.addressNullable.parse(a.toString({ bounceable: false }))).toBe(a.toRawString().toUpperCase());
    expect(kinds.addressNullable.parse(a.toRawString())).toBe(a.toRawString().toUpperCase());
  });
  it.each(['NULL', 'Null', 'nil', '', '0:zz'])('refuses %j', (text) => {
    expect(kinds.addressNullable.parse(text)).toBeUndefined();
  });
});

describe('direction kind', () => {
  it('takes in and out only', () => {
    expect(kinds.direction.parse('in')).toBe('in');
    expect(kinds.direction.parse('out')).toBe('out');
    for (const t of ['IN', 'both', '', 'o']) expect(kinds.direction.parse(t)).toBeUndefined();
  });
});
