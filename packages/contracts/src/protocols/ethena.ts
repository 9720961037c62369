import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { bigUint, varUint } from '../tlb/primitives.js';

/*
 * Ethena on TON: USDe staked for tsUSDe (toncenter/ton-indexer indexer/events/blocks/ethena_staking.py
 * recognizes the protocol by these two masters).
 */

/** USDe jetton master. */
export const ETHENA_USDE_MASTER = '0:086FA2A675F74347B08DD4606A549B8FDB98829CB282BC1949D3B12FBAED9DCC';
/** tsUSDe (staked USDe) jetton master. */
export const ETHENA_TSUSDE_MASTER = '0:D0E545323C7ACB7102653C073377F7E3C67F122EB94D430A250739F109D4A57D';
/** tsUSDe minter -> user's timelocked wallet: the unstaked amount, an internal_transfer body. */
export const ETHENA_TIMELOCKED_TRANSFER_OP = 0xb2583ed5;

/**
 * The timelocked transfer read as toncenter reads it: an internal_transfer's fields up to the forward
 * TON amount under its own opcode (whatever follows is not read).
 */
export const ethenaTimelockedTransfer = message('ethena_timelocked_transfer', ETHENA_TIMELOCKED_TRANSFER_OP, {
  query_id: bigUint(64),
  amount: varUint(16),
  from: msgAddress,
  response_address: msgAddress,
  forward_ton_amount: varUint(16),
});
