import { ETHENA_TIMELOCKED_TRANSFER_OP, ETHENA_TSUSDE_MASTER, ETHENA_USDE_MASTER, ethenaTimelockedTransfer, jettonInternalTransfer, jettonMint, jettonNotify, jettonTransfer } from '@tonstream/contracts';
import type { ActionMatcher } from '../matcher.js';
import { chain, composite, ofType, op } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findOp, jettonWallet, readAs } from './util.js';

/*
 * Ethena (provider `ethena`): staking USDe mints tsUSDe to the staker (`stake_deposit`); unstaking
 * sends tsUSDe to the pool, which has the minter move it to a timelocked wallet (`stake_withdrawal_request`).
 */

export const ethenaDepositMatcher: ActionMatcher = {
  name: 'ethena_deposit',
  ...ofType('jetton_transfer'),
  child: ofType('jetton_mint'),
  build(block, matched) {
    const t = block.data!.details as JettonTransferDetails;
    const mint = matched.find((b) => b.type === 'jetton_mint');
    if (!mint || t.asset !== ETHENA_USDE_MASTER || mint.data!.details.asset !== ETHENA_TSUSDE_MASTER) return null;
    const details = {
      provider: 'ethena',
      stake_holder: t.sender,
      pool: t.receiver,
      amount: t.amount,
      tokens_minted: mint.data!.details.amount,
      asset: ETHENA_TSUSDE_MASTER,
      source_asset: ETHENA_USDE_MASTER,
    };
    // toncenter's Ethena builders never mark their action failed.
    return composite('ethena_deposit', [block, mint], { details, addresses: [t.sender, t.sender_jetton_wallet, t.receiver], publicType: 'stake_deposit' });
  },
};

export const ethenaWithdrawalRequestMatcher: ActionMatcher = {
  name: 'ethena_withdrawal_request',
  ...op(jettonTransfer.opcode),
  child: chain(op(jettonInternalTransfer.opcode), op(jettonNotify.opcode), op(jettonMint.opcode), op(ETHENA_TIMELOCKED_TRANSFER_OP)),
  build(block, matched, ctx) {
    const internal = findOp(matched, jettonInternalTransfer.opcode);
    const mint = findOp(matched, jettonMint.opcode);
    const timelocked = findOp(matched, ETHENA_TIMELOCKED_TRANSFER_OP);
    if (!internal || !mint || !timelocked) return null;
    const source = block.node.source;
    const sourceWallet = jettonWallet(ctx, block.node.destination);
    const receiverWallet = jettonWallet(ctx, timelocked.node.destination);
    if (!sourceWallet || !receiverWallet || sourceWallet.owner !== source || receiverWallet.owner !== source) return null;
    if (sourceWallet.jetton !== internal.node.destination || receiverWallet.jetton !== timelocked.node.source) return null;
    // The minted amount is the timelocked transfer's own (an internal_transfer layout under opcode
    // 0xb2583ed5); toncenter does not match when that body does not read.
    const minted = readAs(timelocked, ethenaTimelockedTransfer);
    if (!minted) return null;
    const details = {
      provider: 'ethena',
      stake_holder: source,
      pool: mint.node.source,
      payout_nft: null,
      asset: sourceWallet.jetton,
      tokens_burnt: null,
      tokens_minted: minted.amount.toString(),
    };
    return composite('ethena_withdrawal_request', [block, ...matched], {
      details,
      addresses: [source, block.node.destination, mint.node.source, timelocked.node.destination],
      publicType: 'stake_withdrawal_request',
    });
  },
};
