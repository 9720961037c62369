import { describeAccount } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { WalletContractV4 } from '@ton/ton';
import { describe, expect, it } from 'vitest';
import { batchRows, recordBatch } from './rows.js';

const { code, data } = WalletContractV4.create({ workchain: 0, publicKey: Buffer.alloc(32, 3) }).init;
const base: AccountStateRecord = {
  account: '0:' + 'A1'.repeat(32),
  account_state_hash: 'B'.repeat(43) + '=',
  balance: '5',
  extra_currencies: {},
  status: 'active',
  frozen_hash: null,
  code_hash: code.hash().toString('base64'),
  data_hash: data.hash().toString('base64'),
  code_boc: code.toBoc().toString('base64'),
  data_boc: data.toBoc().toString('base64'),
  last_trans_lt: '100',
  last_trans_hash: 'C'.repeat(43) + '=',
  mc_block_seqno: 7,
  gen_utime: 1_700_000_000,
};

describe('batchRows() of account states', () => {
  it("stores a state's text without its contract facts (the decoder's), byte for byte the text of the state without them", () => {
    const state = { ...base, contract: describeAccount(base) };
    const rows = batchRows(recordBatch({ accountStates: [state] }));
    expect(rows.account_states[0].record).toBe(JSON.stringify(base));
    expect(rows.account_states_latest[0].record).toBe(JSON.stringify(base));
    // Text in another field order: serialized again, still without them.
    const reordered = { contract: state.contract, ...base };
    const batch = recordBatch({ accountStates: [reordered] });
    expect(batchRows(batch).account_states[0].record).toBe(JSON.stringify(base));
  });

  it('builds the token rows from the facts a state carries, not from its data', () => {
    const jetton = { balance: '12', owner: '0:' + '0'.repeat(64), jetton: '0:' + 'F'.repeat(64) };
    const state = { ...base, data_boc: null, contract: { interfaces: ['jetton_wallet'], methods: [1, 2], jetton_wallet: jetton } };
    const rows = batchRows(recordBatch({ accountStates: [state] }));
    expect(rows.jetton_wallets).toEqual([{ address: base.account, ...jetton, code_hash: base.code_hash, data_hash: base.data_hash, last_trans_lt: '100', mc_block_seqno: 7 }]);
    expect(rows.contract_interfaces).toEqual([{ code_hash: base.code_hash, interfaces: "['jetton_wallet']", methods: '[1,2]' }]);
  });

  it('derives the facts of a state without them (factsOf): a v4 wallet names its interface and methods, and has no token rows', () => {
    const rows = batchRows(recordBatch({ accountStates: [base] }));
    const facts = describeAccount(base);
    expect(facts.interfaces).toEqual(['wallet_v4r2']);
    expect(rows.contract_interfaces).toEqual([{ code_hash: base.code_hash, interfaces: "['wallet_v4r2']", methods: `[${facts.methods!.join(',')}]` }]);
    expect(rows.jetton_wallets).toEqual([]);
  });
});
