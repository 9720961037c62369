export { DEFAULT_HOT_TTL_SECONDS, defaultHotPrefix, HOT_ACCOUNT_TXS, HOT_STATE_VERSIONS, hotKeys, type HotTier } from './layout.js';
export { readHotCodeHashes, readHotStates, writeHotStates } from './states.js';
export { readHotDnsCandidates, readHotTokenAddresses } from './facts.js';
export { dropHotMeta, hotGate, type HotGate, hotTierProblem, initHotTier, readHotMeta, recordHotBreak, redisRunId, writeHotMeta, type HotMeta } from './gate.js';
export { rebuildHotTier, rebuildHotTierOnce, type RebuildProgress } from './rebuild.js';
export { connectHotTier, type HotTierOptions } from './connect.js';
export { writeHotBatch, writeHotTransactions } from './transactions.js';
