import { Address } from '@ton/core';
import { WalletContractV1R1, WalletContractV1R2, WalletContractV1R3, WalletContractV2R1, WalletContractV2R2, WalletContractV3R1, WalletContractV3R2, WalletContractV4, WalletContractV5Beta, WalletContractV5R1 } from '@ton/ton';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../services/api/src/http/http-error.js';
import { addressBookRow } from '../../services/api/src/v3/address-book.js';
import { WALLET_TYPES } from '../../services/api/src/chain/wallets.js';
import { friendlyAddress, parseAddress, rawAddress } from '../../services/api/src/chain/address.js';
import * as kinds from '../../services/api/src/http/kinds.js';
import { limit, list, offset, optional, required, sort } from '../../services/api/src/http/params.js';
import { parseRequest } from '../../services/api/src/v3/request.js';

// Expected values come from @ton/core (an independent implementation), never from our parser.
const RAW = '0:ca6e321c7cce9eeca60d7fdd1a1a9a0de63a2dc3ac4f2a9ad38e16e4d3be4d0a';
const core = Address.parseRaw(RAW);
const NORMAL = `0:${core.hash.toString('hex').toUpperCase()}`;
const MASTER = Address.parseRaw('-1:' + '3'.repeat(64));

function fails(f: () => unknown, name: string): void {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(422);
    expect((err as HttpError).message).toContain(name);
    return;
  }
  throw new Error('expected a 422');
}

describe('address kind', () => {
  const forms: [string, string][] = [
    ['raw lower case', RAW],
    ['raw upper case', RAW.toUpperCase()],
    ['bounceable url-safe', core.toString({ bounceable: true, urlSafe: true })],
    ['non-bounceable url-safe', core.toString({ bounceable: false, urlSafe: true })],
    ['bounceable standard base64', core.toString({ bounceable: true, urlSafe: false })],
    ['test-only bounceable', core.toString({ bounceable: true, testOnly: true })],
    ['test-only non-bounceable', core.toString({ bounceable: false, testOnly: true })],
  ];
  it.each(forms)('parseAddress() reads %s into the raw upper-case form', (_label, text) => {
    expect(kinds.address.parse(text)).toBe(NORMAL);
  });

  it('reads masterchain addresses in every form with workchain -1', () => {
    for (const text of [MASTER.toRawString(), MASTER.toString(), MASTER.toString({ urlSafe: false, bounceable: false })]) {
      expect(kinds.address.parse(text)).toBe(`-1:${'3'.repeat(64)}`);
    }
  });

  it('refuses garbage, a broken checksum, bad flags and wrong lengths', () => {
    const good = core.toString();
    const flipped = good.slice(0, 47) + (good[47] === 'A' ? 'B' : 'A');
    const badFlag = Buffer.from(good, 'base64url');
    badFlag[0] = 0x22;
    for (const text of ['', 'garbage', flipped, badFlag.toString('base64url'), good.slice(1), RAW.slice(0, -1), `0:${'g'.repeat(64)}`, `300:${'a'.repeat(64)}`, "0:' OR 1=1 --", 'a\u0000b', '\ud800', 'x'.repeat(10_000)]) {
      expect(kinds.address.parse(text), JSON.stringify(text.slice(0, 20))).toBeUndefined();
    }
  });

  it('friendlyAddress() writes what @ton/core writes (bounceable, non-bounceable, test-only)', () => {
    const a = parseAddress(RAW)!;
    for (const bounceable of [true, false]) {
      for (const testOnly of [true, false]) expect(friendlyAddress(a, { bounceable, testOnly })).toBe(core.toString({ bounceable, testOnly, urlSafe: true }));
    }
    expect(rawAddress(parseAddress(MASTER.toString())!)).toBe(MASTER.toRawString().toUpperCase().replace('-1:', '-1:'));
  });

  it('address book rows: wallets and code-less accounts non-bounceable, other contracts bounceable', () => {
    const v4 = WalletContractV4.create({ workchain: 0, publicKey: Buffer.alloc(32) }).init.code.hash().toString('base64');
    expect(addressBookRow(NORMAL, v4, false).user_friendly).toBe(core.toString({ bounceable: false }));
    expect(addressBookRow(NORMAL, null, false).user_friendly).toBe(core.toString({ bounceable: false }));
    expect(addressBookRow(NORMAL, Buffer.alloc(32, 7).toString('base64'), false)).toEqual({ user_friendly: core.toString({ bounceable: true }), domain: null, interfaces: [] });
    expect(addressBookRow(NORMAL, null, true).user_friendly).toBe(core.toString({ bounceable: false, testOnly: true }));
  });

  it('the wallet codes the address book shows non-bounceable (WALLET_TYPES) are the code hashes of the @ton/ton wallet contracts', () => {
    const pk = Buffer.alloc(32);
    const contracts = [WalletContractV1R1, WalletContractV1R2, WalletContractV1R3, WalletContractV2R1, WalletContractV2R2, WalletContractV3R1, WalletContractV3R2, WalletContractV4, WalletContractV5Beta];
    const hashes = contracts.map((c) => c.create({ workchain: 0, publicKey: pk }).init.code.hash().toString('base64'));
    hashes.push(WalletContractV5R1.create({ workchain: 0, publicKey: pk }).init.code.hash().toString('base64'));
    expect(new Set(hashes)).toEqual(new Set(WALLET_TYPES.keys()));
  });
});

