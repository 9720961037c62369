import { rethrowBugs } from '@tonstream/errors';
import {
  DEDUST_OPS, dedustDepositJettonPayload, dedustDepositTon, dedustDepositToPool, dedustPayoutFromPool, dedustSwapNotification,
  jettonBurn, jettonBurnNotification, jettonInternalTransfer, jettonNotify, jettonTransfer,
} from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher, MatchContext } from '../matcher.js';
import { anyOf, composite, ofType, op } from '../matcher.js';
import type { PostProcessor } from '../post-process.js';
import type { JettonTransferDetails } from './jettons.js';
import { jettonTransferMatcher, readInternalTransfer } from './jettons.js';
import { findBlocks, findOp, jettonWallet, raw, readAs } from './util.js';

/*
 * DeDust liquidity. A deposit needs both assets in one deposit contract: each asset goes user ->
 * vault -> factory (ask) -> deposit contract (top up); the top-up that completes it sends
 * deposit -> pool, which mints LP tokens (or rejects and refunds). The final deposit and, in the
 * same trace, the first asset's partial deposit are merged afterwards into one action.
 * Withdrawals: an LP burn whose notification makes the pool pay both assets out through vaults.
 */

type Amounted = { asset: string | null; amount: bigint | null; wallet: string | null };

/** The user -> vault leg: TON deposit to the vault, or transfer -> internal -> notify to a jetton vault. */
const vaultDeposit: Matcher = anyOf([
  op(dedustDepositTon.opcode),
  op(jettonNotify.opcode, { parent: op(jettonInternalTransfer.opcode, { parent: op(jettonTransfer.opcode) }) }),
]);

const jettonExcess: Matcher = { ...jettonTransferMatcher, optional: true };
const vaultExcess = (): Matcher => op(DEDUST_OPS.returnExcessFromVault, { optional: true, children: [jettonExcess, op(DEDUST_OPS.payout, { optional: true })] });
const excesses = (): Matcher[] => [ofType('ton_transfer', { optional: true }), vaultExcess(), vaultExcess()];

