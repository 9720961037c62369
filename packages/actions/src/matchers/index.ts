import type { ActionMatcher } from '../matcher.js';
import { cocoonMatchers } from './cocoon.js';
import { coffeeCreateVaultMatcher, coffeeMevProtectHoldFundsMatcher, coffeeSwapMatcher, coffeeWithdrawLiquidityMatcher } from './coffee.js';
import { coffeeStakingMatchers } from './coffee-staking.js';
import { coffeeLiquidityMatchers } from './coffee-liquidity.js';
import { dedustDepositFirstAssetMatcher, dedustDepositMatcher, dedustSwapMatcher, dedustWithdrawMatcher } from './dedust.js';
import { jettonBurnMatcher, jettonMintMatcher, jettonTransferMatcher, ptonTransferMatcher } from './jettons.js';
import { ethenaDepositMatcher, ethenaWithdrawalRequestMatcher } from './ethena.js';
import { evaaMatchers } from './evaa.js';
import { jvaultMatchers } from './jvault.js';
import { layerzeroMatchers } from './layerzero.js';
import { stonfiSwapMatcher } from './stonfi.js';
import { stonfiV2SwapMatcher } from './stonfi-v2.js';
import { tgbtcMatchers } from './tgbtc.js';
import { toncoDeployPoolMatcher, toncoSwapMatcher } from './tonco.js';
import { toncoDepositLiquidityMatcher, toncoWithdrawLiquidityMatcher } from './tonco-liquidity.js';
import { nftMintMatcher, nftOwnershipAssignedMatcher, nftPurchaseMatcher, nftTransferMatcher } from './nfts.js';
import { vestingAddWhitelistMatcher, vestingSendMessageMatcher } from './vesting.js';
import { tonstakersDelayedWithdrawalMatcher, tonstakersDepositMatcher, tonstakersWithdrawMatcher } from './tonstakers.js';

/**
 * Every matcher, in priority order (toncenter's order): each runs once over the top-level blocks
 * and sees the composites earlier ones built. Adding a protocol = adding its file and entries here.
 */
export const MATCHERS: readonly ActionMatcher[] = [
  nftMintMatcher,
  tonstakersDelayedWithdrawalMatcher,
  dedustDepositMatcher,
  dedustDepositFirstAssetMatcher,
  tonstakersDepositMatcher,
  tonstakersWithdrawMatcher,
  vestingSendMessageMatcher,
  vestingAddWhitelistMatcher,
  ethenaWithdrawalRequestMatcher,
  jettonTransferMatcher,
  ptonTransferMatcher,
  dedustWithdrawMatcher,
  jettonBurnMatcher,
  dedustSwapMatcher,
  stonfiSwapMatcher,
  stonfiV2SwapMatcher,
  toncoSwapMatcher,
  nftTransferMatcher,
  nftOwnershipAssignedMatcher,
  nftPurchaseMatcher,
  jettonMintMatcher,
  ethenaDepositMatcher,
  ...jvaultMatchers,
  ...evaaMatchers,
  ...tgbtcMatchers,
  toncoDepositLiquidityMatcher,
  toncoDeployPoolMatcher,
  toncoWithdrawLiquidityMatcher,
  coffeeSwapMatcher,
  ...coffeeLiquidityMatchers,
  coffeeWithdrawLiquidityMatcher,
  coffeeCreateVaultMatcher,
  coffeeMevProtectHoldFundsMatcher,
  ...coffeeStakingMatchers,
  ...layerzeroMatchers,
  ...cocoonMatchers,
];