describe('hash kind', () => {
  const bytes = Buffer.from('d928e8afd56d6258ed23f047a24d827dec9ace3e81b7f3ff101821de618e3843', 'hex');
  const b64 = '2Sjor9VtYljtI/BHok2Cfeyazj6Bt/P/EBgh3mGOOEM='; // transactions.json hash_base64 of the same hex
  it.each([
    ['hex lower', bytes.toString('hex')],
    ['hex upper', bytes.toString('hex').toUpperCase()],
    ['0x hex', '0x' + bytes.toString('hex')],
    ['base64', bytes.toString('base64')],
    ['base64url padded', bytes.toString('base64url') + '='],
    ['base64url unpadded', bytes.toString('base64url')],
  ])('reads %s into standard base64', (_label, text) => {
    expect(kinds.hash.parse(text)).toBe(b64);
  });
  it('refuses other lengths and alphabets', () => {
    for (const text of ['', 'ab', bytes.toString('hex').slice(1), '0x' + bytes.toString('hex') + '00', Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64'), b64.replace('/', '*'), "'; DROP TABLE x; --"]) {
      expect(kinds.hash.parse(text)).toBeUndefined();
    }
  });
});

describe('shard, integers, bools, sort', () => {
  it('shard: hex first, then signed decimal, to the unsigned 64-bit value', () => {
    expect(kinds.shard.parse('8000000000000000')).toBe(2n ** 63n);
    expect(kinds.shard.parse('0x8000000000000000')).toBe(2n ** 63n);
    expect(kinds.shard.parse('-9223372036854775808')).toBe(2n ** 63n);
    expect(kinds.shard.parse('a000000000000000')).toBe(0xa000000000000000n);
    expect(kinds.shard.parse('-6917529027641081856')).toBe(0xa000000000000000n);
    expect(kinds.shard.parse('123')).toBe(0x123n); // valid hex wins, as toncenter reads it
    expect(kinds.shard.parse('80000000000000000')).toBe(80000000000000000n); // 17 digits: not hex, so decimal
    for (const bad of ['', 'xyz', '8000000000000000000000', '-9223372036854775809', '1.5']) expect(kinds.shard.parse(bad)).toBeUndefined();
  });
  it('int32, utime and uint64 bounds', () => {
    expect(kinds.int32.parse('-2147483648')).toBe(-(2 ** 31));
    expect(kinds.int32.parse('+7')).toBe(7);
    expect(kinds.int32.parse('2147483648')).toBeUndefined();
    expect(kinds.int32.parse('1e3')).toBeUndefined();
    expect(kinds.utime.parse('1700000000.9')).toBe(1700000000);
    expect(kinds.utime.parse('-1')).toBeUndefined();
    expect(kinds.uint64.parse('18446744073709551615')).toBe(2n ** 64n - 1n);
    expect(kinds.uint64.parse('18446744073709551616')).toBeUndefined();
  });
  it('bool: exactly Go strconv.ParseBool forms', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(kinds.bool.parse(t)).toBe(true);
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(kinds.bool.parse(f)).toBe(false);
    for (const bad of ['yes', 'tRUE', '2', ' true']) expect(kinds.bool.parse(bad)).toBeUndefined();
  });
  it('sort: asc/desc/a/d in any case', () => {
    expect(['asc', 'A', 'ASC', 'a'].map((t) => kinds.sort.parse(t))).toEqual(['asc', 'asc', 'asc', 'asc']);
    expect(['desc', 'D', 'Desc'].map((t) => kinds.sort.parse(t))).toEqual(['desc', 'desc', 'desc']);
    expect(kinds.sort.parse('up')).toBeUndefined();
  });
});

