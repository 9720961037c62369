import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import { nftOwnershipAssigned, nftTransfer, teleitemBidInfo } from '@tonstream/contracts';
import { deploys } from '../basic-blocks.js';
import type { Block } from '../block.js';
import type { ActionMatcher, MatchContext } from '../matcher.js';
import { OP_EXCESSES, anyOf, composite, ofType, op } from '../matcher.js';
import { readComment } from '../text.js';
import { findOp, interfaces, nftItem, payloadBoc, raw, readAs } from './util.js';

/*
 * NFTs (TEP-62): mint (a deployed contract the lookup knows as an item), transfer (with GetGems
 * fix-price sale / auction purchases), an ownership_assigned no transfer absorbed (Fragment sales),
 * and the v3 `nft_purchase` wrapping a GetGems purchase with the seller's payout.
 */

const OP_FILL_UP = 0x370fec51;

export const nftMintMatcher: ActionMatcher = {
  name: 'nft_mint',
  test: (b, ctx) => b.nodes.filter(deploys).length === 1 && nftItem(ctx, b.nodes.find(deploys)!.account) !== undefined,
  build(block, _matched, ctx) {
    const node = block.nodes.find(deploys)!;
    const item = nftItem(ctx, node.account)!;
    return composite('nft_mint', [block], {
      details: { owner: node.source, nft_item: node.account, nft_collection: item.collection_address, nft_item_index: item.index },
      addresses: [node.source, node.account],
    }, block.failed);
  },
};

function payloadComment(payload: Cell | null) {
  const c = payload ? readComment(payload) : null;
  return { comment: c?.text ?? null, is_encrypted_comment: c?.encrypted ?? false };
}

type Purchase = { price: string; realOldOwner: string | null; marketplaceAddress: string | null; absorb: Block | null };

/** A GetGems sale or auction right before the transfer whose NFT this is, sold to someone else. */
function purchaseBefore(block: Block, item: string, newOwner: string | null, ctx: MatchContext): Purchase | null {
  const prev = block.prev;
  if (!prev || prev.type === 'root' || prev.nodes.length === 0) return null;
  const account = prev.node.account;
  const known = interfaces(ctx, account);
  const finishing = prev.type === 'ton_transfer' && ['finish', 'stop'].includes(readComment(prev.node.body())?.text ?? '');
  if (known?.NftSale && prev.type === 'ton_transfer' && prev.node.source === newOwner) {
    const sale = known.NftSale;
    if (sale.nft_address !== item || sale.nft_owner_address === newOwner) return null;
    return { price: sale.full_price, realOldOwner: sale.nft_owner_address, marketplaceAddress: sale.marketplace_address, absorb: finishing ? null : prev };
  }
  if (known?.NftAuction) {
    const auction = known.NftAuction;
    if (auction.nft_addr !== item || auction.nft_owner === newOwner) return null;
    return { price: auction.last_bid, realOldOwner: auction.nft_owner, marketplaceAddress: auction.mp_addr, absorb: finishing ? null : prev };
  }
  return null;
}

