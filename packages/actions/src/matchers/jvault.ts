import { rethrowBugs } from '@tonstream/errors';
import { Dictionary } from '@ton/core';
import { countedValue, JVAULT_OPS, jvaultClaimRewards, jvaultStakePayload, jvaultUnstakeJettons, jvaultUnstakeRequest, cellFromBase64 } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, MatchContext, Matcher } from '../matcher.js';
import { anyOf, composite, ofType, op } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findOp, interfaces, jettonWallet, raw, readAs } from './util.js';

/*
 * JVault staking: stake (a jetton transfer to the pool that makes a stake wallet), unstake request,
 * unstake and reward claims; a stake wallet's pool and assets come from its contract data.
 */

/** Referrer wallet updates the pool may send, each possibly chained. */
const referralChain: Matcher = op([JVAULT_OPS.requestUpdateReferrer, JVAULT_OPS.updateReferrer], { optional: true });
referralChain.child = referralChain;

const updateRewards = op(JVAULT_OPS.updateRewards);

function exitCode(block: Block): number | null {
  const c = block.node.tx.description.compute_ph;
  return c && !c.skipped ? c.exit_code : null;
}

/** Pool, staked asset and stake jetton of a stake wallet, from its data (pool, minter) and the pool's lock wallet. */
function stakeWalletAssets(ctx: MatchContext, stakeWallet: string | null): { pool: string | null; asset: string | null; stakeAsset: string | null } | null {
  const extra = interfaces(ctx, stakeWallet)?.data_boc;
  if (!extra) return null;
  try {
    const s = cellFromBase64(extra.data_boc).beginParse();
    const pool = raw(s.loadAddress());
    const stakeAsset = raw(s.loadAddress());
    const lockWallet = (interfaces(ctx, pool)?.data_boc as { lock_wallet_address?: string } | undefined)?.lock_wallet_address;
    return { pool, asset: jettonWallet(ctx, lockWallet)?.jetton ?? null, stakeAsset };
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

export const jvaultStakeMatcher: ActionMatcher = {
  name: 'jvault_stake',
  ...ofType('jetton_transfer'),
  children: [
    op(JVAULT_OPS.receiveJettons, {
      child: anyOf([
        op(JVAULT_OPS.requestUpdateRewards, { children: [referralChain, updateRewards] }),
        op(JVAULT_OPS.stakeCancelled, { child: ofType('jetton_transfer', { optional: true }) }),
      ]),
    }),
    op(JVAULT_OPS.setData, { optional: true }),
  ],
  build(block, matched) {
    const t = block.data!.details as JettonTransferDetails;
    const receive = findOp(matched, JVAULT_OPS.receiveJettons);
    if (!receive || !t.forward_payload) return null;
    let period: number;
    try {
      const s = cellFromBase64(t.forward_payload).beginParse();
      jvaultStakePayload.op.read(s);
      period = jvaultStakePayload.period.read(s);
    } catch (err) {
      rethrowBugs(err);
      return null;
    }
    const cancelled = findOp(matched, JVAULT_OPS.stakeCancelled);
    const update = findOp(matched, JVAULT_OPS.requestUpdateRewards);
    if (!cancelled && !update) return null;
    const failed = receive.failed || cancelled !== undefined || (update?.failed ?? false);
    const details = {
      period,
      minted_stake_jettons: null,
      stake_wallet: receive.node.destination,
      source: t.sender,
      source_jetton_wallet: t.sender_jetton_wallet,
      asset: t.asset,
      pool: receive.node.source,
      amount: t.amount,
    };
    return composite('jvault_stake', [block, ...matched], { details, addresses: [t.sender, t.sender_jetton_wallet, details.pool, details.stake_wallet] }, failed);
  },
};

export const jvaultUnstakeRequestMatcher: ActionMatcher = {
  name: 'jvault_unstake_request',
  ...op(jvaultUnstakeRequest.opcode),
  child: op(JVAULT_OPS.requestUpdateRewards, { optional: true, children: [referralChain, updateRewards] }),
  build(block, matched, ctx) {
    const body = readAs(block, jvaultUnstakeRequest);
    if (!body) return null;
    const stakeWallet = block.node.destination;
    const assets = stakeWalletAssets(ctx, stakeWallet);
    const update = findOp(matched, JVAULT_OPS.requestUpdateRewards);
    if (!update && (!assets?.pool || !assets.asset)) return null;
    const pool = update ? update.node.destination : assets!.pool;
    const details = {
      source: block.node.source,
      stake_wallet: stakeWallet,
      pool,
      amount: body.jettons_to_unstake.toString(),
      exit_code: update ? null : exitCode(block),
      asset: assets?.asset ?? null,
      staking_asset: assets?.stakeAsset ?? null,
    };
    return composite('jvault_unstake_request', [block, ...matched], { details, addresses: [details.source, stakeWallet, pool] }, update ? block.failed || update.failed : true);
  },
};

export const jvaultUnstakeMatcher: ActionMatcher = {
  name: 'jvault_unstake',
  ...op(jvaultUnstakeJettons.opcode),
  child: op(JVAULT_OPS.requestUpdateRewards, {
    optional: true,
    children: [referralChain, ofType('ton_transfer', { optional: true }), ofType('jetton_transfer'), updateRewards],
  }),
  build(block, matched, ctx) {
    const body = readAs(block, jvaultUnstakeJettons);
    if (!body) return null;
    const stakeWallet = block.node.destination;
    const assets = stakeWalletAssets(ctx, stakeWallet);
    if (!assets?.pool || !assets.asset) return null;
    const update = findOp(matched, JVAULT_OPS.requestUpdateRewards);
    const transfer = matched.find((b) => b.type === 'jetton_transfer');
    const complete = update !== undefined && transfer !== undefined;
    const pool = complete ? update.node.destination : assets.pool;
    const details = {
      source: block.node.source,
      stake_wallet: stakeWallet,
      pool,
      amount: body.jettons_to_unstake.toString(),
      exit_code: complete ? null : exitCode(block),
      asset: complete ? ((transfer.data!.details as JettonTransferDetails).asset ?? assets.asset) : assets.asset,
      staking_asset: assets.stakeAsset,
    };
    // toncenter's builder never marks an unstake failed (a failed one shows its exit code).
    return composite('jvault_unstake', [block, ...matched], { details, addresses: [details.source, stakeWallet, pool] });
  },
};

export const jvaultClaimMatcher: ActionMatcher = {
  name: 'jvault_claim',
  ...op(jvaultClaimRewards.opcode),
  child: op(JVAULT_OPS.sendClaimedRewards, { children: [ofType('jetton_transfer'), updateRewards] }),
  build(block, matched) {
    const body = readAs(block, jvaultClaimRewards);
    const send = findOp(matched, JVAULT_OPS.sendClaimedRewards);
    const withdrawal = matched.find((b) => b.type === 'jetton_transfer');
    if (!body || !send || !withdrawal) return null;
    let jettons: string[];
    try {
      const dict = body.jettons_to_claim.beginParse().loadDict(Dictionary.Keys.Address(), countedValue(Dictionary.Values.Bool()));
      jettons = dict.keys().map((a) => raw(a)!);
    } catch (err) {
      rethrowBugs(err);
      return null;
    }
    const amounts = [(withdrawal.data!.details as JettonTransferDetails).amount];
    const claimed = jettons.length === amounts.length ? jettons.map((jetton, i) => ({ jetton, amount: amounts[i] })) : [];
    const details = { claimed_rewards: claimed, source: block.node.source, stake_wallet: block.node.destination, pool: send.node.destination };
    return composite('jvault_claim', [block, ...matched], { details, addresses: [details.source, details.stake_wallet, details.pool] }, block.failed);
  },
};

export const jvaultMatchers: ActionMatcher[] = [jvaultStakeMatcher, jvaultUnstakeMatcher, jvaultClaimMatcher, jvaultUnstakeRequestMatcher];
