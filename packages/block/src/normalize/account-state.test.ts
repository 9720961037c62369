import { beginCell, Cell, storeAccount, type Account } from '@ton/core';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { coreAccountState, localnetAccountStates } from '../test-support/localnet-fixtures.js';
import { accountStateRecord } from './account-state.js';

const ctx = { account: '0:' + 'AB'.repeat(32), lastTransLt: '5', lastTransHash: 'h', mcSeqno: 7, genUtime: 100 };

function accountBoc(state: Account['storage']['state']): Buffer {
  const account: Account = {
    addr: Address.parseRaw('0:' + 'ab'.repeat(32)),
    storageStats: { used: { cells: 1n, bits: 100n }, lastPaid: 1, duePayment: null, storageExtra: null },
    storage: { lastTransLt: 5n, balance: { coins: 123456789n }, state },
  };
  // @ton/core leaves the `account$1` tag to its ShardAccount writer.
  return beginCell().storeBit(1).store(storeAccount(account)).endCell().toBoc();
}

describe('accountStateRecord()', () => {
  it('reads an active account with code and data hashes, checked against @ton/core', () => {
    const code = beginCell().storeUint(0xc0de, 16).endCell();
    const data = beginCell().storeUint(42, 32).endCell();
    const boc = accountBoc({ type: 'active', state: { code, data } });
    const rec = accountStateRecord(boc, ctx);
    expect(rec).toMatchObject({ status: 'active', balance: '123456789', last_trans_lt: '5', mc_block_seqno: 7 });
    expect(rec.code_hash).toBe(code.hash().toString('base64'));
    expect(rec.data_hash).toBe(data.hash().toString('base64'));
    expect(Cell.fromBase64(rec.data_boc!).hash().equals(data.hash())).toBe(true);
    expect(rec.account_state_hash).toBe(Cell.fromBoc(boc)[0].hash().toString('base64'));
  });

  it('reads frozen, uninit and missing accounts', () => {
    const frozen = accountStateRecord(accountBoc({ type: 'frozen', stateHash: 7n }), ctx);
    expect(frozen.status).toBe('frozen');
    expect(Buffer.from(frozen.frozen_hash!, 'base64').toString('hex')).toBe('7'.padStart(64, '0'));
    expect(accountStateRecord(accountBoc({ type: 'uninit' }), ctx)).toMatchObject({ status: 'uninit', code_hash: null });
    const noneCell = beginCell().storeBit(0).endCell();
    expect(accountStateRecord(noneCell.toBoc(), ctx)).toMatchObject({ status: 'nonexist', balance: '0', account_state_hash: noneCell.hash().toString('base64') });
    // What a liteserver answers for an account that does not exist: no bytes at all.
    expect(accountStateRecord(new Uint8Array(0), ctx)).toEqual({
      ...accountStateRecord(noneCell.toBoc(), ctx),
      account_state_hash: noneCell.hash().toString('base64'),
    });
  });
});

describe('accountStateRecord() on liteserver answers from the local network (test/fixtures/localnet)', () => {
  const fixtures = localnetAccountStates();

  it('has one fixture per status, each with the status @ton/core reads from it', () => {
    expect(fixtures.map((f) => f.status).sort()).toEqual(['active', 'frozen', 'nonexist', 'uninit']);
    for (const f of fixtures) expect(coreAccountState(f.boc).status, f.file).toBe(f.status);
  });

  for (const f of fixtures) {
    it(`${f.file}: status, balance and hashes as @ton/core reads them; the context passes through`, () => {
      const context = { account: f.account, lastTransLt: f.lastTransLt, lastTransHash: f.lastTransHash, mcSeqno: 7, genUtime: 1_700_000_000 };
      const rec = accountStateRecord(f.boc, context);
      expect(rec).toMatchObject(coreAccountState(f.boc));
      expect(rec).toMatchObject({ account: f.account, last_trans_lt: f.lastTransLt, last_trans_hash: f.lastTransHash, mc_block_seqno: context.mcSeqno, gen_utime: context.genUtime, extra_currencies: {} });
      // The code and data BoCs are the cells whose hashes the record gives.
      expect(rec.code_boc && Cell.fromBase64(rec.code_boc).hash().toString('base64')).toBe(rec.code_hash);
      expect(rec.data_boc && Cell.fromBase64(rec.data_boc).hash().toString('base64')).toBe(rec.data_hash);
    });
  }
});
