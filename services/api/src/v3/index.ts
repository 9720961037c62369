import express from 'express';
import { accountStatesEndpoint, addressBookEndpoint, metadataEndpoint, topAccountsByBalanceEndpoint, walletStatesEndpoint } from './accounts.js';
import { blocksEndpoint, masterchainBlockShardsEndpoint, masterchainBlockShardStateEndpoint, masterchainInfoEndpoint } from './blocks.js';
import { decodeEndpoint } from './decode.js';
import { LEGACY_ENDPOINTS } from './legacy.js';
import { docsPageRouter } from './docs-page.js';
import { type Endpoint, type V3Deps, v3Router } from './endpoint.js';
import { adjacentTransactionsEndpoint, messagesEndpoint, transactionsByMessageEndpoint } from './messages.js';
import { openApiDocument } from './openapi.js';
import { checkResponses, openApiResponseCheck } from './response-check.js';
import { pendingActionsEndpoint, pendingTracesEndpoint, pendingTransactionsEndpoint } from './pending.js';
import { transactionsByMasterchainBlockEndpoint, transactionsEndpoint } from './transactions.js';
import { actionsEndpoint } from './actions.js';
import { eventsEndpoint, tracesEndpoint } from './traces.js';
import { jettonBurnsEndpoint, jettonMastersEndpoint, jettonTransfersEndpoint, jettonWalletsEndpoint } from './jettons.js';
import { nftCollectionsEndpoint, nftItemsEndpoint, nftTransfersEndpoint } from './nfts.js';
import { dnsRecordsEndpoint } from './dns.js';
import { multisigOrdersEndpoint, multisigWalletsEndpoint } from './multisig.js';
import { nftSalesEndpoint } from './nft-sales.js';
import { vestingEndpoint } from './vesting.js';

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
