import { Address, beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { bodyJson } from '../body-json.js';
import { isBody, readBody } from '../read-body.js';
import { changeDnsRecord, deleteDnsRecord } from './dns.js';

// DNS records built as TEP-81 lays them out (no mainnet fixture carries one).
const KEY = Buffer.alloc(32, 0xab);
const WALLET = Address.parse(`0:${'22'.repeat(32)}`);
const body = (value: ReturnType<typeof beginCell> | null) => {
  const b = beginCell().storeUint(0x4eb1f0f9, 32).storeUint(3, 64).storeBuffer(KEY);
  return (value ? b.storeRef(value.endCell()) : b).endCell();
};

describe('DNS change_dns_record', () => {
  it('reads and prints a wallet record (dns_smc_address with its capability list)', () => {
    // dns_smc_address#9fd3 smc_addr flags:1 cap_list: cap_is_wallet#2177, then cap_list_nil$0
    const record = beginCell().storeUint(0x9fd3, 16).storeAddress(WALLET).storeUint(1, 8).storeBit(true).storeUint(0x2177, 16).storeBit(false);
    const cell = body(record);
    const read = readBody(cell);
    if (!isBody(read, changeDnsRecord)) throw new Error(`read as ${read?.name}`);
    expect(read.value.key).toEqual(KEY);
    expect(read.value.value).toMatchObject({ type: 'dns_smc_address', flags: 1, cap_list: [{ type: 'cap_is_wallet' }] });
    expect(bodyJson(cell.toBoc())).toEqual({
      '@type': 'change_dns_record',
      query_id: '3',
      key: KEY.toString('hex').toUpperCase(),
      value: {
        '@type': 'dns_smc_address',
        smc_addr: { '@type': 'addr_std', anycast: { '@type': 'nothing_from_maybe' }, workchain_id: '0', address: '22'.repeat(32) },
        flags: '1',
        cap_list: { '@type': 'cap_list_next', item: { '@type': 'cap_is_wallet' }, next: { '@type': 'cap_list_nil' } },
      },
    });
  });

  it('leaves out a list whose flag is clear, and reads a text record over its chunks', () => {
    const adnl = beginCell().storeUint(0xad01, 16).storeBuffer(Buffer.alloc(32, 1)).storeUint(0, 8);
    expect((bodyJson(body(adnl).toBoc()) as { value: unknown }).value).toEqual({ '@type': 'dns_adnl_address', adnl_addr: '01'.repeat(32), flags: '0' });
    // dns_text#1eda, then Text: 2 chunks, "ab" inline and "c" in a ref.
    const text = beginCell().storeUint(0x1eda, 16).storeUint(2, 8).storeUint(2, 8).storeBuffer(Buffer.from('ab')).storeRef(beginCell().storeUint(1, 8).storeBuffer(Buffer.from('c')));
    const read = readBody(body(text));
    if (!isBody(read, changeDnsRecord)) throw new Error('not read');
    expect(read.value.value).toEqual({ type: 'dns_text', '': Buffer.from('abc') });
    expect((bodyJson(body(text).toBoc()) as { value: unknown }).value).toEqual({
      '@type': 'dns_text',
      '': { '@type': 'text', chunks: '2', rest: { '@type': 'text_chunk', len: '2', data: '6162', next: { '@type': 'chunk_ref', ref: { '@type': 'text_chunk', len: '1', data: '63', next: { '@type': 'chunk_ref_empty' } } } } },
    });
  });

  it('is delete_dns_record without a value ref, and refuses flags over 1', () => {
    expect(isBody(readBody(body(null)), deleteDnsRecord)).toBe(true);
    expect(bodyJson(body(null).toBoc())).toEqual({ '@type': 'delete_dns_record', query_id: '3', key: KEY.toString('hex').toUpperCase() });
    const bad = beginCell().storeUint(0xad01, 16).storeBuffer(Buffer.alloc(32, 1)).storeUint(2, 8);
    // The record does not fit, so the body reads as the delete (the value ref is not looked at).
    expect(readBody(body(bad))?.name).toBe('delete_dns_record');
  });
});
