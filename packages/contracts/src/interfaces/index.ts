export { methodId, getMethodIds } from './method-ids.js';
export { WALLET_TYPES, WALLET_INTERFACES, walletType, type WalletType } from './wallet-codes.js';
export { createInterfaceDetector, detectInterfaces, INTERFACE_CACHE_ENTRIES, type ContractInterfaces, type InterfaceDetector } from './detect.js';
export { readTokenContent, readSnakeText, type TokenContent } from './token-content.js';
export { dataCell, rawAddress, readJettonMasterData, readJettonWalletData, readNftCollectionData, readNftItemData, type JettonMasterData, type JettonWalletData, type NftCollectionData, type NftItemData } from './token-data.js';
export { TOKEN_EVENT_OPCODES, tokenBodyEvent, tokenEventOf, type TokenAccount, type TokenBodyEvent } from './token-events.js';
