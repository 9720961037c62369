import { message } from '../layout.js';
import { msgAddress, msgAddressInt } from '../tlb/address.js';
import type { Codec } from '../tlb/codec.js';
import { grams } from '../tlb/currency.js';
import { bigInt, bits, cons, maybe, ref, refCell, uint } from '../tlb/primitives.js';

/*
 * Telegram usernames and numbers (TelegramMessenger/telemint: the collection `telemint` and its
 * items `teleitem`), as ton-marker's scheme writes them.
 *   telemint_text$_ len:(## 8) text:(bits (len * 8)) = TelemintText;
 *   telemint_token_info$_ name:TelemintText domain:TelemintText = TelemintTokenInfo;
 *   teleitem_auction_config$_ beneficiary_address:MsgAddressInt initial_min_bid:Grams max_bid:Grams
 *     min_bid_step:uint8 min_extend_time:uint32 duration:uint32 = TeleitemAuctionConfig;
 *   nft_royalty_params#_ numerator:uint16 denominator:uint16 destination:MsgAddress = NftRoyaltyParams;
 *   telemint_restrictions$_ force_sender_address:(Maybe MsgAddressInt) rewrite_sender_address:(Maybe MsgAddressInt) = TelemintRestrictions;
 */

/** `TelemintText`: the text's bytes (printed as the scheme's `len` and hex `text`). */
const telemintText: Codec<Buffer> = {
  read: (s) => s.loadBuffer(s.loadUint(8)),
  print(s) {
    const len = s.loadUint(8);
    return { '@type': 'telemint_text', len: String(len), text: s.loadBits(len * 8).toString() };
  },
};

const tokenInfo = cons('telemint_token_info', '$_', { name: telemintText, domain: telemintText });

const auctionConfig = cons('teleitem_auction_config', '$_', {
  beneficiary_address: msgAddressInt,
  initial_min_bid: grams,
  max_bid: grams,
  min_bid_step: uint(8),
  min_extend_time: uint(32),
  duration: uint(32),
});

const royaltyParams = cons('nft_royalty_params', '#_', { numerator: uint(16), denominator: uint(16), destination: msgAddress });

/** Found in the forward payload of an item's ownership_assigned after an auction. */
export const teleitemBidInfo = message('teleitem_bid_info', 0x38127de1, { bid: grams, bid_ts: uint(32) });

export const teleitemReturnBid = message('teleitem_return_bid', 0xa43227e1, { query_id: bigInt(64) });

export const teleitemOk = message('teleitem_ok', 0xa37a0983, { query_id: bigInt(64) });

export const teleitemMsgDeploy = message('teleitem_msg_deploy', 0x299a3e15, {
  sender_address: msgAddressInt,
  bid: grams,
  token_info: ref(tokenInfo),
  nft_content: refCell,
  auction_config: ref(auctionConfig),
  royalty_params: ref(royaltyParams),
});

/** The deploy message without its refs (ton-marker's fallback reading of the same opcode). */
export const teleitemMsgDeployHead = message('teleitem_msg_deploy_head', 0x299a3e15, { sender_address: msgAddressInt, bid: grams });

export const teleitemMsgStartAuction = message('teleitem_msg_start_auction', 0x487a8e81, { query_id: bigInt(64), auction_config: ref(auctionConfig) });

export const teleitemMsgCancelAuction = message('teleitem_msg_cancel_auction', 0x371638ae, { query_id: bigInt(64) });

/** The fields telemint_unsigned_deploy and its v2 share (v2 appends restrictions). */
const unsignedDeployFields = {
  subwallet_id: uint(32),
  valid_since: uint(32),
  valid_till: uint(32),
  token_name: telemintText,
  content: refCell,
  auction_config: ref(auctionConfig),
  royalty_params: maybe(ref(royaltyParams)),
};

export const telemintMsgDeploy = message('telemint_msg_deploy', 0x4637289a, {
  sig: bits(512),
  msg: cons('telemint_unsigned_deploy', '$_', unsignedDeployFields),
});

export const telemintMsgDeployV2 = message('telemint_msg_deploy_v2', 0x4637289b, {
  sig: bits(512),
  msg: cons('telemint_unsigned_deploy_v2', '$_', {
    ...unsignedDeployFields,
    restrictions: maybe(ref(cons('telemint_restrictions', '$_', { force_sender_address: maybe(msgAddressInt), rewrite_sender_address: maybe(msgAddressInt) }))),
  }),
});

export const TELEGRAM_MESSAGES = [
  teleitemBidInfo,
  teleitemReturnBid,
  teleitemOk,
  teleitemMsgDeploy,
  teleitemMsgDeployHead,
  teleitemMsgStartAuction,
  teleitemMsgCancelAuction,
  telemintMsgDeploy,
  telemintMsgDeployV2,
] as const;
