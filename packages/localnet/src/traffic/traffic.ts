import { type Address, beginCell, internal, type MessageRelaxed, toNano } from '@ton/core';
import type { Chain } from '../chain.js';
import type { RoundResult } from '../round.js';
import { type LocalnetLogger, silentLogger } from '../types.js';
import { createJetton, createNftSet, JETTON_GAS, jettonBurnBody, jettonMintBody, jettonTransferBody, NFT_GAS, nftMintBody, nftTransferBody, type Jetton, type NftSet } from './assets.js';
import { createMultisig, type Multisig } from './multisig.js';
import { createRandom } from './random.js';
import { createVesting, type Vesting } from './vesting.js';
import { createWallet, MAX_MESSAGES, WALLET_KINDS, type Wallet, type WalletKind } from './wallets.js';

/** TON each genesis wallet starts with (credited outside any transaction, like a zerostate). */
export const GENESIS_BALANCE = toNano(10_000);
/** TON a reserve wallet receives by a real transfer before it deploys itself. */
export const RESERVE_FUNDING = toNano(100);
/** Externals a highload v3 wallet may have in one round (each with its own query id). */
export const HIGHLOAD_PER_ROUND = 4;
/** Rounds between funding a reserve wallet and its first external: delivered next round, then usable. */
const FUNDING_DELAY_ROUNDS = 2;
/**
 * Rounds until jettons or an NFT reach their new owner (wallet, then minter or sender's jetton wallet,
 * then the receiver's): only then does the model let the owner spend them, so most failures are the
 * deliberate ones.
 */
const ASSET_DELAY_ROUNDS = 4;

