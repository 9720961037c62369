import { message } from '../layout.js';
import { bigUint, uint } from '../tlb/primitives.js';

/*
 * Multisig v2 (ton-blockchain/multisig-contract-v2): the messages without an order dictionary
 * (new_order, init and execute carry a Hashmap of actions, not printed here, so they stay unknown).
 */

export const multisigApprove = message('multisig_approve', 0xa762230f, { query_id: bigUint(64), signer_index: uint(8) });

export const multisigApproveAccepted = message('multisig_approve_accepted', 0x82609bf6, { query_id: bigUint(64) });

export const multisigApproveRejected = message('multisig_approve_rejected', 0xafaf283e, { query_id: bigUint(64), exit_code: uint(32) });

export const MULTISIG_MESSAGES = [multisigApprove, multisigApproveAccepted, multisigApproveRejected] as const;
