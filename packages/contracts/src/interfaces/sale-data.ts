import type { Cell, Slice } from '@ton/core';
import { readAddress, readExactly, requireAddress } from './contract-layout.js';

/*
 * NFT sale contracts (GetGems fixed-price sale v3, auction v2/v3), read as their get_sale_data
 * answers, in toncenter's NFTSale shape: common fields plus a `details` variant. Amounts are decimal
 * strings; a null address is null.
 */

export type GetgemsSaleDetails = { is_complete: boolean; full_price: string; marketplace_fee_address: string | null; marketplace_fee: string; royalty_address: string | null; royalty_amount: string };

export type GetgemsAuctionDetails = {
  end_flag: boolean; end_time: number; last_bid: string; last_member: string | null; min_step: string;
  mp_fee_address: string | null; mp_fee_factor: string; mp_fee_base: string;
  royalty_fee_address: string | null; royalty_fee_factor: string; royalty_fee_base: string;
  max_bid: string; min_bid: string; last_bid_at: number; is_canceled: boolean;
};

type SaleCommon = { nft_address: string; nft_owner_address: string | null; marketplace_address: string; created_at: number };
export type NftSaleData = (SaleCommon & { type: 'getgems_sale'; details: GetgemsSaleDetails }) | (SaleCommon & { type: 'getgems_auction'; details: GetgemsAuctionDetails });

/**
 * Fixed-price sale v3: `is_complete:Bool created_at:uint32 marketplace:MsgAddress nft:MsgAddress
 * nft_owner:MsgAddress full_price:Coins ^[marketplace_fee_address:MsgAddress marketplace_fee:Coins
 * royalty_address:MsgAddress royalty_amount:Coins]`, v3r2/v3r3 adding `can_deploy_by_external:Bool`.
 */
function readSale(s: Slice, deployBit: boolean): NftSaleData {
  const is_complete = s.loadBit();
  const created_at = s.loadUint(32);
  const marketplace_address = requireAddress(s);
  const nft_address = requireAddress(s);
  const nft_owner_address = readAddress(s);
  const full_price = s.loadCoins().toString();
  const fees = s.loadRef().beginParse();
  const details = { is_complete, full_price, marketplace_fee_address: readAddress(fees), marketplace_fee: fees.loadCoins().toString(), royalty_address: readAddress(fees), royalty_amount: fees.loadCoins().toString() };
  if (fees.remainingBits !== 0 || fees.remainingRefs !== 0) throw new Error('sale fees longer than the layout');
  if (deployBit) s.loadBit();
  return { type: 'getgems_sale', nft_address, nft_owner_address, marketplace_address, created_at, details };
}

/**
 * Auction v2/v3: `end:Bool activated:Bool is_canceled:Bool last_member:MsgAddress last_bid:Coins
 * last_bid_at:uint32 end_time:uint32 nft_owner:MsgAddress ^fees ^constants`, fees being
 * `mp_fee_addr mp_fee_factor:uint32 mp_fee_base:uint32 royalty_fee_addr royalty_fee_factor:uint32
 * royalty_fee_base:uint32`, constants `sub_gas_price:int32 mp_addr min_bid:Coins max_bid:Coins
 * min_step:Coins step_time:uint32 nft_addr created_at:uint32`.
 */
function readAuction(s: Slice): NftSaleData {
  const end_flag = s.loadBit();
  s.loadBit();
  const is_canceled = s.loadBit();
  const last_member = readAddress(s);
  const last_bid = s.loadCoins().toString();
  const last_bid_at = s.loadUint(32);
  const end_time = s.loadUint(32);
  const nft_owner_address = readAddress(s);
  const f = s.loadRef().beginParse();
  const fees = { mp_fee_address: readAddress(f), mp_fee_factor: String(f.loadUint(32)), mp_fee_base: String(f.loadUint(32)), royalty_fee_address: readAddress(f), royalty_fee_factor: String(f.loadUint(32)), royalty_fee_base: String(f.loadUint(32)) };
  const c = s.loadRef().beginParse();
  c.loadInt(32);
  const marketplace_address = requireAddress(c);
  const min_bid = c.loadCoins().toString();
  const max_bid = c.loadCoins().toString();
  const min_step = c.loadCoins().toString();
  c.loadUint(32);
  const nft_address = requireAddress(c);
  const created_at = c.loadUint(32);
  if (f.remainingBits !== 0 || c.remainingBits !== 0 || f.remainingRefs + c.remainingRefs !== 0) throw new Error('auction cells longer than the layout');
  return {
    type: 'getgems_auction', nft_address, nft_owner_address, marketplace_address, created_at,
    details: { end_flag, end_time, last_bid, last_member, min_step, ...fees, max_bid, min_bid, last_bid_at, is_canceled },
  };
}

/** A sale or auction contract's data, trying each layout; null when none reads the whole cell. */
export function readNftSaleData(data: Cell): NftSaleData | null {
  return readExactly(data, (s) => readSale(s, true)) ?? readExactly(data, (s) => readSale(s, false)) ?? readExactly(data, readAuction);
}
