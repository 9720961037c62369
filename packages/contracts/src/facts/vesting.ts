import { readVestingData } from '../interfaces/vesting-data.js';
import { byInterface } from './standard.js';

/** Vesting wallet: the vesting schedule and whitelist. */
export const vesting = byInterface('wallet_vesting', readVestingData);
