import { describe, expect, it } from 'vitest';
import { message } from './layout.js';
import { layoutsFor, MESSAGE_LAYOUTS, opcodeName } from './table.js';
import { bigUint } from './tlb/primitives.js';

describe('the message table', () => {
  it('names each layout as a TL-B constructor name', () => {
    for (const l of MESSAGE_LAYOUTS) expect(l.name).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('shares an opcode only between a layout and its fallback readings, tried in scheme order', () => {
    const shared = [...new Set(MESSAGE_LAYOUTS.map((l) => l.opcode))].filter((op) => layoutsFor(op).length > 1);
    expect(Object.fromEntries(shared.map((op) => [op.toString(16), layoutsFor(op).map((l) => l.name)]))).toEqual({
      '178d4519': ['jetton_internal_transfer', 'jetton_internal_transfer'],
      '4eb1f0f9': ['change_dns_record', 'delete_dns_record'],
      '299a3e15': ['teleitem_msg_deploy', 'teleitem_msg_deploy_head'],
    });
    expect(opcodeName(0x4eb1f0f9)).toBe('change_dns_record');
  });

  it('takes opcodes as unsigned or signed 32-bit numbers alike', () => {
    expect(opcodeName(-1)).toBe('bounce');
    expect(opcodeName(0xffffffff)).toBe('bounce');
  });

  it('refuses a layout that could not be read back', () => {
    expect(() => message('x', 2 ** 32, {})).toThrow(/not 32-bit/);
    expect(() => message('x', 1, { type: bigUint(8) })).toThrow(/"type"/);
  });
});
