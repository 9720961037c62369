import { readMultisigData } from '../interfaces/multisig-data.js';
import { byInterface } from './standard.js';

/** Multisig v2 wallet: signers, proposers, threshold, next order seqno. */
export const multisig = byInterface('multisig_v2', readMultisigData);
