import { jettonNotify, ptonTonTransfer } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, MatchContext } from '../matcher.js';
import { OP_BOUNCE, OP_EXCESSES, composite } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { PTON_MASTERS } from './jettons.js';
import { jettonWallet, readAs } from './util.js';

/*
 * Swaps on router DEXes (STON.fi v2, TONCO), one or several hops: the incoming transfer (a jetton
 * transfer to the router, or pTON `ton_transfer` + notify), then per hop router -> pool swap and
 * pool -> router payout, each hop's output sent to the next hop (directly, as a jetton transfer, or
 * as pTON and its notify) or to the user. A DEX plugs in its opcodes and payout reading.
 */

export type Leg = { asset: string | null; amount: string | null; source: string | null; source_jetton_wallet: string | null; destination: string | null; destination_jetton_wallet: string | null };

const isCall = (b: Block, opcode: number) => b.type === 'call_contract' && b.opcode === opcode;

/** The asset a router wallet holds: its jetton, or null (TON) for pTON wallets. */
function assetOf(ctx: MatchContext, wallet: string | null): string | null {
  const jetton = jettonWallet(ctx, wallet)?.jetton ?? null;
  return jetton && PTON_MASTERS.has(jetton) ? null : jetton;
}

/** The incoming leg right before a swap: a jetton_transfer, or a pTON ton_transfer and its notify. */
function incoming(swap: Block): { blocks: Block[]; leg: Leg } | null {
  const prev = swap.prev;
  if (!prev) return null;
  if (prev.type === 'jetton_transfer') {
    const t = prev.data!.details as JettonTransferDetails;
    return { blocks: [prev], leg: { asset: t.asset && PTON_MASTERS.has(t.asset) ? null : t.asset, amount: t.amount, source: t.sender, source_jetton_wallet: t.sender_jetton_wallet, destination: t.receiver, destination_jetton_wallet: t.receiver_jetton_wallet } };
  }
  const pton = prev.prev;
  if (isCall(prev, jettonNotify.opcode) && pton && isCall(pton, ptonTonTransfer.opcode)) {
    const body = readAs(pton, ptonTonTransfer);
    return {
      blocks: [pton, prev],
      leg: { asset: null, amount: String(body?.ton_amount ?? pton.node.value), source: pton.node.source, source_jetton_wallet: null, destination: swap.node.source, destination_jetton_wallet: pton.node.destination },
    };
  }
  return null;
}

type Hop = { swap: Block; payTo: Block; amountOut: bigint; assetOut: string | null; ok: boolean };

/** A router DEX's hop shape: its swap and payout opcodes and how a payout reads. */
export type RouterDex = {
  dex: string;
  swapOp: number;
  payToOp: number;
  /** Amount and router wallet paid out, and whether the pool reported success. */
  readPayout: (payTo: Block) => { amount: bigint; wallet: string | null; ok: boolean } | null;
  /** Extra details (e.g. TONCO's min_out_amount) from the first swap and the final amount out. */
  extraDetails?: (firstSwap: Block, amountOut: string | null) => Record<string, unknown>;
  /**
   * For a failed swap: the asset and minimum amount the user's request named, which replace
   * `asset_out` and the extra details' `min_out_amount`; null to keep what was paid out.
   */
  failedTarget?: (incoming: Block[], out: Leg, ctx: MatchContext) => { asset: string | null; minOut: string } | null;
};

