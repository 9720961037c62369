import {
  COFFEE_OPS, coffeeCreateLiquidityDepositoryRequest, coffeeCreatePoolCreatorRequest, coffeeCreatePoolRequest,
  coffeeDepositLiquiditySuccessfulEvent, jettonInternalTransfer,
} from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { anyOf, composite, ofType, op, where } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findBlocks, findOp, raw, readAs } from './util.js';

/*
 * swap.coffee liquidity and pool creation. Each asset leg (TON to the native vault, or a jetton
 * transfer to a jetton vault) makes the vault ask the factory, which deploys a per-user contract
 * (a liquidity depository, or a pool creator). The leg that completes the pair also deploys or
 * feeds the pool, which mints LP tokens and logs success.
 */

const isCall = (b: Block, opcode: number) => b.type === 'call_contract' && b.opcode === opcode;
const log = (opcode: number, options: Partial<Matcher> = {}): Matcher => where((b) => isCall(b, opcode) && b.node.kind === 'log', options);

/** The user's leg into a vault: its asset (null for TON), the user's wallet and the block. */
function leg(prev: Block | null, nativeOp: number): { asset: string | null; wallet: string | null } | null {
  if (!prev) return null;
  if (prev.type === 'jetton_transfer') {
    const t = prev.data!.details as JettonTransferDetails;
    return { asset: t.asset, wallet: t.sender_jetton_wallet };
  }
  return isCall(prev, nativeOp) ? { asset: null, wallet: null } : null;
}

export const coffeeDepositLiquidityMatcher: ActionMatcher = {
  name: 'coffee_deposit_liquidity',
  test: (b) => isCall(b, coffeeCreateLiquidityDepositoryRequest.opcode) && leg(b.prev, COFFEE_OPS.depositLiquidityNative) !== null,
  children: [
    op(COFFEE_OPS.deploy, {
      child: op(COFFEE_OPS.depositLiquidityInternal, {
        optional: true,
        children: [
          op(jettonInternalTransfer.opcode),
          log(coffeeDepositLiquiditySuccessfulEvent.opcode),
          op(COFFEE_OPS.payoutInternal, { optional: true, child: anyOf([ofType('jetton_transfer'), op(COFFEE_OPS.payout), op(COFFEE_OPS.notification)]) }),
        ],
      }),
    }),
  ],
  build(block, matched) {
    const request = readAs(block, coffeeCreateLiquidityDepositoryRequest);
    const inLeg = leg(block.prev, COFFEE_OPS.depositLiquidityNative);
    const deploy = findOp(matched, COFFEE_OPS.deploy);
    if (!request || !inLeg || !deploy) return null;
    const { first, second } = request.pool_params;
    const isFirst = inLeg.asset === first;
    if (!isFirst && inLeg.asset !== second) return null;
    const successLog = findOp(matched, coffeeDepositLiquiditySuccessfulEvent.opcode);
    const success = successLog ? readAs(successLog, coffeeDepositLiquiditySuccessfulEvent) : null;
    const pool = successLog?.node.source ?? null;
    const out = findBlocks(matched, (b) => b.prev?.opcode === COFFEE_OPS.payoutInternal && (b.type === 'jetton_transfer' || isCall(b, COFFEE_OPS.payout) || isCall(b, COFFEE_OPS.notification)))[0];
    const excesses = !out ? [] : out.type === 'jetton_transfer'
      ? [{ asset: (out.data!.details as JettonTransferDetails).asset, amount: (out.data!.details as JettonTransferDetails).amount }]
      : [{ asset: null, amount: out.node.msg?.value ?? '0' }];
    const amount = request.amount.toString();
    const details = {
      dex: 'coffee',
      source: raw(request.sender),
      pool,
      destination_liquidity: pool,
      vault_excesses: excesses,
      asset_1: isFirst ? inLeg.asset : null,
      amount_1: isFirst ? amount : null,
      user_jetton_wallet_1: isFirst ? inLeg.wallet : null,
      asset_2: isFirst ? null : inLeg.asset,
      amount_2: isFirst ? null : amount,
      user_jetton_wallet_2: isFirst ? null : inLeg.wallet,
      target_asset_1: isFirst ? first : second,
      target_amount_1: null,
      target_asset_2: isFirst ? second : first,
      target_amount_2: null,
      lp_tokens_minted: success ? success.lp_amount.toString() : null,
    };
    return composite('coffee_deposit_liquidity', [block.prev!, block, ...matched], {
      details,
      addresses: [details.source, pool, deploy.node.destination],
      publicType: 'dex_deposit_liquidity',
    }, block.failed);
  },
};

