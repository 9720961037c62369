import { readJettonWalletData } from '../interfaces/token-data.js';
import { byInterface } from './standard.js';

/** TEP-74 jetton wallet: balance, owner and master. */
export const jettonWallet = byInterface('jetton_wallet', readJettonWalletData);
