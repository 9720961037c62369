export { createLiteServer, type LiteServer, type LiteServerOptions } from './server.js';
export { LiteErrorAnswer, ErrorCode } from './errors.js';
export type { LiteHandler, LiteServerHandlers } from './dispatch.js';
export type { LiteFunctionMap, LiteMethod } from './schema.js';
export type { LiteServerLogger } from './logger.js';
export { generateEd25519KeyPair, ed25519KeyPairFromSeed, type Ed25519KeyPair } from './keys.js';
export {
  writeGlobalConfig,
  readGlobalConfig,
  isLocalnetGlobalConfig,
  LOCALNET_MARKER,
  GlobalConfigError,
  type GlobalConfigOptions,
  type LiteServerAddress,
} from './global-config.js';
export {
  listBlockTransactionsExt,
  type ListBlockTransactionsExtRequest,
  type BlockTransactionsExt,
} from './list-block-transactions-ext.js';
export {
  getOutMsgQueueSizes,
  type GetOutMsgQueueSizesRequest,
  type OutMsgQueueSizes,
  type OutMsgQueueSize,
} from './out-msg-queue-sizes.js';
