import { beginCell, type Cell } from '@ton/core';
import { MultisigWallet, WalletContractV4 } from '@ton/ton';
import type { AccountStateRecord, BlockRecord, TransactionRow } from '@tonstream/records';
import { detectInterfaces } from '@tonstream/contracts';
import { accountStateKey, type AccountStateSummary } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { addressBookInterfaces } from '../../packages/store/src/reads/address-facts.js';
import { toAccountStateFull } from '../../services/api/src/v3/accounts/accounts.js';
import { toV3Block } from '../../services/api/src/v3/blocks/objects.js';
import { toV3Transaction } from '../../services/api/src/v3/transactions/objects.js';
import { SCHEMAS } from '../../services/api/src/v3/components.js';

/**
 * v3 objects against toncenter's own model (ton-index-go `models`, docs/toncenter-v3.md §3), with the
 * cells, hashes and dictionaries built by @ton/core and @ton/ton.
 */

/** ton-index-go's `Block`, in its field order: no `mc_block_seqno`. */
const TONCENTER_BLOCK_FIELDS = [
  'workchain', 'shard', 'seqno', 'root_hash', 'file_hash', 'global_id', 'version', 'after_merge', 'before_split', 'after_split',
  'want_merge', 'want_split', 'key_block', 'vert_seqno_incr', 'flags', 'gen_utime', 'start_lt', 'end_lt', 'validator_list_hash_short',
  'gen_catchain_seqno', 'min_ref_mc_seqno', 'prev_key_block_seqno', 'vert_seqno', 'master_ref_seqno', 'rand_seed', 'created_by',
  'tx_count', 'masterchain_block_ref', 'prev_blocks',
];

const id = { workchain: 0, shard: '8000000000000000', seqno: 7 };
const block: BlockRecord = {
  ...id, root_hash: 'r', file_hash: 'f', mc_block_seqno: 5, global_id: -239, version: 0, after_merge: false, before_split: false, after_split: false,
  want_merge: false, want_split: false, key_block: false, vert_seqno_incr: false, flags: 1, gen_utime: '1700000000', start_lt: '1', end_lt: '2',
  validator_list_hash_short: 0, gen_catchain_seqno: 0, min_ref_mc_seqno: 0, prev_key_block_seqno: 0, vert_seqno: 0, master_ref_seqno: 5, rand_seed: 's',
  created_by: 'c', tx_count: 0, masterchain_block_ref: { workchain: -1, shard: '8000000000000000', seqno: 5 }, prev_blocks: [],
  prev_refs: [], in_msg_descr_length: 0, out_msg_descr_length: 0, value_flow: {} as BlockRecord['value_flow'], shard_tops: [],
};

describe('Block', () => {
  it('has exactly toncenter\'s fields, in its order; mc_block_seqno stays internal', () => {
    expect(Object.keys(toV3Block(block))).toEqual(TONCENTER_BLOCK_FIELDS);
    expect(Object.keys(SCHEMAS.Block.properties as object)).toEqual(TONCENTER_BLOCK_FIELDS);
    expect(SCHEMAS.Block.required).toEqual(TONCENTER_BLOCK_FIELDS);
  });
});

const ACCOUNT = `0:${'AB'.repeat(32)}`;
const V4_CODE = WalletContractV4.create({ workchain: 0, publicKey: Buffer.alloc(32, 1) }).init.code;
/** Multisig v1 answers get_n_k and get_public_keys: get-methods, none of them in toncenter's interface list. */
const MULTISIG_V1_CODE = new MultisigWallet([Buffer.alloc(32, 1)], 0, 1, 1).init.code!;
/** Code that does not start with the method dictionary FunC compiles. */
const NO_DICT_CODE = beginCell().storeUint(0xdeadbeef, 32).endCell();
const state = (code: Cell | null): AccountStateRecord => ({
  account: ACCOUNT, account_state_hash: 'h', balance: '1', extra_currencies: {}, status: code ? 'active' : 'uninit', frozen_hash: null,
  code_hash: code && code.hash().toString('base64'), data_hash: code && 'd', code_boc: code && code.toBoc().toString('base64'), data_boc: null,
  last_trans_lt: '1', last_trans_hash: 't', mc_block_seqno: 1, gen_utime: 1,
});

