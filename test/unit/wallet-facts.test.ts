import { beginCell, type Cell } from '@ton/core';
import {
  WalletContractV1R1, WalletContractV1R2, WalletContractV1R3, WalletContractV2R1, WalletContractV2R2, WalletContractV3R1, WalletContractV3R2,
  WalletContractV4, WalletContractV5Beta, WalletContractV5R1,
} from '@ton/ton';
import { describe, expect, it } from 'vitest';
import { describeAccount, WALLET_TYPES, type WalletType, walletType } from '@tonstream/contracts';

const publicKey = Buffer.alloc(32, 7);
const args = { workchain: 0, publicKey };
const CONTRACTS = [
  ['wallet v1 r1', WalletContractV1R1.create(args)],
  ['wallet v1 r2', WalletContractV1R2.create(args)],
  ['wallet v1 r3', WalletContractV1R3.create(args)],
  ['wallet v2 r1', WalletContractV2R1.create(args)],
  ['wallet v2 r2', WalletContractV2R2.create(args)],
  ['wallet v3 r1', WalletContractV3R1.create({ ...args, walletId: 12345 })],
  ['wallet v3 r2', WalletContractV3R2.create({ ...args, walletId: 4000000000 })],
  ['wallet v4 r2', WalletContractV4.create(args)],
  ['wallet v5 beta', WalletContractV5Beta.create({ publicKey })],
  ['wallet v5 r1', WalletContractV5R1.create({ publicKey })],
] as const;
const b64 = (c: Cell) => c.toBoc().toString('base64');
const codeHashOf = (type: WalletType) => [...WALLET_TYPES].find(([, t]) => t === type)![0];

/** The wallet facts of an active account with a `type` wallet's code and this data, less the type. */
function parseWalletData(type: WalletType, dataBoc: string | null) {
  const { type: read, ...data } = describeAccount({ status: 'active', code_hash: codeHashOf(type), code_boc: null, data_boc: dataBoc }).wallet!;
  expect(read).toBe(type);
  return data;
}

describe('wallet detection by code hash', () => {
  it('knows exactly the codes @ton/ton deploys, under toncenter names', () => {
    for (const [name, w] of CONTRACTS) expect(walletType(w.init.code.hash().toString('base64')), name).toBe(name);
    expect(WALLET_TYPES.size).toBe(CONTRACTS.length);
    expect([...WALLET_TYPES.keys()].sort()).toEqual(CONTRACTS.map(([, w]) => w.init.code.hash().toString('base64')).sort());
    expect(walletType(null)).toBeUndefined();
    expect(walletType(beginCell().storeUint(1, 8).endCell().hash().toString('base64'))).toBeUndefined();
  });
});

describe('wallet facts (describeAccount)', () => {
  it('reads seqno (and wallet_id where the layout has one) from the init data', () => {
    for (const [name, w] of CONTRACTS.slice(0, 5)) expect(parseWalletData(name, b64(w.init.data)), name).toEqual({ seqno: 0 });
    expect(parseWalletData('wallet v3 r1', b64(CONTRACTS[5][1].init.data))).toEqual({ seqno: 0, wallet_id: 12345 });
    expect(parseWalletData('wallet v3 r2', b64(CONTRACTS[6][1].init.data))).toEqual({ seqno: 0, wallet_id: 4000000000 });
    // @ton/ton's v4 default: 698983191 + workchain.
    expect(parseWalletData('wallet v4 r2', b64(CONTRACTS[7][1].init.data))).toEqual({ seqno: 0, wallet_id: 698983191 });
    // v5 r1 mainnet client id: networkGlobalId (-239) XOR context (bit 31, workchain 0, version 0, subwallet 0).
    expect(parseWalletData('wallet v5 r1', b64(CONTRACTS[9][1].init.data))).toEqual({ seqno: 0, wallet_id: ((-239 ^ 0x80000000) >>> 0), is_signature_allowed: true });
    expect((-239 ^ 0x80000000) >>> 0).toBe(2147483409);
    expect(parseWalletData('wallet v5 beta', b64(CONTRACTS[8][1].init.data))).toEqual({});
  });

  it('reads a used wallet: seqno, and v5 r1 with signatures disabled', () => {
    const v4 = beginCell().storeUint(42, 32).storeUint(7, 32).storeBuffer(publicKey).storeBit(0).endCell();
    expect(parseWalletData('wallet v4 r2', b64(v4))).toEqual({ seqno: 42, wallet_id: 7 });
    const v5 = beginCell().storeBit(0).storeUint(0xffffffff, 32).storeUint(0x80000001, 32).storeBuffer(publicKey).storeBit(0).endCell();
    expect(parseWalletData('wallet v5 r1', b64(v5))).toEqual({ seqno: 0xffffffff, wallet_id: 0x80000001, is_signature_allowed: false });
  });

  it('answers nothing it cannot read: no data, short data, not a BoC', () => {
    expect(parseWalletData('wallet v4 r2', null)).toEqual({});
    expect(parseWalletData('wallet v4 r2', b64(beginCell().storeUint(1, 40).endCell()))).toEqual({});
    expect(parseWalletData('wallet v1 r3', b64(beginCell().storeUint(1, 8).endCell()))).toEqual({});
    expect(parseWalletData('wallet v5 r1', 'bm90IGEgYm9j')).toEqual({});
  });
});
