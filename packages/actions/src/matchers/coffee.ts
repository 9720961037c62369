import { rethrowBugs } from '@tonstream/errors';
import { COFFEE_OPS, coffeeCreateVault, coffeeLiquidityWithdrawalEvent, coffeeSwapNative, coffeeSwapSuccessfulEvent, cellFromBase64 } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { OP_BOUNCE, OP_EXCESSES, anyOf, composite, ofType, op, where } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findOp, readAs } from './util.js';

/*
 * swap.coffee swaps: the user's transfer to a vault (jetton transfer, or swap_native with TON),
 * vault -> pool swap_internal, each pool logging a swap_successful_event and passing on to the next
 * pool, the last one asking a vault to pay out (payout_internal -> jetton transfer or TON payout).
 */

const isCall = (b: Block, opcode: number) => b.type === 'call_contract' && b.opcode === opcode;

type Leg = { asset: string | null; amount: string | null; source: string | null; source_jetton_wallet: string | null; destination: string | null; destination_jetton_wallet: string | null };

function incomingLeg(prev: Block | null): Leg | null {
  if (!prev) return null;
  if (prev.type === 'jetton_transfer') {
    const t = prev.data!.details as JettonTransferDetails;
    return { asset: t.asset, amount: t.amount, source: t.sender, source_jetton_wallet: t.sender_jetton_wallet, destination: t.receiver, destination_jetton_wallet: t.receiver_jetton_wallet };
  }
  if (isCall(prev, COFFEE_OPS.swapNative)) {
    const body = readAs(prev, coffeeSwapNative);
    return { asset: null, amount: body?.amount.toString() ?? null, source: prev.node.source, source_jetton_wallet: null, destination: prev.node.destination, destination_jetton_wallet: null };
  }
  return null;
}

export const coffeeSwapMatcher: ActionMatcher = {
  name: 'coffee_swap',
  test: (b) => isCall(b, COFFEE_OPS.swapInternal) && incomingLeg(b.prev) !== null,
  build(block) {
    const inLeg = incomingLeg(block.prev)!;
    const include: Block[] = [block.prev!, block];
    const events: NonNullable<ReturnType<typeof readAs<typeof coffeeSwapSuccessfulEvent>>>[] = [];
    let hop: Block | undefined = block;
    let payoutInternal: Block | undefined;
    while (hop) {
      const event = hop.next.find((b) => isCall(b, COFFEE_OPS.swapSuccessfulEvent));
      const body = event ? readAs(event, coffeeSwapSuccessfulEvent) : null;
      if (!event || !body) return null;
      events.push(body);
      include.push(event);
      const next: Block | undefined = hop.next.find((b) => isCall(b, COFFEE_OPS.swapInternal));
      if (next) {
        include.push(next);
        hop = next;
        continue;
      }
      payoutInternal = hop.next.find((b) => isCall(b, COFFEE_OPS.payoutInternal));
      hop = undefined;
    }
    if (!payoutInternal) return null;
    include.push(payoutInternal);
    const out = payoutInternal.next.find((b) => b.type === 'jetton_transfer' || isCall(b, COFFEE_OPS.payout) || isCall(b, COFFEE_OPS.notification));
    if (!out) return null;
    include.push(out);
    const last = events[events.length - 1];
    let outLeg: Leg;
    if (out.type === 'jetton_transfer') {
      const t = out.data!.details as JettonTransferDetails;
      outLeg = { asset: t.asset, amount: t.amount, source: t.sender, source_jetton_wallet: t.sender_jetton_wallet, destination: t.receiver, destination_jetton_wallet: t.receiver_jetton_wallet };
    } else if (isCall(out, COFFEE_OPS.notification)) {
      // TON handed on to another contract (a next DEX hop): what the vault sent is the output.
      outLeg = { asset: null, amount: out.node.msg?.value ?? null, source: out.node.source, source_jetton_wallet: null, destination: out.node.destination, destination_jetton_wallet: null };
    } else {
      outLeg = { asset: null, amount: last.output_amount.toString(), source: payoutInternal.node.source, source_jetton_wallet: null, destination: out.node.destination, destination_jetton_wallet: null };
    }
    const peerSwaps = events.map((e, i) => ({
      asset_in: e.input,
      amount_in: e.input_amount.toString(),
      asset_out: i + 1 < events.length ? events[i + 1].input : outLeg.asset,
      amount_out: e.output_amount.toString(),
    }));
    for (const b of [...include]) for (const n of b.next) if ((isCall(n, OP_EXCESSES) || isCall(n, OP_BOUNCE)) && !include.includes(n)) include.push(n);
    const details = {
      dex: 'coffee',
      sender: inLeg.source,
      asset_in: inLeg.asset,
      asset_out: outLeg.asset,
      dex_incoming_transfer: inLeg,
      dex_outgoing_transfer: outLeg,
      peer_swaps: peerSwaps.length > 1 ? peerSwaps : [],
    };
    return composite('jetton_swap', include, {
      details,
      addresses: [inLeg.source, inLeg.source_jetton_wallet, outLeg.destination, outLeg.destination_jetton_wallet],
    }, block.failed);
  },
};

