import type express from 'express';
import { getAddressBalance, getAddressInformation, getAddressState, getExtendedAddressInformation, getShardAccountCell, getWalletInformation } from './accounts.js';
import { getBlockHeader, getConsensusBlock, getMasterchainBlockSignatures, getMasterchainInfo, getOutMsgQueueSize, getShardBlockProof, lookupBlock, shards } from './blocks.js';
import { getConfigAll, getConfigParam, getLibraries } from './config.js';
import { runGetMethodMethod, runGetMethodStdMethod } from './get-methods.js';
import type { V2Method } from './method.js';
import { type V2Deps, v2Router } from './router.js';
import { estimateFeeMethod, sendBoc, sendBocReturnHash, sendBocReturnHashNoError, sendQuery } from './send.js';
import { getTokenData } from './tokens.js';
import { getBlockTransactions, getBlockTransactionsExt, getTransactions, getTransactionsStd, tryLocateResultTx, tryLocateSourceTx, tryLocateTx } from './transactions.js';
import { detectAddress, detectHash, packAddress, unpackAddress } from './utils.js';

/** Every served v2 method (docs/toncenter-v2.md §2). A new method is one `defineMethod` plus one line here. */
export const V2_METHODS: readonly V2Method[] = [
  getAddressInformation,
  getExtendedAddressInformation,
  getWalletInformation,
  getAddressBalance,
  getAddressState,
  getShardAccountCell,
  getTokenData,
  getMasterchainInfo,
  getMasterchainBlockSignatures,
  getShardBlockProof,
  getConsensusBlock,
  lookupBlock,
  shards,
  getBlockHeader,
  getOutMsgQueueSize,
  getTransactions,
  getTransactionsStd,
  getBlockTransactions,
  getBlockTransactionsExt,
  tryLocateTx,
  tryLocateResultTx,
  tryLocateSourceTx,
  getConfigParam,
  getConfigAll,
  getLibraries,
  runGetMethodMethod,
  runGetMethodStdMethod,
  sendBoc,
  sendBocReturnHash,
  sendBocReturnHashNoError,
  sendQuery,
  estimateFeeMethod,
  detectAddress,
  detectHash,
  packAddress,
  unpackAddress,
];

/** The /api/v2 router (the app mounts it at /api/v2). */
export function createV2Router(deps: V2Deps): express.Router {
  return v2Router(V2_METHODS, deps);
}

export type { V2Deps } from './router.js';
