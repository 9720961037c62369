import type { Cell } from '@ton/core';
import { addressList, readExactly, requireAddress } from './contract-layout.js';

/** What get_multisig_data answers (multisig v2); the seqno is a decimal string (uint256). */
export type MultisigData = { next_order_seqno: string; threshold: number; signers: string[]; proposers: string[]; allow_arbitrary_seqno: boolean };

/**
 * Multisig v2 wallet (ton-blockchain/multisig-contract-v2): `next_order_seqno:uint256 threshold:uint8
 * signers:^(Hashmap 8 MsgAddressInt) signers_num:uint8 proposers:(HashmapE 8 MsgAddressInt)
 * allow_arbitrary_order_seqno:Bool`.
 */
export function readMultisigData(data: Cell): MultisigData | null {
  return readExactly(data, (s) => {
    const next_order_seqno = s.loadUintBig(256).toString();
    const threshold = s.loadUint(8);
    const signers = addressList(s.loadRef());
    const signersNum = s.loadUint(8);
    const proposers = addressList(s.loadMaybeRef());
    const allow_arbitrary_seqno = s.loadBit();
    if (signers.length !== signersNum) throw new Error('signers_num does not count the signers');
    return { next_order_seqno, threshold, signers, proposers, allow_arbitrary_seqno };
  });
}

/** What get_order_data answers (multisig v2 order); null fields before the order is initialised. */
export type MultisigOrderData = {
  multisig_address: string;
  order_seqno: string;
  threshold: number | null;
  sent_for_execution: boolean | null;
  signers: string[];
  approvals_mask: string | null;
  approvals_num: number | null;
  expiration_date: number | null;
  /** The order (a dictionary of actions), base64 BoC. */
  order_boc: string | null;
};

/**
 * Multisig v2 order: `multisig_address:MsgAddressInt order_seqno:uint256`, then once initialised
 * `threshold:uint8 sent_for_execution:Bool signers:^(Hashmap 8 MsgAddressInt) approvals_mask:uint256
 * approvals_num:uint8 expiration_date:uint48 order:^Order`.
 */
export function readMultisigOrderData(data: Cell): MultisigOrderData | null {
  return readExactly(data, (s) => {
    const multisig_address = requireAddress(s);
    const order_seqno = s.loadUintBig(256).toString();
    if (s.remainingBits === 0 && s.remainingRefs === 0) {
      return { multisig_address, order_seqno, threshold: null, sent_for_execution: null, signers: [], approvals_mask: null, approvals_num: null, expiration_date: null, order_boc: null };
    }
    const threshold = s.loadUint(8);
    const sent_for_execution = s.loadBit();
    const signers = addressList(s.loadRef());
    const approvals_mask = s.loadUintBig(256).toString();
    const approvals_num = s.loadUint(8);
    const expiration_date = Number(s.loadUintBig(48));
    const order_boc = s.loadRef().toBoc().toString('base64');
    return { multisig_address, order_seqno, threshold, sent_for_execution, signers, approvals_mask, approvals_num, expiration_date, order_boc };
  });
}