describe('AccountStateFull contract_methods and interfaces (ton-index-go: contract_methods row, DetectInterface)', () => {
  const served = (code: Cell | null) => {
    const { contract_methods, interfaces } = toAccountStateFull(state(code), false);
    return { contract_methods, interfaces };
  };

  it('an account without code: no methods (null), interfaces []', () => {
    expect(served(null)).toEqual({ contract_methods: null, interfaces: [] });
  });

  it('a known code: its name, its method ids unsigned and ascending (recv_external 2^19 - 1 last)', () => {
    const { contract_methods, interfaces } = served(V4_CODE);
    expect(interfaces).toEqual(['wallet_v4r2']);
    expect(contract_methods![0]).toBe(0);
    expect(contract_methods!.at(-1)).toBe(2 ** 19 - 1);
    expect(contract_methods).toEqual([...contract_methods!].sort((a, b) => a - b));
  });

  it('get-methods that name no interface: interfaces null; a code without the method dictionary: no methods, []', () => {
    expect(served(MULTISIG_V1_CODE).interfaces).toBeNull();
    expect(served(NO_DICT_CODE)).toEqual({ contract_methods: null, interfaces: [] });
  });
});

/**
 * The address book's `interfaces` against ton-index-go's (QueryAddressBookImpl): an address with no
 * row in latest_account_states gets `[]`; one whose state has neither code hash nor methods gets
 * null; any other goes through DetectInterface (a code hash it knows: its name; no methods: `[]`;
 * methods matching nothing: null).
 */
describe('AddressBookRow interfaces (addressBookInterfaces)', () => {
  /** The `contract_interfaces` row the writer stores for a code (token-rows.ts). */
  const row = (code: Cell) => {
    const found = detectInterfaces(code.hash().toString('base64'), code);
    return { interfaces: found.interfaces, methods: found.methods ?? [] };
  };
  const hash = (c: Cell) => c.hash().toString('base64');

  it('[] for an address with no stored state, null for a known account without code', () => {
    expect(addressBookInterfaces(undefined, undefined)).toEqual([]);
    expect(addressBookInterfaces(null, undefined)).toBeNull();
  });

  it('a known code: its interfaces; get-methods naming none: null; no get-methods found: []', () => {
    expect(addressBookInterfaces(hash(V4_CODE), row(V4_CODE))).toEqual(['wallet_v4r2']);
    expect(addressBookInterfaces(hash(MULTISIG_V1_CODE), row(MULTISIG_V1_CODE))).toBeNull();
    // A code without the standard entry point: the writer stores no row for it.
    expect(addressBookInterfaces(hash(NO_DICT_CODE), undefined)).toEqual([]);
  });
});

describe('Transaction account_state_before / after of a non-existent account', () => {
  /** `account_none$0`: the state hash of every account that does not exist (a cell of one 0 bit). */
  const NONE = beginCell().storeBit(0).endCell().hash().toString('base64');
  // A message to an address that does not exist, bounced: nonexist before and after.
  const tx = {
    account: ACCOUNT, hash: 'tx', lt: '10', now: 1, mc_block_seqno: 1, prev_trans_hash: 'A'.repeat(43) + '=', prev_trans_lt: '0',
    orig_status: 'nonexist', end_status: 'nonexist', total_fees: '0', total_fees_extra_currencies: {},
    account_state_hash_before: NONE, account_state_hash_after: NONE, description: { type: 'ord' }, block_ref: id, in_msg: null, out_msgs: [],
  } as TransactionRow;
  // What the pipeline stores for it: the liteserver's empty answer read as account_none.
  const stored: AccountStateSummary = { account: ACCOUNT, account_state_hash: NONE, balance: '0', extra_currencies: {}, status: 'nonexist', code_hash: null, data_hash: null, frozen_hash: null };

  it('is the hash alone, every other field null, as toncenter answers (its indexer never stores the empty state)', () => {
    const v3 = toV3Transaction(tx, new Map(), new Map([[accountStateKey(ACCOUNT, NONE), stored]]));
    const hashOnly = { hash: NONE, balance: null, extra_currencies: null, account_status: null, frozen_hash: null, data_hash: null, code_hash: null };
    expect(v3.account_state_before).toEqual(hashOnly);
    expect(v3.account_state_after).toEqual(hashOnly);
  });

  it('a stored state of an existing account is still served in full', () => {
    const uninit = { ...stored, account_state_hash: 'u', balance: '5', status: 'uninit' as const };
    const v3 = toV3Transaction({ ...tx, account_state_hash_after: 'u', end_status: 'uninit' }, new Map(), new Map([[accountStateKey(ACCOUNT, 'u'), uninit]]));
    expect(v3.account_state_after).toEqual({ hash: 'u', balance: '5', extra_currencies: {}, account_status: 'uninit', frozen_hash: null, data_hash: null, code_hash: null });
  });
});