/** What one vault deposit put in: asset, amount, the user's wallet, the sender and the pool's target balances. */
function vaultDepositData(vaultCall: Block, ctx: MatchContext) {
  const ton = readAs(vaultCall, dedustDepositTon);
  if (ton) {
    return {
      sender: vaultCall.node.source,
      given: { asset: null, amount: ton.amount, wallet: null } as Amounted,
      targets: { asset0: ton.asset0, amount0: ton.params.asset0_target_balance, asset1: ton.asset1, amount1: ton.params.asset1_target_balance },
    };
  }
  const notify = readAs(vaultCall, jettonNotify);
  if (!notify) return null;
  let payload;
  try {
    payload = dedustDepositJettonPayload.read(notify.forward_payload.beginParse());
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
  const internal = vaultCall.prev;
  return {
    sender: raw(notify.sender),
    given: { asset: jettonWallet(ctx, vaultCall.node.source)?.jetton ?? null, amount: notify.amount, wallet: internal?.node.source ?? null } as Amounted,
    targets: { asset0: payload.asset0, amount0: payload.asset0_target_balance, asset1: payload.asset1, amount1: payload.asset1_target_balance },
  };
}

type DepositData = {
  depositContract: string | null;
  sender: string | null;
  pool: string | null;
  lpTokens: bigint | null;
  given: Amounted[];
  targets: { asset0: string | null; amount0: bigint; asset1: string | null; amount1: bigint };
  excesses: { asset: string | null; amount: string }[];
};

function details(d: DepositData): Record<string, unknown> {
  const [a, b] = [d.given[0], d.given[1]];
  return {
    dex: 'dedust',
    source: d.sender,
    pool: d.pool,
    destination_liquidity: d.depositContract,
    asset_1: a?.asset ?? null,
    amount_1: a?.amount?.toString() ?? null,
    user_jetton_wallet_1: a?.wallet ?? null,
    asset_2: b?.asset ?? null,
    amount_2: b?.amount?.toString() ?? null,
    user_jetton_wallet_2: b?.wallet ?? null,
    lp_tokens_minted: d.lpTokens?.toString() ?? null,
    target_asset_1: d.targets.asset0,
    target_amount_1: d.targets.amount0.toString(),
    target_asset_2: d.targets.asset1,
    target_amount_2: d.targets.amount1.toString(),
    vault_excesses: d.excesses,
  };
}

const DEPOSIT_DATA = new WeakMap<Block, DepositData>();

function depositBlock(type: string, include: Block[], d: DepositData, failed: boolean): Block[] | null {
  const r = composite(type, include, { details: details(d), addresses: [d.sender, d.pool, d.depositContract], publicType: 'dex_deposit_liquidity' }, failed);
  if (r) DEPOSIT_DATA.set(r[0], d);
  return r;
}

export const dedustDepositMatcher: ActionMatcher = {
  name: 'dedust_deposit_liquidity',
  ...op(dedustDepositToPool.opcode),
  parent: op(DEDUST_OPS.topUpDepositContract, {
    parent: op(DEDUST_OPS.askLiquidityFactory, { parent: vaultDeposit, child: op(DEDUST_OPS.deployDepositContract, { optional: true }) }),
  }),
  children: [
    anyOf([
      op(jettonInternalTransfer.opcode, { child: op(jettonNotify.opcode, { optional: true }) }),
      op(DEDUST_OPS.depositRejected, { children: excesses() }),
    ]),
    op(DEDUST_OPS.destroyDepositContract, { optional: true, children: excesses() }),
  ],
  build(block, matched, ctx) {
    const body = readAs(block, dedustDepositToPool);
    if (!body) return null;
    const sender = raw(body.owner_addr);
    const lp = matched.find((b) => b.type === 'call_contract' && b.opcode === jettonInternalTransfer.opcode && b.prev === block);
    const rejection = findOp(matched, DEDUST_OPS.depositRejected);
    if (!lp && !rejection) return null;
    const vaultCall = matched.find((b) => b.type === 'call_contract' && (b.opcode === dedustDepositTon.opcode || b.opcode === jettonNotify.opcode) && b.next.some((n) => n.opcode === DEDUST_OPS.askLiquidityFactory));
    const vault = vaultCall ? vaultDepositData(vaultCall, ctx) : null;
    if (!vault) return null;
    // The user's wallet of the deposited jetton, when this trace has the user's transfer.
    const userTransfer = matched.find((b) => b.type === 'call_contract' && b.opcode === jettonTransfer.opcode && b.node.source === sender);
    const given: Amounted = { ...vault.given, wallet: userTransfer && jettonWallet(ctx, userTransfer.node.destination)?.jetton === vault.given.asset ? userTransfer.node.destination : null };
    // Excesses the vaults paid back to the user: TON first, then jettons (toncenter's order).
    const found: { asset: string | null; amount: string }[] = [];
    for (const b of findBlocks(matched, (x) => x.type === 'call_contract' && x.opcode === DEDUST_OPS.payout)) {
      if (b.node.destination === sender) found.push({ asset: null, amount: b.node.msg?.value ?? '0' });
    }
    for (const b of findBlocks(matched, (x) => x.type === 'jetton_transfer')) {
      const t = b.data!.details as JettonTransferDetails;
      if (t.receiver === sender) found.push({ asset: t.asset, amount: t.amount });
    }
    const lpBody = lp ? readInternalTransfer(lp) : null;
    const d: DepositData = {
      depositContract: block.node.source,
      sender,
      pool: lp ? block.node.destination : (rejection?.node.source ?? null),
      lpTokens: lpBody?.amount ?? null,
      given: [given],
      targets: { asset0: body.balances.asset0, amount0: body.balances.asset0_amount, asset1: body.balances.asset1, amount1: body.balances.asset1_amount },
      excesses: found,
    };
    return depositBlock('dedust_deposit_liquidity', [block, ...matched], d, !lp);
  },
};

/** A deposit of the first asset only: the contract is deployed and topped up, the pool not called yet. */
export const dedustDepositFirstAssetMatcher: ActionMatcher = {
  name: 'dedust_deposit_liquidity_partial',
  ...op(DEDUST_OPS.topUpDepositContract),
  parent: op(DEDUST_OPS.askLiquidityFactory, { child: op(DEDUST_OPS.deployDepositContract), parent: vaultDeposit }),
  build(block, matched, ctx) {
    if (block.next.some((b) => b.type === 'call_contract' && (b.opcode === dedustDepositToPool.opcode || b.opcode === DEDUST_OPS.depositRejected))) return null;
    const vaultCall = block.prev?.prev;
    const vault = vaultCall ? vaultDepositData(vaultCall, ctx) : null;
    if (!vault) return null;
    const d: DepositData = {
      depositContract: block.node.destination,
      sender: vault.sender,
      pool: null,
      lpTokens: null,
      given: [vault.given],
      targets: { asset0: vault.targets.asset0, amount0: vault.targets.amount0, asset1: vault.targets.asset1, amount1: vault.targets.amount1 },
      excesses: [],
    };
    return depositBlock('dedust_deposit_liquidity_partial', [block, ...matched], d, block.failed);
  },
};

/** Merges a partial deposit into the final deposit of the same deposit contract in the same trace. */
export const mergeDedustDeposits: PostProcessor = (blocks) => {
  const partials = blocks.filter((b) => b.type === 'dedust_deposit_liquidity_partial');
  const finals = blocks.filter((b) => b.type === 'dedust_deposit_liquidity');
  const uses = new Map<string | null, number>();
  for (const b of [...partials, ...finals]) {
    const c = DEPOSIT_DATA.get(b)?.depositContract ?? null;
    uses.set(c, (uses.get(c) ?? 0) + 1);
  }
  if ([...uses.values()].some((n) => n > 2)) return blocks;
  const out = [...blocks];
  for (const partial of partials) {
    const first = DEPOSIT_DATA.get(partial)!;
    const final = finals.find((b) => DEPOSIT_DATA.get(b)!.depositContract === first.depositContract);
    if (!final) continue;
    const last = DEPOSIT_DATA.get(final)!;
    const merged = combine(first, last);
    if (!merged) continue;
    out.splice(out.indexOf(partial), 1);
    for (const n of partial.nodes) if (!final.nodes.includes(n)) final.nodes.push(n);
    if (partial.initiating && partial.initiating !== final.initiating && !final.nodes.includes(partial.initiating)) final.nodes.push(partial.initiating);
    final.children.push(...partial.children.filter((c) => !final.children.includes(c)));
    DEPOSIT_DATA.set(final, merged);
    final.data = { ...final.data!, details: details(merged), addresses: [merged.sender, merged.pool, merged.depositContract] };
  }
  return out;
};

/** The two deposits' assets: amounts of the same asset add up; the order is the deposits' order. */
function combine(first: DepositData, last: DepositData): DepositData | null {
  const targets = new Set([first.targets.asset0, first.targets.asset1]);
  if (targets.size !== new Set([last.targets.asset0, last.targets.asset1, ...targets]).size) return null;
  const given: Amounted[] = [];
  for (const g of [...first.given, ...last.given]) {
    const same = given.find((x) => x.asset === g.asset);
    if (same) {
      if (same.wallet && g.wallet && same.wallet !== g.wallet) return null;
      same.amount = (same.amount ?? 0n) + (g.amount ?? 0n);
      same.wallet = g.wallet ?? same.wallet;
    } else given.push({ ...g });
  }
  if (given.length !== 2 || !given.every((g) => targets.has(g.asset))) return null;
  return { ...last, given, targets: { ...last.targets, asset0: given[0].asset, asset1: given[1].asset } };
}

export const dedustWithdrawMatcher: ActionMatcher = {
  name: 'dedust_withdraw_liquidity',
  ...op(jettonBurn.opcode),
  child: op(jettonBurnNotification.opcode, {
    children: [
      op(DEDUST_OPS.payoutFromPool, { child: anyOf([op(DEDUST_OPS.payout), ofType('jetton_transfer')]) }),
      op(DEDUST_OPS.payoutFromPool, { child: anyOf([op(DEDUST_OPS.payout), ofType('jetton_transfer')]) }),
    ],
  }),
  build(block, matched, ctx) {
    const burn = readAs(block, jettonBurn);
    const lpWallet = jettonWallet(ctx, block.node.destination);
    const notification = findOp(matched, jettonBurnNotification.opcode);
    if (!burn || !lpWallet || !notification) return null;
    const outs = matched
      .filter((b) => b.type === 'call_contract' && b.opcode === DEDUST_OPS.payoutFromPool)
      .map((request) => {
        const payout = request.next.find((b) => (b.type === 'call_contract' && b.opcode === DEDUST_OPS.payout) || b.type === 'jetton_transfer');
        const amount = readAs(request, dedustPayoutFromPool)?.amount ?? null;
        if (!payout) return null;
        if (payout.type === 'jetton_transfer') {
          const t = payout.data!.details as JettonTransferDetails;
          return { asset: t.asset, amount, wallet: t.receiver_jetton_wallet };
        }
        return { asset: null, amount, wallet: null };
      });
    if (outs.some((o) => o === null)) return null;
    const [a, b] = outs as { asset: string | null; amount: bigint | null; wallet: string | null }[];
    const pool = notification.node.destination;
    const details = {
      dex: 'dedust',
      source: block.node.source,
      pool,
      destination_liquidity: pool,
      asset_1: a.asset,
      amount_1: a.amount?.toString() ?? null,
      user_jetton_wallet_1: a.wallet,
      asset_2: b.asset,
      amount_2: b.amount?.toString() ?? null,
      user_jetton_wallet_2: b.wallet,
      lp_tokens_burnt: burn.amount.toString(),
      is_refund: null,
    };
    return composite('dex_withdraw_liquidity', [block, ...matched], { details, addresses: [block.node.source, block.node.destination, pool] }, block.failed);
  },
};


type SwapLeg = { asset: string | null; amount: string | null; source: string | null; source_jetton_wallet: string | null; destination: string | null; destination_jetton_wallet: string | null };

const isCall = (b: Block, opcode: number) => b.type === 'call_contract' && b.opcode === opcode;

/**
 * DeDust swaps: the user's transfer to a vault (jetton transfer, or a TON `swap` to the TON vault),
 * vault -> pool swap, each pool logging a swap notification and passing on (swap_peer) to the next
 * pool, the last asking a vault to pay out (payout_from_pool -> jetton transfer or TON payout).
 */
export const dedustSwapMatcher: ActionMatcher = {
  name: 'dedust_swap',
  test: (b) => isCall(b, DEDUST_OPS.swapExternal) && b.prev !== null && (b.prev.type === 'jetton_transfer' || isCall(b.prev, DEDUST_OPS.swap)),
  build(block) {
    const inBlock = block.prev!;
    const include: Block[] = [inBlock, block];
    const steps: NonNullable<ReturnType<typeof readAs<typeof dedustSwapNotification>>>[] = [];
    let pool: Block | undefined = block;
    let payoutRequest: Block | undefined;
    while (pool) {
      const log = pool.next.find((b) => isCall(b, DEDUST_OPS.swapNotification));
      const body = log ? readAs(log, dedustSwapNotification) : null;
      if (!log || !body) return null;
      steps.push(body);
      include.push(log);
      const peer: Block | undefined = pool.next.find((b) => isCall(b, DEDUST_OPS.swapPeer));
      if (peer) {
        include.push(peer);
        pool = peer;
        continue;
      }
      payoutRequest = pool.next.find((b) => isCall(b, DEDUST_OPS.payoutFromPool));
      pool = undefined;
    }
    if (!payoutRequest) return null;
    include.push(payoutRequest);
    const out = payoutRequest.next.find((b) => b.type === 'jetton_transfer' || isCall(b, DEDUST_OPS.payout));
    if (!out) return null;
    include.push(out);
    const first = steps[0];
    const last = steps[steps.length - 1];
    const sender = raw(first.extra.sender_address);
    const inT = inBlock.type === 'jetton_transfer' ? (inBlock.data!.details as JettonTransferDetails) : null;
    const outT = out.type === 'jetton_transfer' ? (out.data!.details as JettonTransferDetails) : null;
    const incoming: SwapLeg = {
      asset: first.asset_in,
      amount: first.amount_in.toString(),
      source: sender,
      source_jetton_wallet: inT?.sender_jetton_wallet ?? null,
      destination: inT ? inT.receiver : inBlock.node.destination,
      destination_jetton_wallet: inT?.receiver_jetton_wallet ?? null,
    };
    const outgoing: SwapLeg = {
      asset: last.asset_out,
      amount: last.amount_out.toString(),
      source: outT ? outT.sender : out.node.source,
      source_jetton_wallet: outT?.sender_jetton_wallet ?? null,
      destination: outT ? outT.receiver : out.node.destination,
      destination_jetton_wallet: outT?.receiver_jetton_wallet ?? null,
    };
    const peerSwaps = steps.map((s) => ({ asset_in: s.asset_in, amount_in: s.amount_in.toString(), asset_out: s.asset_out, amount_out: s.amount_out.toString() }));
    for (const b of [...include]) for (const n of b.next) if ((isCall(n, 0xd53276db) || isCall(n, 0xffffffff)) && !include.includes(n)) include.push(n);
    const details = {
      dex: 'dedust',
      sender,
      asset_in: incoming.asset,
      asset_out: outgoing.asset,
      dex_incoming_transfer: incoming,
      dex_outgoing_transfer: outgoing,
      peer_swaps: peerSwaps.length > 1 ? peerSwaps : [],
    };
    return composite('jetton_swap', include, {
      details,
      addresses: [sender, incoming.source_jetton_wallet, outgoing.destination, outgoing.destination_jetton_wallet],
    }, inBlock.failed);
  },
};