/** Data a pool-creator block keeps for the pool creation that may follow it. */
const CREATOR = new WeakMap<Block, { sender: string | null; senderWallet: string | null; amount: string; provided: string | null; creator: string | null; first: string | null; second: string | null }>();

export const coffeeCreatePoolCreatorMatcher: ActionMatcher = {
  name: 'coffee_create_pool_creator',
  test: (b) => isCall(b, coffeeCreatePoolCreatorRequest.opcode) && leg(b.prev, COFFEE_OPS.createPoolNative) !== null,
  children: [op(COFFEE_OPS.deploy)],
  build(block, matched) {
    const request = readAs(block, coffeeCreatePoolCreatorRequest);
    const inLeg = leg(block.prev, COFFEE_OPS.createPoolNative);
    const deploy = findOp(matched, COFFEE_OPS.deploy);
    if (!request || !inLeg || !deploy) return null;
    const data = {
      sender: raw(request.sender),
      senderWallet: inLeg.wallet,
      amount: request.amount.toString(),
      provided: inLeg.asset,
      creator: deploy.node.destination,
      first: request.first,
      second: request.second,
    };
    const details = {
      source: data.sender,
      source_jetton_wallet: data.senderWallet,
      deposit_recipient: raw(request.creation_params.recipient),
      pool_creator_contract: data.creator,
      provided_asset: data.provided,
      asset_1: data.provided,
      asset_2: data.first,
      amount: data.amount,
    };
    const r = composite('coffee_create_pool_creator', [block.prev!, block, ...matched], {
      details,
      addresses: [data.sender, data.senderWallet, details.deposit_recipient, data.creator],
    }, block.failed);
    if (r) CREATOR.set(r[0], data);
    return r;
  },
};

export const coffeeCreatePoolMatcher: ActionMatcher = {
  name: 'coffee_create_pool',
  ...ofType('coffee_create_pool_creator'),
  child: op(coffeeCreatePoolRequest.opcode, {
    child: op(COFFEE_OPS.deploy, {
      children: [
        op(jettonInternalTransfer.opcode),
        log(coffeeDepositLiquiditySuccessfulEvent.opcode),
        op(COFFEE_OPS.notification, { optional: true, child: op(COFFEE_OPS.notificationCallback, { optional: true }) }),
      ],
    }),
  }),
  build(block, matched) {
    const creator = CREATOR.get(block);
    const requestBlock = findOp(matched, coffeeCreatePoolRequest.opcode);
    const request = requestBlock ? readAs(requestBlock, coffeeCreatePoolRequest) : null;
    const deploy = findOp(matched, COFFEE_OPS.deploy);
    const successLog = findOp(matched, coffeeDepositLiquiditySuccessfulEvent.opcode);
    const success = successLog ? readAs(successLog, coffeeDepositLiquiditySuccessfulEvent) : null;
    if (!creator || !request || !deploy) return null;
    const isFirst = creator.provided === creator.first;
    const isSecond = creator.provided === creator.second;
    const initiator = raw(request.tx_initiator);
    const [a1, a2] = [request.amount1.toString(), request.amount2.toString()];
    const details = {
      source: creator.sender,
      source_jetton_wallet: creator.senderWallet,
      provided_asset: creator.provided,
      amount: creator.amount,
      initiator_1: isSecond ? initiator : creator.sender,
      initiator_2: isSecond ? creator.sender : initiator,
      pool: deploy.node.destination,
      pool_creator_contract: creator.creator,
      asset_1: isFirst || isSecond ? creator.provided : creator.first,
      asset_2: isSecond ? creator.first : creator.second,
      amount_1: isSecond ? a2 : a1,
      amount_2: isSecond ? a1 : a2,
      lp_tokens_minted: success ? success.lp_amount.toString() : '0',
    };
    return composite('coffee_create_pool', [block, ...matched], {
      details,
      addresses: [creator.sender, creator.senderWallet, details.pool, creator.creator],
    }, block.failed);
  },
};

export const coffeeLiquidityMatchers: ActionMatcher[] = [coffeeDepositLiquidityMatcher, coffeeCreatePoolCreatorMatcher, coffeeCreatePoolMatcher];
