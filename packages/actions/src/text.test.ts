import { beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeText, readComment } from './text.js';

describe('decodeText()', () => {
  it('writes invalid UTF-8 bytes as \\xNN like Python backslashreplace and drops NULs', () => {
    expect(decodeText(Buffer.from([0x68, 0x69, 0xff, 0x00, 0xd0, 0x9f]))).toBe('hi\\xffП');
    expect(decodeText(Buffer.from([0xe2, 0x82]))).toBe('\\xe2\\x82');
  });

  it('decodes valid UTF-8 of 1 to 4 bytes a character as it is, NULs dropped', () => {
    expect(decodeText(Buffer.from('Gift: 5 TON ✓ для тебя 😀\u0000!', 'utf8'))).toBe('Gift: 5 TON ✓ для тебя 😀!');
    expect(decodeText(Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x41]))).toBe('😀A');
    expect(decodeText(Buffer.alloc(0))).toBe('');
  });
});

describe('readComment()', () => {
  it('reads a text comment continued in a ref chain', () => {
    const tail = beginCell().storeStringTail(' world').endCell();
    const body = beginCell().storeUint(0, 32).storeBuffer(Buffer.from('hello')).storeRef(tail).endCell();
    expect(readComment(body)).toEqual({ text: 'hello world', encrypted: false });
  });

  it('gives an encrypted comment as base64 of the bytes after the opcode', () => {
    const body = beginCell().storeUint(0x2167da4b, 32).storeBuffer(Buffer.from([1, 2, 3])).endCell();
    expect(readComment(body)).toEqual({ text: 'AQID', encrypted: true });
  });

  it('has no comment for other opcodes, partial bytes or several refs', () => {
    expect(readComment(beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 8).endCell())).toBeNull();
    expect(readComment(beginCell().storeUint(0, 32).storeUint(1, 4).endCell())).toBeNull();
    const ref = beginCell().endCell();
    expect(readComment(beginCell().storeUint(0, 32).storeUint(65, 8).storeRef(ref).storeRef(ref).endCell())).toBeNull();
  });
});
