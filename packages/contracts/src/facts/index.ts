export { describeAccount, factsOf, STANDARDS, type AccountInput, type ContractFacts } from './describe.js';
export type { WalletFacts } from './wallet.js';
export type { CodeOf, Standard } from './standard.js';
