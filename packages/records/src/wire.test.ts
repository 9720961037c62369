import { describe, expect, it } from 'vitest';
import type { TransactionDescrRecord } from './records.js';
import { wireDescription } from './wire.js';

/**
 * toncenter's facts (ton-index-go models/blockchain.go): every field of TransactionDescr, StoragePhase,
 * CreditPhase, ComputePhase, ActionPhase, BouncePhase and SplitInfo is a pointer or map tagged
 * `omitempty`: nil pointers and empty maps are left out, false and 0 are written.
 */
describe('wireDescription', () => {
  it('leaves out nulls and empty maps at every level, keeps false, 0 and every other value', () => {
    const record: TransactionDescrRecord = {
      type: 'ord',
      aborted: false,
      destroyed: false,
      credit_first: true,
      storage_ph: { storage_fees_collected: '0', storage_fees_due: null, status_change: 'unchanged' },
      credit_ph: { due_fees_collected: null, credit: '1000', credit_extra_currencies: {} },
      compute_ph: {
        skipped: false, success: true, msg_state_used: false, account_activated: false, gas_fees: '0', gas_used: '0', gas_limit: '0',
        gas_credit: null, mode: 0, exit_code: 0, exit_arg: null, vm_steps: 0, vm_init_state_hash: 'a', vm_final_state_hash: 'b',
      },
      action: {
        success: true, valid: true, no_funds: false, status_change: 'unchanged', total_fwd_fees: null, total_action_fees: null,
        result_code: 0, result_arg: null, tot_actions: 0, spec_actions: 0, skipped_actions: 0, msgs_created: 0, action_list_hash: 'c',
        tot_msg_size: { cells: '0', bits: '0' },
      },
    };
    expect(JSON.parse(JSON.stringify(wireDescription(record)))).toEqual({
      type: 'ord',
      aborted: false,
      destroyed: false,
      credit_first: true,
      storage_ph: { storage_fees_collected: '0', status_change: 'unchanged' },
      credit_ph: { credit: '1000' },
      compute_ph: {
        skipped: false, success: true, msg_state_used: false, account_activated: false, gas_fees: '0', gas_used: '0', gas_limit: '0',
        mode: 0, exit_code: 0, vm_steps: 0, vm_init_state_hash: 'a', vm_final_state_hash: 'b',
      },
      action: {
        success: true, valid: true, no_funds: false, status_change: 'unchanged',
        result_code: 0, tot_actions: 0, spec_actions: 0, skipped_actions: 0, msgs_created: 0, action_list_hash: 'c',
        tot_msg_size: { cells: '0', bits: '0' },
      },
    });
  });

  it('keeps a non-empty map and a skipped compute phase as they are, and does not touch the record', () => {
    const record: TransactionDescrRecord = {
      type: 'ord',
      credit_ph: { due_fees_collected: '5', credit: '1', credit_extra_currencies: { '239': '7' } },
      compute_ph: { skipped: true, reason: 'no_state' },
    };
    const copy = structuredClone(record);
    expect(wireDescription(record)).toEqual(copy);
    const nulls = { ...record, storage_ph: { storage_fees_collected: '1', storage_fees_due: null, status_change: 'unchanged' } };
    wireDescription(nulls);
    expect(nulls.storage_ph.storage_fees_due).toBeNull();
  });
});
