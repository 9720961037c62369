import { rethrowBugs } from '@tonstream/errors';
import {
  EVAA_OPS, EVAA_TON_ASSET_ID, EVAA_WITHDRAW_FAIL_EXCESS, evaaSupplyJettonPayload, evaaSupplyMaster, evaaSupplySuccess,
  evaaWithdrawCollateralized, evaaWithdrawMaster, skipEvaaUserHeader, cellFromBase64,
} from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { anyOf, composite, ofType, op, where } from '../matcher.js';
import { readComment } from '../text.js';
import type { JettonTransferDetails } from './jettons.js';
import { findOp, raw, readAs } from './util.js';

/*
 * EVAA lending: supply (TON to the master, or a jetton transfer carrying the supply request) and
 * withdraw, each through the user's contract and back.
 */

const COMMENTS = ['EVAA liquidation.', 'EVAA supply.', 'EVAA withdraw.'];

/** The protocol's own TON transfers with an "EVAA ..." comment. */
const evaaComment: Matcher = where((b) => b.type === 'ton_transfer' && COMMENTS.includes(readComment(b.node.body())?.text ?? ''), { optional: true });

/** The opcode of a message to a user contract (after its header), or null. */
function userOpcode(block: Block): number | null {
  if (block.type !== 'call_contract' || block.nodes.length !== 1) return null;
  try {
    const s = block.node.body().beginParse();
    skipEvaaUserHeader(s);
    return s.loadUint(32);
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

/** Reads a user-contract message after its header: query_id then the asset id. */
function userAssetId(block: Block): bigint | null {
  try {
    const s = block.node.body().beginParse();
    skipEvaaUserHeader(s);
    s.loadUint(32);
    s.loadUintBig(64);
    return s.loadUintBig(256);
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

const userOp = (opcode: number, options: Partial<Matcher> = {}): Matcher => where((b) => userOpcode(b) === opcode, options);

const assetIdHex = (id: bigint | null) => (id === null ? null : `0x${id.toString(16).padStart(64, '0')}`);

function supplyPayload(t: JettonTransferDetails) {
  if (!t.forward_payload) return null;
  try {
    return evaaSupplyJettonPayload.read(cellFromBase64(t.forward_payload).beginParse());
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

export const evaaSupplyMatcher: ActionMatcher = {
  name: 'evaa_supply',
  test: (b) => (b.type === 'call_contract' && b.opcode === EVAA_OPS.supplyMaster) || (b.type === 'jetton_transfer' && supplyPayload(b.data!.details as JettonTransferDetails) !== null),
  child: userOp(EVAA_OPS.supplyUser, {
    child: anyOf([op(EVAA_OPS.supplySuccess, { child: evaaComment }), op(EVAA_OPS.supplyFail), ofType('jetton_transfer')]),
  }),
  build(block, matched) {
    const user = matched.find((b) => userOpcode(b) === EVAA_OPS.supplyUser);
    if (!user) return null;
    const success = findOp(matched, EVAA_OPS.supplySuccess);
    const fail = findOp(matched, EVAA_OPS.supplyFail);
    const refund = matched.find((b) => b.type === 'jetton_transfer');
    if (!success && !fail && !refund) return null;
    const isTon = block.type === 'call_contract';
    let d: Record<string, unknown>;
    if (isTon) {
      const body = readAs(block, evaaSupplyMaster);
      if (!body) return null;
      d = { source: block.node.source, source_wallet: null, recipient: raw(body.recipient_address), amount: body.supply_amount, master: block.node.destination, asset: null,
        sender_jetton_wallet: null, recipient_jetton_wallet: null, master_jetton_wallet: null };
    } else {
      const t = block.data!.details as JettonTransferDetails;
      const payload = supplyPayload(t)!;
      const recipient = raw(payload.recipient_address);
      // Supplying for someone else: their wallet is where the master's wallet sent jettons.
      const other = matched.find((b) => b.type === 'jetton_transfer' && (b.data!.details as JettonTransferDetails).sender_jetton_wallet === t.receiver_jetton_wallet);
      const recipientWallet = recipient === t.sender ? t.sender_jetton_wallet : other ? (other.data!.details as JettonTransferDetails).receiver_jetton_wallet : null;
      d = { source: t.sender, source_wallet: t.sender_jetton_wallet, recipient, amount: BigInt(t.amount), master: t.receiver, asset: t.asset,
        sender_jetton_wallet: t.sender_jetton_wallet, recipient_jetton_wallet: recipientWallet, master_jetton_wallet: t.receiver_jetton_wallet };
    }
    const supplied = success ? readAs(success, evaaSupplySuccess)?.amount_supplied : undefined;
    const details = {
      sender_jetton_wallet: d.sender_jetton_wallet,
      recipient_jetton_wallet: d.recipient_jetton_wallet,
      master_jetton_wallet: d.master_jetton_wallet,
      master: d.master,
      asset_id: assetIdHex(userAssetId(user)),
      is_ton: isTon,
      source: d.source,
      source_wallet: d.source_wallet,
      recipient: d.recipient,
      recipient_contract: user.node.destination,
      asset: d.asset,
      amount: String(supplied ?? d.amount),
    };
    return composite('evaa_supply', [block, ...matched], {
      details,
      addresses: [details.source as string, details.source_wallet as string | null, details.recipient as string | null, details.recipient_contract],
    }, !success);
  },
};

export const evaaWithdrawMatcher: ActionMatcher = {
  name: 'evaa_withdraw',
  ...op(EVAA_OPS.withdrawMaster),
  child: userOp(EVAA_OPS.withdrawUser, {
    child: anyOf([
      op(EVAA_OPS.withdrawCollateralized, {
        children: [
          anyOf([ofType('jetton_transfer'), op(EVAA_OPS.withdrawSuccess, { child: evaaComment })]),
          userOp(EVAA_OPS.withdrawSuccess, { child: ofType('ton_transfer') }),
        ],
      }),
      op(EVAA_OPS.withdrawCollateralized, { child: userOp(EVAA_OPS.withdrawFail, { child: op(EVAA_OPS.withdrawNoFundsExcess) }) }),
      op(Object.keys(EVAA_WITHDRAW_FAIL_EXCESS).map(Number)),
    ]),
  }),
  build(block, matched) {
    const body = readAs(block, evaaWithdrawMaster);
    const user = matched.find((b) => userOpcode(b) === EVAA_OPS.withdrawUser);
    if (!body || !user) return null;
    const isTon = body.asset_id === EVAA_TON_ASSET_ID;
    const base = {
      recipient_jetton_wallet: null as string | null,
      master_jetton_wallet: null as string | null,
      master: block.node.destination,
      fail_reason: null as string | null,
      asset_id: assetIdHex(body.asset_id),
      source: block.node.source,
      recipient: raw(body.recipient_address),
      owner_contract: user.node.destination,
      asset: null as string | null,
      amount: body.amount.toString(),
    };
    const collateralized = findOp(matched, EVAA_OPS.withdrawCollateralized);
    const noFunds = findOp(matched, EVAA_OPS.withdrawNoFundsExcess);
    const failExcess = matched.find((b) => b.type === 'call_contract' && b.opcode !== null && b.opcode in EVAA_WITHDRAW_FAIL_EXCESS);
    let failed = true;
    if (collateralized && !noFunds) {
      const c = readAs(collateralized, evaaWithdrawCollateralized);
      if (!c) return null;
      base.amount = c.withdraw_amount_current.toString();
      if (!isTon) {
        const payout = matched.find((b) => b.type === 'jetton_transfer');
        if (!payout) return null;
        const t = payout.data!.details as JettonTransferDetails;
        base.asset = t.asset;
        base.recipient_jetton_wallet = t.receiver_jetton_wallet;
        base.master_jetton_wallet = t.sender_jetton_wallet;
      } else if (!matched.some((b) => b.type === 'call_contract' && b.opcode === EVAA_OPS.withdrawSuccess)) return null;
      failed = false;
    } else if (noFunds) {
      base.fail_reason = 'withdraw_no_funds_excess';
    } else if (failExcess) {
      base.fail_reason = EVAA_WITHDRAW_FAIL_EXCESS[failExcess.opcode!];
    } else return null;
    return composite('evaa_withdraw', [block, ...matched], { details: base, addresses: [base.source, base.recipient, base.owner_contract] }, failed);
  },
};

export const evaaMatchers: ActionMatcher[] = [evaaSupplyMatcher, evaaWithdrawMatcher];
