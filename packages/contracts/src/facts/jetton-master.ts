import { readJettonMasterData } from '../interfaces/token-data.js';
import { byInterface } from './standard.js';

/** TEP-74 jetton master: supply, admin, content and its wallets' code hash. */
export const jettonMaster = byInterface('jetton_master', readJettonMasterData);
