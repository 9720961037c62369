import { readMultisigOrderData } from '../interfaces/multisig-data.js';
import { byInterface } from './standard.js';

/** Multisig v2 order: its multisig, seqno, approvals and the order itself. */
export const multisigOrder = byInterface('multisig_order_v2', readMultisigOrderData);