export const nftTransferMatcher: ActionMatcher = {
  name: 'nft_transfer',
  ...op(nftTransfer.opcode),
  // The item's excesses are part of the transfer (toncenter matches them as a child).
  child: anyOf([op(nftOwnershipAssigned.opcode, { optional: true }), op(OP_EXCESSES, { optional: true })], { optional: true }),
  build(block, matched, ctx) {
    const itemAddress = block.node.destination;
    const item = nftItem(ctx, itemAddress);
    const body = readAs(block, nftTransfer);
    if (!item || !body || !itemAddress) return null;
    const assigned = findOp(matched, nftOwnershipAssigned.opcode);
    const assignedBody = assigned ? readAs(assigned, nftOwnershipAssigned) : null;
    const oldOwner = assignedBody ? raw(assignedBody.prev_owner) : block.node.source;
    const newOwner = raw(body.new_owner);
    const purchase = purchaseBefore(block, itemAddress, newOwner, ctx);
    const details = {
      nft_collection: item.collection_address,
      nft_item: itemAddress,
      nft_item_index: item.index,
      old_owner: oldOwner,
      new_owner: newOwner,
      is_purchase: purchase !== null,
      price: purchase?.price ?? null,
      query_id: body.query_id.toString(),
      response_destination: raw(body.response_destination),
      custom_payload: payloadBoc(body.custom_payload),
      forward_payload: payloadBoc(body.forward_payload),
      forward_amount: body.forward_amount.toString(),
      ...payloadComment(body.forward_payload),
      marketplace: purchase ? 'getgems' : null,
      real_old_owner: purchase?.realOldOwner ?? null,
      marketplace_address: purchase?.marketplaceAddress ?? null,
    };
    const include = [block, ...matched, ...(purchase?.absorb ? [purchase.absorb] : [])];
    return composite('nft_transfer', include, { details, addresses: [oldOwner, newOwner, itemAddress] }, block.failed);
  },
};

/** An ownership_assigned from a known item no transfer took (Fragment auctions and sales). */
export const nftOwnershipAssignedMatcher: ActionMatcher = {
  name: 'nft_ownership_assigned',
  ...op(nftOwnershipAssigned.opcode),
  build(block, _matched, ctx) {
    const itemAddress = block.node.source;
    const item = nftItem(ctx, itemAddress);
    const body = readAs(block, nftOwnershipAssigned);
    if (!item || !body) return null;
    let bid: bigint | null;
    try {
      bid = teleitemBidInfo.read(body.forward_payload.beginParse()).bid;
    } catch (err) {
      rethrowBugs(err);
      bid = null;
    }
    const parent = block.prev;
    const fromMint = parent !== null && parent.type === 'nft_mint';
    const isPurchase = bid !== null && !fromMint;
    const include = [block];
    if (isPurchase && parent && parent.nodes.length > 0 && parent.type === 'ton_transfer') {
      include.push(parent);
      for (const sibling of parent.next) if (sibling.type === 'call_contract' && sibling.opcode === OP_FILL_UP) include.push(sibling);
    }
    const details = {
      nft_collection: item.collection_address,
      nft_item: itemAddress,
      nft_item_index: item.index,
      old_owner: raw(body.prev_owner),
      new_owner: block.node.destination,
      is_purchase: isPurchase,
      price: isPurchase ? String(bid) : null,
      query_id: body.query_id.toString(),
      response_destination: null,
      custom_payload: null,
      forward_payload: payloadBoc(body.forward_payload),
      forward_amount: null,
      ...payloadComment(body.forward_payload),
      marketplace: isPurchase ? 'fragment' : null,
      real_old_owner: null,
      marketplace_address: null,
    };
    return composite('nft_transfer', include, { details, addresses: [details.old_owner, details.new_owner, itemAddress] }, block.failed);
  },
};

/** v3: a GetGems purchase with the payout to the seller. */
export const nftPurchaseMatcher: ActionMatcher = {
  name: 'nft_purchase',
  ...ofType('nft_transfer'),
  test: (b) => b.type === 'nft_transfer' && b.data?.details.is_purchase === true && b.data.details.marketplace === 'getgems',
  build(block) {
    const d = block.data!.details;
    const payout = block.next.find((b) => b.type === 'ton_transfer' && b.node.destination === d.real_old_owner);
    const comment = payout ? readComment(payout.node.body()) : null;
    const details = {
      ...d,
      payout_amount: payout?.node.msg?.value ?? null,
      payout_address: d.real_old_owner,
      payout_comment: comment?.text ?? null,
      payout_comment_encrypted: comment?.encrypted ?? false,
      payout_comment_encoded: comment?.encrypted ?? false,
    };
    return composite('nft_purchase', payout ? [block, payout] : [block], {
      details,
      addresses: [d.old_owner as string, d.new_owner as string, d.nft_item as string, payout?.node.destination],
    }, block.failed);
  },
};