export const ACTION_KINDS = ['transfer', 'fund_new', 'bounce', 'jetton_mint', 'jetton_transfer', 'jetton_burn', 'jetton_bad_transfer', 'nft_mint', 'nft_transfer', 'bad_op', 'multisig_order', 'vesting_withdraw'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Default mix: mostly TON and Jetton transfers, some of every kind of failure. */
export const DEFAULT_MIX: Record<ActionKind, number> = {
  transfer: 30,
  fund_new: 4,
  bounce: 6,
  jetton_mint: 8,
  jetton_transfer: 20,
  jetton_burn: 4,
  jetton_bad_transfer: 4,
  nft_mint: 8,
  nft_transfer: 10,
  bad_op: 2,
  multisig_order: 3,
  vesting_withdraw: 3,
};
/** The vesting schedule: 1000 TON over 20 years from Nov 2023, unlocked daily; fixed so the address is too. */
const VESTING = { startTime: 1_700_000_000, totalDuration: 20 * 365 * 86_400, unlockPeriod: 86_400, cliffDuration: 0, totalAmount: toNano(1000) };

export type TrafficOptions = {
  /** Seeds keys, choices and amounts: the same seed on the same chain gives the same traffic. */
  seed: string;
  /** Actions started per round (each becomes one message of a signed external). Default 10. */
  ratePerRound?: number;
  /** Genesis-funded wallets (kinds in turn: v3r2, v4r2, v5r1, highload v3). Default max(8, 1.5 x rate). */
  wallets?: number;
  /** Wallets funded later by real transfers (then deployed). Default wallets / 4. */
  reserveWallets?: number;
  /** Relative weights of the action kinds. Default DEFAULT_MIX. */
  mix?: Partial<Record<ActionKind, number>>;
  logger?: LocalnetLogger;
};

export type TrafficWallet = { kind: WalletKind; address: Address; deployed: boolean; reserve: boolean };

export type Traffic = {
  /** Signs and submits this round's externals; call before `chain.produceRound()`. Returns how many. */
  submitRound(): Promise<number>;
  /** `submitRound()` then `chain.produceRound()`. */
  step(): Promise<RoundResult>;
  wallets(): TrafficWallet[];
  readonly jetton: Jetton;
  readonly nft: NftSet;
  readonly multisig: Multisig;
  readonly vesting: Vesting;
  /** Actions planned so far, by kind, and externals the chain rejected. */
  stats(): { actions: Record<ActionKind, number>; externals: number; rejected: number };
  /** Stops listening to the chain's rounds. */
  stop(): void;
};

type WalletState = {
  w: Wallet;
  reserve: boolean;
  funded: boolean;
  /** First masterchain seqno whose round may carry the wallet's externals (reserve wallets wait for funds). */
  usableFrom: number;
  deployed: boolean;
  seq: number;
  inFlight: Map<string, number>;
  resync: boolean;
};

/** A deterministic traffic generator of signed wallet externals over a chain. */
export async function createTraffic(chain: Chain, options: TrafficOptions): Promise<Traffic> {
  const rate = options.ratePerRound ?? 10;
  const count = options.wallets ?? Math.max(8, Math.ceil(rate * 1.5));
  const reserveCount = options.reserveWallets ?? Math.floor(count / 4);
  const logger = options.logger ?? silentLogger;
  const rnd = createRandom(options.seed);
  const mix = { ...DEFAULT_MIX, ...options.mix };
  const kinds = ACTION_KINDS.filter((k) => mix[k] > 0);
  const totalWeight = kinds.reduce((n, k) => n + mix[k], 0);

  const wallets: WalletState[] = [];
  for (let i = 0; i < count + reserveCount; i++) {
    const kind = WALLET_KINDS[i % WALLET_KINDS.length];
    const w = createWallet(kind, `${options.seed}:wallet:${i}`);
    wallets.push({ w, reserve: i >= count, funded: false, usableFrom: 0, deployed: false, seq: 0, inFlight: new Map(), resync: true });
  }
  const jettonAdmin = wallets[1 % count];
  const nftAdmin = wallets[2 % count];
  const jetton = createJetton(jettonAdmin.w.address, `${options.seed}-jetton`);
  const nft = createNftSet(nftAdmin.w.address, `${options.seed}-nft`);
  const jettonBalance = new Map<WalletState, bigint>();
  const credits: { ws: WalletState; amount: bigint; at: number }[] = [];
  const items: { index: number; owner: WalletState; readyAt: number }[] = [];
  let nextItem = 0;
  let minterState: 'absent' | 'deploying' | 'active' = 'absent';
  let collectionState: 'absent' | 'deploying' | 'active' = 'absent';
  const multisig = createMultisig(`${options.seed}:multisig`);
  // Not a highload v3 wallet: it refuses to send messages with a StateInit (exit code 37).
  const multisigDeployer = wallets[0];
  /** First round whose externals the multisig can take (after its deploy message arrived); Infinity until deployed. */
  let multisigFrom = Infinity;
  let multisigOrders = 0;
  const multisigInFlight = new Set<string>();
  const vesting = createVesting(`${options.seed}:vesting`, { ...VESTING, sender: multisigDeployer.w.address, owner: wallets[4 % count].w.address });
  let vestingFrom = Infinity;
  let vestingSeqno = 0;
  const vestingInFlight = new Set<string>();
  const actions = Object.fromEntries(ACTION_KINDS.map((k) => [k, 0])) as Record<ActionKind, number>;
  let externals = 0;
  let rejected = 0;
  let queryId = 0n;

  // Pick up where an earlier run (before a restore) left off; fund genesis wallets on a new chain.
  const active = async (a: Address) => (await chain.getAccountState(a)).status === 'active';
  for (const ws of wallets) {
    const st = await chain.getAccountState(ws.w.address);
    if (st.balance === 0n && !ws.reserve) await chain.fund(ws.w.address, GENESIS_BALANCE);
    ws.funded = st.balance > 0n || !ws.reserve;
  }
  if (await active(jetton.minter)) {
    minterState = 'active';
    for (const ws of wallets) {
      const jw = jetton.walletOf(ws.w.address);
      if (!(await active(jw))) continue;
      const top = (await chain.runGetMethod(jw, 'get_wallet_data')).stack[0];
      if (top?.type === 'int') jettonBalance.set(ws, top.value);
    }
  }
  if (await active(multisig.address)) multisigFrom = 0;
  if (await active(vesting.address)) {
    vestingFrom = 0;
    const top = (await chain.runGetMethod(vesting.address, 'seqno')).stack[0];
    vestingSeqno = top?.type === 'int' ? Number(top.value) : 0;
  }
  if (await active(nft.collection)) {
    collectionState = 'active';
    const data = await chain.runGetMethod(nft.collection, 'get_collection_data');
    nextItem = data.stack[0]?.type === 'int' ? Number(data.stack[0].value) : 0;
  }

  const resync = async (ws: WalletState) => {
    const st = await chain.getAccountState(ws.w.address);
    ws.deployed = st.status === 'active';
    if (ws.w.kind === 'highload-v3') {
      // Query ids are remembered by the wallet for its timeout; continue past any used before.
      ws.seq = (chain.head().seqno % 8000) * 1023;
    } else if (ws.deployed) {
      const r = await chain.runGetMethod(ws.w.address, 'seqno');
      ws.seq = r.stack[0]?.type === 'int' ? Number(r.stack[0].value) : 0;
    } else {
      ws.seq = 0;
    }
    ws.resync = false;
  };

  const unsubscribe = chain.onRound((r) => {
    const failed = new Set(r.rejected.filter((x) => x.kind === 'external').map((x) => x.hash));
    for (const ws of wallets) {
      for (const hash of ws.inFlight.keys()) {
        if (failed.has(hash)) {
          rejected++;
          if (ws.w.kind !== 'highload-v3') ws.resync = true;
        } else {
          ws.deployed = true;
          if (ws === jettonAdmin && minterState === 'deploying') minterState = 'active';
          if (ws === nftAdmin && collectionState === 'deploying') collectionState = 'active';
        }
      }
      ws.inFlight.clear();
    }
    for (const hash of multisigInFlight) if (failed.has(hash)) rejected++;
    multisigInFlight.clear();
    for (const hash of vestingInFlight) {
      if (!failed.has(hash)) continue;
      rejected++;
      vestingSeqno--; // the seqno was not used
    }
    vestingInFlight.clear();
  });

  const submitRound = async (): Promise<number> => {
    const head = chain.head();
    // The time the messages execute at (after a restart the chain resumes at the wall clock).
    const now = chain.nextUtime();
    const round = head.seqno + 1;
    for (const ws of wallets) if (ws.resync && ws.funded && ws.inFlight.size === 0) await resync(ws);
    const plan = new Map<WalletState, MessageRelaxed[]>();
    const capacity = (ws: WalletState) => (ws.w.kind === 'highload-v3' ? HIGHLOAD_PER_ROUND : MAX_MESSAGES[ws.w.kind]);
    const ready = (ws: WalletState) => ws.funded && !ws.resync && ws.usableFrom <= round && ws.inFlight.size === 0 && (plan.get(ws)?.length ?? 0) < capacity(ws);
    const add = (ws: WalletState, msg: MessageRelaxed) => {
      let list = plan.get(ws);
      if (!list) plan.set(ws, (list = []));
      list.push(msg);
    };
    const pickReady = (pred: (ws: WalletState) => boolean = () => true): WalletState | undefined => {
      const start = rnd.int(wallets.length);
      for (let k = 0; k < wallets.length; k++) {
        const ws = wallets[(start + k) % wallets.length];
        if (ready(ws) && pred(ws)) return ws;
      }
      return undefined;
    };
    const other = (not: WalletState) => {
      const funded = wallets.filter((ws) => ws !== not && ws.funded);
      return funded.length > 0 ? rnd.pick(funded) : undefined;
    };
    const nextQuery = () => ++queryId;
    const credit = (ws: WalletState, amount: bigint) => credits.push({ ws, amount, at: round + ASSET_DELAY_ROUNDS });
    for (let i = 0; i < credits.length; ) {
      const c = credits[i];
      if (c.at > round) {
        i++;
        continue;
      }
      jettonBalance.set(c.ws, (jettonBalance.get(c.ws) ?? 0n) + c.amount);
      credits.splice(i, 1);
    }

    if (minterState === 'absent' && ready(jettonAdmin)) {
      const amount = toNano(1_000_000);
      add(jettonAdmin, internal({ to: jetton.minter, value: toNano('0.5'), bounce: false, init: jetton.minterInit, body: jettonMintBody({ queryId: nextQuery(), minter: jetton.minter, to: jettonAdmin.w.address, amount, response: jettonAdmin.w.address }) }));
      credit(jettonAdmin, amount);
      minterState = 'deploying';
    }
    if (collectionState === 'absent' && ready(nftAdmin)) {
      add(nftAdmin, internal({ to: nft.collection, value: toNano('0.5'), bounce: false, init: nft.collectionInit, body: nftMintBody({ queryId: nextQuery(), index: nextItem, owner: nftAdmin.w.address }) }));
      items.push({ index: nextItem++, owner: nftAdmin, readyAt: round + ASSET_DELAY_ROUNDS });
      collectionState = 'deploying';
    }

    if (multisigFrom === Infinity && ready(multisigDeployer)) {
      add(multisigDeployer, internal({ to: multisig.address, value: toNano(50), bounce: false, init: multisig.init }));
      multisigFrom = round + 2;
    }
    if (vestingFrom === Infinity && ready(multisigDeployer)) {
      add(multisigDeployer, internal({ to: vesting.address, value: VESTING.totalAmount, bounce: false, init: vesting.init }));
      vestingFrom = round + 2;
    }
    const externalsBefore: Uint8Array[] = [];
    const vestingExternals: Uint8Array[] = [];

    const act = (kind: ActionKind): boolean => {
      switch (kind) {
        case 'transfer': {
          const from = pickReady();
          const to = from && other(from);
          if (!from || !to) return false;
          const value = toNano(1 + rnd.int(50)) / 100n;
          add(from, internal({ to: to.w.address, value, bounce: to.deployed, body: rnd.chance(0.5) ? `localnet transfer ${rnd.int(1_000_000)}` : undefined }));
          return true;
        }
        case 'fund_new': {
          const target = wallets.find((ws) => ws.reserve && !ws.funded);
          const from = target && pickReady((ws) => !ws.reserve);
          if (!target || !from) return false;
          add(from, internal({ to: target.w.address, value: RESERVE_FUNDING, bounce: false, body: 'welcome' }));
          target.funded = true;
          target.usableFrom = round + FUNDING_DELAY_ROUNDS;
          return true;
        }
        case 'bounce': {
          const from = pickReady();
          if (!from) return false;
          // A bounceable transfer to an address nobody deployed: no state, so it bounces.
          add(from, internal({ to: `0:${rnd.bytes(32).toString('hex')}`, value: toNano('0.05'), bounce: true }));
          return true;
        }
        case 'jetton_mint': {
          const to = rnd.pick(wallets.filter((ws) => ws.funded));
          if (minterState !== 'active' || !ready(jettonAdmin) || !to) return false;
          const amount = toNano(1 + rnd.int(1000));
          add(jettonAdmin, internal({ to: jetton.minter, value: JETTON_GAS, bounce: true, body: jettonMintBody({ queryId: nextQuery(), minter: jetton.minter, to: to.w.address, amount, response: jettonAdmin.w.address }) }));
          credit(to, amount);
          return true;
        }
        case 'jetton_transfer': {
          const from = pickReady((ws) => (jettonBalance.get(ws) ?? 0n) > 1n);
          const to = from && other(from);
          if (!from || !to) return false;
          const balance = jettonBalance.get(from)!;
          const amount = 1n + BigInt(rnd.int(1_000_000)) * (balance / 2_000_000n + 1n);
          const sent = amount < balance ? amount : balance / 2n;
          add(from, internal({ to: jetton.walletOf(from.w.address), value: JETTON_GAS, bounce: true, body: jettonTransferBody({ queryId: nextQuery(), amount: sent, to: to.w.address, response: from.w.address, comment: `jetton ${rnd.int(1_000_000)}` }) }));
          jettonBalance.set(from, balance - sent);
          credit(to, sent);
          return true;
        }
        case 'jetton_burn': {
          const from = pickReady((ws) => (jettonBalance.get(ws) ?? 0n) > 10n);
          if (!from) return false;
          const amount = jettonBalance.get(from)! / 10n;
          add(from, internal({ to: jetton.walletOf(from.w.address), value: JETTON_GAS, bounce: true, body: jettonBurnBody({ queryId: nextQuery(), amount, response: from.w.address }) }));
          jettonBalance.set(from, jettonBalance.get(from)! - amount);
          return true;
        }
        case 'jetton_bad_transfer': {
          // A transfer request to someone else's jetton wallet: the wallet throws (not the owner), the message bounces.
          const holders = [...jettonBalance.keys()].filter((ws) => jettonBalance.get(ws)! > 0n);
          const victim = holders.length > 0 ? rnd.pick(holders) : undefined;
          const from = victim && pickReady((ws) => ws !== victim);
          if (!victim || !from) return false;
          add(from, internal({ to: jetton.walletOf(victim.w.address), value: JETTON_GAS, bounce: true, body: jettonTransferBody({ queryId: nextQuery(), amount: 1n, to: from.w.address, response: from.w.address, comment: 'not mine' }) }));
          return true;
        }
        case 'nft_mint': {
          const owner = rnd.pick(wallets.filter((ws) => ws.funded));
          if (collectionState !== 'active' || !ready(nftAdmin) || !owner) return false;
          add(nftAdmin, internal({ to: nft.collection, value: NFT_GAS, bounce: true, body: nftMintBody({ queryId: nextQuery(), index: nextItem, owner: owner.w.address }) }));
          items.push({ index: nextItem++, owner, readyAt: round + ASSET_DELAY_ROUNDS });
          return true;
        }
        case 'nft_transfer': {
          const candidates = items.filter((it) => it.readyAt <= round && ready(it.owner));
          if (candidates.length === 0) return false;
          const item = rnd.pick(candidates);
          const to = other(item.owner);
          if (!to) return false;
          add(item.owner, internal({ to: nft.itemAddress(item.index), value: NFT_GAS, bounce: true, body: nftTransferBody({ queryId: nextQuery(), newOwner: to.w.address, response: item.owner.w.address }) }));
          item.owner = to;
          item.readyAt = round + ASSET_DELAY_ROUNDS;
          return true;
        }
        case 'bad_op': {
          // An unknown op to the minter: its compute phase fails and the value bounces back.
          const from = pickReady();
          if (minterState !== 'active' || !from) return false;
          add(from, internal({ to: jetton.minter, value: toNano('0.05'), bounce: true, body: beginCell().storeUint(0xdeadbeef, 32).storeUint(nextQuery(), 64).endCell() }));
          return true;
        }
        case 'multisig_order': {
          // One order per round, signed by two of three owners: it executes at once.
          const to = rnd.pick(wallets.filter((ws) => ws.funded));
          if (multisigFrom > round || externalsBefore.length > 0 || !to) return false;
          const messages = [internal({ to: to.w.address, value: toNano(1 + rnd.int(100)) / 100n, bounce: false, body: `multisig order ${multisigOrders}` })];
          externalsBefore.push(multisig.order({ now, n: multisigOrders++, messages }));
          return true;
        }
        case 'vesting_withdraw': {
          // One withdrawal per round from the vested part, signed by the vesting wallet's key.
          const to = rnd.pick(wallets.filter((ws) => ws.funded));
          if (vestingFrom > round || vestingExternals.length > 0 || !to) return false;
          const message = internal({ to: to.w.address, value: toNano(10 + rnd.int(90)) / 100n, bounce: false, body: 'vested' });
          vestingExternals.push(vesting.external({ seqno: vestingSeqno++, now, message }));
          return true;
        }
      }
    };
    for (let i = 0; i < rate; i++) {
      let x = rnd.next() * totalWeight;
      const kind = kinds.find((k) => (x -= mix[k]) < 0) ?? kinds[kinds.length - 1];
      if (act(kind)) actions[kind]++;
    }

    let submitted = 0;
    for (const boc of externalsBefore) {
      multisigInFlight.add(chain.submitExternal(boc).hash);
      submitted++;
    }
    for (const boc of vestingExternals) {
      vestingInFlight.add(chain.submitExternal(boc).hash);
      submitted++;
    }
    for (const [ws, msgs] of plan) {
      const batches = ws.w.kind === 'highload-v3' ? msgs.map((m) => [m]) : [msgs];
      for (const batch of batches) {
        const boc = await ws.w.external({ seq: ws.seq, now, messages: batch, deploy: !ws.deployed });
        const { hash } = chain.submitExternal(boc);
        ws.inFlight.set(hash, ws.seq);
        ws.seq++;
        submitted++;
      }
    }
    externals += submitted;
    logger.debug('traffic round submitted', { mc_seqno: round, externals: submitted });
    return submitted;
  };

  return {
    submitRound,
    async step() {
      await submitRound();
      return chain.produceRound();
    },
    wallets: () => wallets.map((ws) => ({ kind: ws.w.kind, address: ws.w.address, deployed: ws.deployed, reserve: ws.reserve })),
    jetton,
    nft,
    multisig,
    vesting,
    stats: () => ({ actions: { ...actions }, externals, rejected }),
    stop: unsubscribe,
  };
}
