import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { bigUint, bool, eitherCell, maybe, refCell, uint, varUint } from '../tlb/primitives.js';

/*
 * NFTs: TEP-62 (nft standard), TEP-66 (royalty), TEP-85 (SBT), as ton-marker's scheme writes them.
 */

export const nftTransfer = message('nft_transfer', 0x5fcc3d14, {
  query_id: bigUint(64),
  new_owner: msgAddress,
  response_destination: msgAddress,
  custom_payload: maybe(refCell),
  forward_amount: varUint(16),
  forward_payload: eitherCell,
});

export const nftOwnershipAssigned = message('nft_ownership_assigned', 0x05138d91, {
  query_id: bigUint(64),
  prev_owner: msgAddress,
  forward_payload: eitherCell,
});

export const getStaticData = message('get_static_data', 0x2fcb26a2, { query_id: bigUint(64) });

export const reportStaticData = message('report_static_data', 0x8b771735, { query_id: bigUint(64), index: bigUint(256), collection: msgAddress });

export const getRoyaltyParams = message('get_royalty_params', 0x693d3950, { query_id: bigUint(64) });

export const reportRoyaltyParams = message('report_royalty_params', 0xa8cb00ad, {
  query_id: bigUint(64),
  numerator: uint(16),
  denominator: uint(16),
  destination: msgAddress,
});

export const proveOwnership = message('prove_ownership', 0x04ded148, {
  query_id: bigUint(64),
  dest: msgAddress,
  forward_payload: refCell,
  with_content: bool,
});

export const ownershipProof = message('ownership_proof', 0x0524c7ae, {
  query_id: bigUint(64),
  item_id: bigUint(256),
  owner: msgAddress,
  data: refCell,
  revoked_at: bigUint(64),
  content: maybe(refCell),
});

export const sbtRequestOwner = message('sbt_request_owner', 0xd0c3bfea, {
  query_id: bigUint(64),
  dest: msgAddress,
  forward_payload: refCell,
  with_content: bool,
});

export const sbtOwnerInfo = message('sbt_owner_info', 0x0dd607e3, {
  query_id: bigUint(64),
  item_id: bigUint(256),
  initiator: msgAddress,
  owner: msgAddress,
  data: refCell,
  revoked_at: bigUint(64),
  content: maybe(refCell),
});

export const sbtDestroy = message('sbt_destroy', 0x1f04537a, { query_id: bigUint(64) });

export const sbtRevoke = message('sbt_revoke', 0x6f89f5e3, { query_id: bigUint(64) });

export const NFT_MESSAGES = [
  nftTransfer,
  nftOwnershipAssigned,
  getStaticData,
  reportStaticData,
  getRoyaltyParams,
  reportRoyaltyParams,
  proveOwnership,
  ownershipProof,
  sbtRequestOwner,
  sbtOwnerInfo,
  sbtDestroy,
  sbtRevoke,
] as const;