/** Everything a factory / vault / pool step sends on, recursively. */
function anyChain(): Matcher {
  const m = where((b) => b.type === 'call_contract' && b.node.kind === 'in', { optional: true });
  m.child = m;
  return m;
}

export const coffeeCreateVaultMatcher: ActionMatcher = {
  name: 'coffee_create_vault',
  ...op(COFFEE_OPS.createVault),
  child: op(COFFEE_OPS.deploy, { child: anyChain() }),
  build(block, matched) {
    const body = readAs(block, coffeeCreateVault);
    const deploy = findOp(matched, COFFEE_OPS.deploy);
    if (!body || !deploy) return null;
    const details = { source: block.node.source, vault: deploy.node.destination, asset: body.asset, value: block.node.msg?.value ?? null };
    return composite('coffee_create_vault', [block, ...matched], { details, addresses: [details.source, details.vault] }, block.failed || deploy.failed);
  },
};

/** MEV protection: the user's funds held by the protector before the swap (TON, or a jetton transfer carrying the request). */
export const coffeeMevProtectHoldFundsMatcher: ActionMatcher = {
  name: 'coffee_mev_protect_hold_funds',
  test: (b) => isCall(b, COFFEE_OPS.mevProtectHoldFunds) || (b.type === 'jetton_transfer' && payloadOpcode((b.data!.details as JettonTransferDetails).forward_payload) === COFFEE_OPS.mevProtectHoldFunds),
  build(block, matched) {
    let details: Record<string, unknown>;
    if (block.type === 'jetton_transfer') {
      const t = block.data!.details as JettonTransferDetails;
      details = { source: t.sender, source_jetton_wallet: t.sender_jetton_wallet, mev_contract: t.receiver, mev_contract_jetton_wallet: t.receiver_jetton_wallet, asset: t.asset, amount: t.amount };
    } else {
      details = { source: block.node.source, source_jetton_wallet: null, mev_contract: block.node.destination, mev_contract_jetton_wallet: null, asset: null, amount: block.node.msg?.value ?? null };
    }
    return composite('coffee_mev_protect_hold_funds', [block, ...matched], {
      details,
      addresses: [details.source as string, details.source_jetton_wallet as string | null, details.mev_contract as string, details.mev_contract_jetton_wallet as string | null],
    }, block.failed);
  },
};

function payloadOpcode(payload: string | null): number | null {
  if (!payload) return null;
  try {
    const cell = cellFromBase64(payload);
    return cell.bits.length >= 32 ? cell.beginParse().preloadUint(32) : null;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

/** LP burn: the pool logs the withdrawal and has each asset's vault pay its part out. */
export const coffeeWithdrawLiquidityMatcher: ActionMatcher = {
  name: 'coffee_withdraw_liquidity',
  ...ofType('jetton_burn'),
  children: [
    where((b) => isCall(b, COFFEE_OPS.liquidityWithdrawalEvent) && b.node.kind === 'log'),
    op(COFFEE_OPS.payoutInternal, { child: anyOf([ofType('jetton_transfer'), op(COFFEE_OPS.payout)]) }),
    op(COFFEE_OPS.payoutInternal, { child: anyOf([ofType('jetton_transfer'), op(COFFEE_OPS.payout)]) }),
  ],
  build(block, matched) {
    const log = findOp(matched, COFFEE_OPS.liquidityWithdrawalEvent);
    const event = log ? readAs(log, coffeeLiquidityWithdrawalEvent) : null;
    if (!event) return null;
    const burn = block.data!.details;
    const payouts = matched.filter((b) => b.type === 'jetton_transfer' || isCall(b, COFFEE_OPS.payout)).map((b) => {
      if (b.type === 'jetton_transfer') {
        const t = b.data!.details as JettonTransferDetails;
        return { asset: t.asset, amount: t.amount, wallet: t.receiver_jetton_wallet };
      }
      return { asset: null, amount: null, wallet: null };
    });
    // toncenter pairs the event's amounts with the payouts in the order it matched them.
    const none = { asset: null, amount: null, wallet: null };
    const [a, b] = [payouts[0] ?? none, payouts[1] ?? none];
    const pool = log!.node.source;
    const details = {
      dex: 'coffee',
      source: burn.owner,
      pool,
      destination_liquidity: pool,
      lp_tokens_burnt: event.lp_amount.toString(),
      amount_1: event.amount1.toString(),
      asset_1: a.asset,
      user_jetton_wallet_1: a.wallet,
      amount_2: event.amount2.toString(),
      asset_2: b.asset,
      user_jetton_wallet_2: b.wallet,
      is_refund: null,
    };
    return composite('dex_withdraw_liquidity', [block, ...matched], {
      details,
      addresses: [burn.owner as string, burn.owner_jetton_wallet as string, pool],
    }, block.failed);
  },
};
