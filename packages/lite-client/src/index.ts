export {
  createLitePool,
  GoneEverywhereError,
  LiteQueryError,
  QueryTimeoutError,
  type LiteFunction,
  type LitePool,
  type LitePoolOptions,
  type PoolServer,
  type QueryEngine,
  type QueryEvent,
  type QueryObserver,
  type QueryResult,
  type ServerHealth,
} from './pool.js';
export { connectLitePool, READY_TIMEOUT_MS, type ConnectOptions } from './connect.js';
export { createLiteReads, toTlBlockId, type AccountRef, type BlockIdExt, type BlockLookup, type Check, type LiteReads, type LiteReadsOptions } from './reads.js';
export { lastTransactionOf } from './account-proof.js';
export { GLOBAL_CONFIG_BACKOFF, GlobalConfigMissingError, isUrl, loadGlobalConfig, type GlobalConfigSource, type LoadGlobalConfigOptions } from './global-config-source.js';
export { AbortedError, backoffDelay, DEFAULT_BACKOFF, retryForever, sleep, type BackoffOptions } from './retry.js';
export { createLimiter, type Limiter } from './limit.js';
export type { LiteServerAddress } from '@tonstream/liteserver-emulator';
