import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { bigUint } from '../tlb/primitives.js';

/*
 * Tonstakers liquid staking (tsTON): pool and payout-NFT messages (opcodes as toncenter's classifier
 * names them, toncenter/ton-indexer indexer/events/blocks/messages/staking.py). Not in MESSAGE_LAYOUTS.
 */

export const TONSTAKERS_OPS = {
  depositRequest: 0x47d54391,
  withdrawRequest: 0x319b0cdc,
  /** Pool -> tsTON minter (deposit) or payout collection (delayed withdrawal); one opcode for both. */
  mint: 0x1674b0a0,
  initNft: 0x132f9a45,
  nftBurn: 0xf127fe4e,
  nftBurnNotification: 0xed58b0b2,
  distributedAsset: 0xdb3b8abd,
  poolWithdrawal: 0x0a77535c,
  /** Pool -> payout collection: start distributing a round's payouts. */
  startDistribution: 0x1140a64f,
} as const;

export const tonstakersNftBurnNotification = message('tonstakers_nft_burn_notification', TONSTAKERS_OPS.nftBurnNotification, {
  query_id: bigUint(64),
  amount: coins,
  owner: msgAddress,
});
