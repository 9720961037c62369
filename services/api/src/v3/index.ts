import express from 'express';
import { accountStatesEndpoint, addressBookEndpoint, metadataEndpoint, topAccountsByBalanceEndpoint, walletStatesEndpoint } from './accounts/accounts.js';
import { blocksEndpoint, masterchainBlockShardsEndpoint, masterchainBlockShardStateEndpoint, masterchainInfoEndpoint } from './blocks/blocks.js';
import { decodeEndpoint } from './decode/decode.js';
import { LEGACY_ENDPOINTS } from './legacy/legacy.js';
import { docsPageRouter } from './docs-page.js';
import { type Endpoint, type V3Deps, v3Router } from './endpoint.js';
import { adjacentTransactionsEndpoint, messagesEndpoint, transactionsByMessageEndpoint } from './transactions/messages.js';
import { openApiDocument } from './openapi.js';
import { checkResponses, openApiResponseCheck } from './response-check.js';
import { pendingActionsEndpoint, pendingTracesEndpoint, pendingTransactionsEndpoint } from './pending/pending.js';
import { transactionsByMasterchainBlockEndpoint, transactionsEndpoint } from './transactions/transactions.js';
import { actionsEndpoint } from './traces/actions.js';
import { eventsEndpoint, tracesEndpoint } from './traces/traces.js';
import { jettonBurnsEndpoint, jettonMastersEndpoint, jettonTransfersEndpoint, jettonWalletsEndpoint } from './tokens/jettons.js';
import { nftCollectionsEndpoint, nftItemsEndpoint, nftTransfersEndpoint } from './tokens/nfts.js';
import { dnsRecordsEndpoint } from './contracts/dns.js';
import { multisigOrdersEndpoint, multisigWalletsEndpoint } from './contracts/multisig.js';
import { nftSalesEndpoint } from './contracts/nft-sales.js';
import { vestingEndpoint } from './contracts/vesting.js';

/** Every served v3 endpoint. A new endpoint is one module with `defineEndpoint` plus one line here. */
export const V3_ENDPOINTS: readonly Endpoint[] = [
  masterchainInfoEndpoint,
  blocksEndpoint,
  masterchainBlockShardStateEndpoint,
  masterchainBlockShardsEndpoint,
  transactionsEndpoint,
  transactionsByMasterchainBlockEndpoint,
  transactionsByMessageEndpoint,
  adjacentTransactionsEndpoint,
  messagesEndpoint,
  accountStatesEndpoint,
  walletStatesEndpoint,
  addressBookEndpoint,
  metadataEndpoint,
  topAccountsByBalanceEndpoint,
  jettonMastersEndpoint,
  jettonWalletsEndpoint,
  jettonTransfersEndpoint,
  jettonBurnsEndpoint,
  nftCollectionsEndpoint,
  nftItemsEndpoint,
  nftTransfersEndpoint,
  nftSalesEndpoint,
  dnsRecordsEndpoint,
  multisigWalletsEndpoint,
  multisigOrdersEndpoint,
  vestingEndpoint,
  decodeEndpoint,
  tracesEndpoint,
  eventsEndpoint,
  actionsEndpoint,
  ...LEGACY_ENDPOINTS,
  pendingTracesEndpoint,
  pendingActionsEndpoint,
  pendingTransactionsEndpoint,
];

/** Version of the served API surface in the OpenAPI document. */
export const V3_API_VERSION = '0.1.0';

/** The /api/v3 router: the endpoints, `GET /openapi.json` generated from them and its docs page. */
export function createV3Router(deps: V3Deps): express.Router {
  const doc = openApiDocument(V3_ENDPOINTS, V3_API_VERSION, deps.defaults);
  const router = express.Router();
  if (deps.checkResponses) router.use(checkResponses(openApiResponseCheck(doc), deps.checkResponses.reject, deps.checkResponses.report));
  router.use(v3Router(V3_ENDPOINTS, deps));
  router.get('/openapi.json', (_req, res) => {
    res.json(doc);
  });
  router.use(docsPageRouter());
  return router;
}

export type { Endpoint, V3Deps } from './endpoint.js';
