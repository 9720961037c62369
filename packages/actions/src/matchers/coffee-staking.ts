import { rethrowBugs } from '@tonstream/errors';
import { COFFEE_OPS, coffeeStakingLog } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { composite, ofType, op, where } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findBlocks } from './util.js';

/*
 * swap.coffee staking: deposit (jetton transfer to the staking master -> pool, which mints a
 * position item), withdraw (the owner asks the position item, which goes through the pool and the
 * master, which pays the jettons back) and reward claims (pool pays rewards out).
 */

const isCall = (b: Block, opcode: number) => b.type === 'call_contract' && b.opcode === opcode;

/** The pool's log of this step (an external-out with the step's opcode) anywhere in the matched blocks. */
function stakingLog(blocks: Block[], opcode: number) {
  for (const b of findBlocks(blocks, (x) => isCall(x, opcode) && x.node.kind === 'log')) {
    try {
      return coffeeStakingLog.read(b.node.body().beginParse());
    } catch (err) {
      rethrowBugs(err);
      // not the layout: keep looking
    }
  }
  return null;
}

/** Every coffee staking message below a block, recursively (logs included). */
const stakingChain = (opcodes: number[]): Matcher => {
  const m = where((b) => (b.type === 'call_contract' && b.opcode !== null && opcodes.includes(b.opcode)) || b.type === 'nft_mint', { optional: true });
  m.child = m;
  return m;
};

export const coffeeStakingDepositMatcher: ActionMatcher = {
  name: 'coffee_staking_deposit',
  ...ofType('jetton_transfer'),
  child: op(COFFEE_OPS.stakingDeposit, { child: stakingChain([COFFEE_OPS.stakingDeposit, COFFEE_OPS.stakingMintItem]) }),
  build(block, matched) {
    const t = block.data!.details as JettonTransferDetails;
    const toPool = matched.find((b) => isCall(b, COFFEE_OPS.stakingDeposit) && b.prev === block);
    const mint = findBlocks(matched, (b) => isCall(b, COFFEE_OPS.stakingMintItem) || b.type === 'nft_mint')[0];
    const log = stakingLog(matched, COFFEE_OPS.stakingDeposit);
    if (!toPool) return null;
    const details = {
      source: t.sender,
      source_jetton_wallet: t.sender_jetton_wallet,
      pool: toPool.node.destination,
      pool_jetton_wallet: t.receiver_jetton_wallet,
      asset: t.asset,
      amount: t.amount,
      minted_item_address: mint?.node.destination ?? null,
      minted_item_index: log ? log.item_index.toString() : null,
    };
    return composite('coffee_staking_deposit', [block, ...matched], {
      details,
      addresses: [t.sender, t.sender_jetton_wallet, details.pool, t.receiver_jetton_wallet],
    }, block.failed || toPool.failed);
  },
};

export const coffeeStakingWithdrawMatcher: ActionMatcher = {
  name: 'coffee_staking_withdraw',
  ...op(COFFEE_OPS.stakingWithdraw),
  // The owner's request, not one of the forwards that follow it.
  test: (b) => isCall(b, COFFEE_OPS.stakingWithdraw) && b.node.kind === 'in' && !(b.prev && isCall(b.prev, COFFEE_OPS.stakingWithdraw)),
  child: stakingChain([COFFEE_OPS.stakingWithdraw]),
  build(block, matched) {
    const all = [block, ...matched];
    const transfer = all.flatMap((b) => b.next).find((b) => b.type === 'jetton_transfer');
    const log = stakingLog(matched, COFFEE_OPS.stakingWithdraw);
    if (!transfer || !log) return null;
    const t = transfer.data!.details as JettonTransferDetails;
    const item = block.node.destination;
    const details = {
      source: block.node.source,
      source_jetton_wallet: t.receiver_jetton_wallet,
      pool: item,
      pool_jetton_wallet: t.sender_jetton_wallet,
      asset: t.asset,
      amount: t.amount,
      nft_address: item,
      nft_index: log.item_index.toString(),
      points: log.position.user_points.toString(),
    };
    return composite('coffee_staking_withdraw', [...all, transfer], {
      details,
      addresses: [details.source, details.source_jetton_wallet, item, t.sender_jetton_wallet],
    }, block.failed);
  },
};

export const coffeeStakingClaimRewardsMatcher: ActionMatcher = {
  name: 'coffee_staking_claim_rewards',
  ...op(COFFEE_OPS.stakingClaimRewards),
  test: (b) => isCall(b, COFFEE_OPS.stakingClaimRewards) && b.node.kind === 'in' && b.next.some((n) => n.type === 'jetton_transfer'),
  children: [ofType('jetton_transfer'), op(COFFEE_OPS.stakingClaimRewards, { optional: true })],
  build(block, matched) {
    const transfer = matched.find((b) => b.type === 'jetton_transfer');
    if (!transfer) return null;
    const t = transfer.data!.details as JettonTransferDetails;
    const details = {
      pool: t.sender,
      pool_jetton_wallet: t.sender_jetton_wallet,
      recipient: t.receiver,
      recipient_jetton_wallet: t.receiver_jetton_wallet,
      asset: t.asset,
      amount: t.amount,
    };
    return composite('coffee_staking_claim_rewards', [block, ...matched], {
      details,
      addresses: [t.sender, t.sender_jetton_wallet, t.receiver, t.receiver_jetton_wallet],
    }, block.failed);
  },
};

export const coffeeStakingMatchers: ActionMatcher[] = [coffeeStakingDepositMatcher, coffeeStakingWithdrawMatcher, coffeeStakingClaimRewardsMatcher];