describe('parseRequest()', () => {
  const decl = {
    seqno: required(kinds.int32, 'seqno'),
    account: list(kinds.address, 'accounts'),
    workchain: optional(kinds.int32, 'wc'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
  };
  const parse = (query: string, headers: Record<string, string> = {}, strict = false) => parseRequest(decl, new URLSearchParams(query), headers, strict);

  it('applies defaults, repeated keys and empty-as-absent', () => {
    const { params, settings } = parse(`seqno=5&account=${RAW}&account=${core.toString()}&workchain=&limit=`);
    expect(params).toEqual({ seqno: 5, account: [NORMAL, NORMAL], workchain: undefined, limit: 10, offset: 0, sort: 'desc' });
    expect(settings).toEqual({ timeoutMs: 3000, noAddressBook: false });
  });
  it('limit: below 1 becomes 1, above 1000 is an error naming limit; negative offset becomes 0', () => {
    expect(parse('seqno=1&limit=0&offset=-5').params).toMatchObject({ limit: 1, offset: 0 });
    expect(parse('seqno=1&limit=1000').params.limit).toBe(1000);
    fails(() => parse('seqno=1&limit=1001'), 'limit');
    fails(() => parse('seqno=1&limit=ten'), 'limit');
  });
  it('errors name the parameter: missing, malformed, hostile values', () => {
    fails(() => parse(''), 'seqno');
    fails(() => parse('seqno=1&account=nope'), 'account');
    fails(() => parse(`seqno=1&account=${encodeURIComponent("0:' OR 1=1")}`), 'account');
    fails(() => parse('seqno=1&sort=sideways'), 'sort');
    fails(() => parse(`seqno=${'9'.repeat(10_000)}`), 'seqno');
    fails(() => parse('seqno=%00'), 'seqno');
    fails(() => parse('seqno=1&x_timeout=soon'), 'x_timeout');
  });
  it('a long bad value is echoed cut short', () => {
    try {
      parse(`seqno=1&account=${'x'.repeat(10_000)}`);
    } catch (err) {
      expect((err as Error).message.length).toBeLessThan(300);
      return;
    }
    throw new Error('expected a 422');
  });
  it('unknown keys are ignored unless strict, which names them', () => {
    expect(parse('seqno=1&owner_id=2').params.seqno).toBe(1);
    fails(() => parse('seqno=1&owner_id=2', {}, true), 'owner_id');
    expect(parse('seqno=1&x_timeout=100&api_key=k', {}, true).settings.timeoutMs).toBe(100);
  });
  it('settings: header wins over query, timeout capped at 3000 ms', () => {
    expect(parse('seqno=1&x_timeout=100', { 'x-timeout': '200' }).settings.timeoutMs).toBe(200);
    expect(parse('seqno=1&x_timeout=60000').settings.timeoutMs).toBe(3000);
    expect(parse('seqno=1', { 'x-no-address-book': 'true' }).settings.noAddressBook).toBe(true);
    expect(parse('seqno=1&x_no_address_book=1').settings.noAddressBook).toBe(true);
    fails(() => parse('seqno=1', { 'x-no-address-book': 'maybe' }), 'X-No-Address-Book');
  });
});
