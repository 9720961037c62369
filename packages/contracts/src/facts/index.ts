export { describeAccount, factsOf, type AccountInput, type ContractFacts } from './describe.js';
export type { WalletFacts } from './wallet.js';