/** Follows hops from a swap: its pay_to, then the transfer that feeds the next swap, until the final payout. */
function walk(dexSpec: RouterDex, first: Block, ctx: MatchContext): { hops: Hop[]; blocks: Block[]; out: Block | null } | null {
  const hops: Hop[] = [];
  const blocks: Block[] = [];
  let swap: Block | undefined = first;
  let out: Block | null = null;
  while (swap) {
    const payTo: Block | undefined = swap.next.find((b: Block) => isCall(b, dexSpec.payToOp));
    const payout = payTo ? dexSpec.readPayout(payTo) : null;
    if (!payTo || !payout) return null;
    hops.push({ swap, payTo, amountOut: payout.amount, assetOut: assetOf(ctx, payout.wallet), ok: payout.ok });
    blocks.push(swap, payTo);
    swap = payTo.next.find((b: Block) => isCall(b, dexSpec.swapOp));
    if (swap) continue;
    const transfer: Block | undefined = payTo.next.find((b: Block) => b.type === 'jetton_transfer');
    if (!transfer) return null;
    blocks.push(transfer);
    out = transfer;
    swap = transfer.next.find((b: Block) => isCall(b, dexSpec.swapOp));
    const pton: Block | undefined = transfer.next.find((b: Block) => isCall(b, ptonTonTransfer.opcode));
    if (!swap && pton) {
      blocks.push(pton);
      const notify: Block | undefined = pton.next.find((b: Block) => isCall(b, jettonNotify.opcode));
      swap = notify?.next.find((b: Block) => isCall(b, dexSpec.swapOp));
      if (swap && notify) blocks.push(notify);
    }
    if (swap) out = null;
  }
  return { hops, blocks, out };
}

/** The final transfer to the user: a jetton leg, or pTON paid out as TON. */
function outgoing(out: Block): { leg: Leg; extra: Block[] } {
  const t = out.data!.details as JettonTransferDetails;
  const pton = out.next.find((b) => isCall(b, ptonTonTransfer.opcode));
  if (pton || t.receiver_jetton_wallet === null) {
    const amount = pton ? readAs(pton, ptonTonTransfer)?.ton_amount.toString() ?? null : t.amount;
    return {
      leg: { asset: null, amount, source: t.sender, source_jetton_wallet: t.sender_jetton_wallet, destination: pton?.node.destination ?? t.receiver, destination_jetton_wallet: null },
      extra: pton ? [pton] : [],
    };
  }
  return { leg: { asset: t.asset, amount: t.amount, source: t.sender, source_jetton_wallet: t.sender_jetton_wallet, destination: t.receiver, destination_jetton_wallet: t.receiver_jetton_wallet }, extra: [] };
}

/** A router DEX's swap matcher (one or several hops). */
export function routerSwapMatcher(spec: RouterDex): ActionMatcher {
  return {
    name: `${spec.dex}_swap`,
    test: (b) => isCall(b, spec.swapOp) && incoming(b) !== null,
    build(block, _matched, ctx) {
      const inbound = incoming(block)!;
      const route = walk(spec, block, ctx);
      if (!route || !route.out) return null;
      const { leg: out, extra } = outgoing(route.out);
      const inLeg = inbound.leg;
      const peerSwaps = route.hops.map((hop, i) => ({
        asset_in: i === 0 ? inLeg.asset : route.hops[i - 1].assetOut,
        amount_in: i === 0 ? inLeg.amount : route.hops[i - 1].amountOut.toString(),
        asset_out: hop.assetOut,
        amount_out: hop.amountOut.toString(),
      }));
      const include = [...inbound.blocks, ...route.blocks, ...extra];
      // Excesses and bounces answering any block of the swap belong to it.
      for (const b of [...include]) for (const n of b.next) if (n.type === 'call_contract' && (n.opcode === OP_EXCESSES || n.opcode === OP_BOUNCE) && !include.includes(n)) include.push(n);
      const failed = !route.hops.every((h) => h.ok);
      const target = failed && spec.failedTarget ? spec.failedTarget(inbound.blocks, out, ctx) : null;
      const details = {
        dex: spec.dex,
        sender: inLeg.source,
        asset_in: inLeg.asset,
        asset_out: target ? target.asset : out.asset,
        dex_incoming_transfer: inLeg,
        dex_outgoing_transfer: out,
        peer_swaps: peerSwaps.length > 1 ? peerSwaps : [],
        ...(spec.extraDetails ? spec.extraDetails(block, out.amount) : {}),
        ...(target ? { min_out_amount: target.minOut } : {}),
      };
      return composite('jetton_swap', include, {
        details,
        addresses: [inLeg.source, inLeg.source_jetton_wallet, out.destination, out.destination_jetton_wallet],
      }, failed);
    },
  };
}
