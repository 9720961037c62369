import { rethrowBugs } from '@tonstream/errors';
import type { Slice } from '@ton/core';
import { jettonBurnNotification, TGBTC_OPS, tgbtcBurnEvent, tgbtcDkgCompletedEvent, tgbtcMintEvent, tgbtcNewKeyEvent } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { anyOf, composite, ofType, op, where } from '../matcher.js';
import { findOp, raw, readAs } from './util.js';

/*
 * tgBTC (TON Teleport): mint (a BTC deposit proven to the teleport ends in a jetton mint), burn (a
 * jetton burn reaching the teleport, with its burn event log), new key (coordinator rotation), and
 * fallbacks for event logs no full pattern explained.
 */

/** An event log (external-out) with this opcode. */
const log = (opcode: number, options: Partial<Matcher> = {}): Matcher => where((b) => b.type === 'call_contract' && b.opcode === opcode && b.node.kind === 'log', options);

const pegoutDeploy: Matcher = op(TGBTC_OPS.deployPegout, { optional: true, children: [op(TGBTC_OPS.pegoutInit, { optional: true }), ofType('ton_transfer', { optional: true })] });

/** A 256-bit Bitcoin tx id, stored little-endian, printed big-endian. */
function bitcoinTxId(bits: Buffer): string {
  return Buffer.from(bits).reverse().toString('hex');
}

export const tgbtcMintMatcher: ActionMatcher = {
  name: 'tgbtc_mint',
  ...op(TGBTC_OPS.mintTail),
  children: [log(tgbtcMintEvent.opcode), ofType('jetton_mint')],
  build(block, matched) {
    const logBlock = findOp(matched, tgbtcMintEvent.opcode);
    const mint = matched.find((b) => b.type === 'jetton_mint');
    const event = logBlock ? readAs(logBlock, tgbtcMintEvent) : null;
    if (!event || !mint) return null;
    // The chain back to the user's request (0x3f781d24) is part of the mint.
    const chain = new Set<Block>([block, ...matched]);
    let head: Block | null = null;
    for (let cur: Block = block, i = 0; cur.prev && i < 20; i += 1) {
      cur = cur.prev;
      chain.add(cur);
      if (cur.type === 'call_contract' && cur.opcode === TGBTC_OPS.mintRequest) {
        head = cur;
        break;
      }
    }
    if (!head) return null;
    const md = mint.data!.details;
    const details = {
      source: head.node.source,
      destination: raw(event.recipient_address),
      amount: event.amount.toString(),
      asset: md.asset,
      bitcoin_tx_id: bitcoinTxId(event.bitcoin_txid),
      destination_wallet: md.receiver_jetton_wallet,
    };
    return composite('tgbtc_mint', [...chain], { details, addresses: [details.source, details.destination, logBlock!.node.source, details.destination_wallet as string | null] });
  },
};

/**
 * The burn event as toncenter reads it: the amount must read; the sender and pegout addresses that
 * follow are each kept only when they read (older logs have another layout there).
 */
function readBurnEvent(block: Block): { amount: bigint; sender: string | null; pegout: string | null } | null {
  let s: Slice;
  let amount: bigint;
  try {
    s = block.node.body().beginParse();
    s.skip(32);
    amount = s.loadCoins();
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
  const event = { amount, sender: null as string | null, pegout: null as string | null };
  try {
    event.sender = raw(s.loadAddressAny());
    event.pegout = raw(s.loadAddressAny());
  } catch (err) {
    rethrowBugs(err);
    // What did read is kept.
  }
  return event;
}

const burnChildren = [log(tgbtcBurnEvent.opcode), pegoutDeploy];

export const tgbtcBurnMatcher: ActionMatcher = {
  name: 'tgbtc_burn',
  ...ofType('jetton_burn'),
  child: anyOf([op(jettonBurnNotification.opcode, { children: burnChildren }), op(TGBTC_OPS.burnAlt, { children: burnChildren })]),
  build(block, matched) {
    const logBlock = findOp(matched, tgbtcBurnEvent.opcode);
    if (!logBlock) return null;
    const event = readBurnEvent(logBlock);
    if (!event) return null;
    const bd = block.data!.details;
    // toncenter: the burnt amount, capped by the log's; the log's when the burn says nothing.
    const burnt = BigInt(bd.amount as string);
    const amount = burnt === 0n || event.amount < burnt ? event.amount : burnt;
    const details = {
      source: bd.owner,
      source_wallet: bd.owner_jetton_wallet,
      destination: event.pegout,
      amount: amount.toString(),
      asset: bd.asset,
    };
    return composite('tgbtc_burn', [block, ...matched], { details, addresses: [details.source as string, details.source_wallet as string, details.destination] });
  },
};

export const tgbtcNewKeyMatcher: ActionMatcher = {
  name: 'tgbtc_new_key',
  ...op(TGBTC_OPS.newKey),
  parent: where(() => true, { child: log(tgbtcDkgCompletedEvent.opcode) }),
  children: [log(tgbtcNewKeyEvent.opcode), pegoutDeploy],
  build(block, matched) {
    const dkg = findOp(matched, tgbtcDkgCompletedEvent.opcode);
    const keyLog = findOp(matched, tgbtcNewKeyEvent.opcode);
    const event = keyLog ? readAs(keyLog, tgbtcNewKeyEvent) : null;
    if (!dkg || !keyLog || !event) return null;
    const details = {
      source: dkg.node.source,
      pubkey: event.new_internal_pubkey.toString('hex'),
      coordinator: keyLog.node.source,
      pegout: raw(event.pegout_address),
      amount: event.amount.toString(),
      asset: null,
    };
    return composite('tgbtc_new_key', [block, ...matched], { details, addresses: [details.source, details.coordinator, details.pegout] });
  },
};

/** A burn event log left alone: the burn as far as the log tells it. */
export const tgbtcBurnFallbackMatcher: ActionMatcher = {
  name: 'tgbtc_burn_fallback',
  ...log(tgbtcBurnEvent.opcode),
  build(block) {
    const event = readBurnEvent(block);
    if (!event) return null;
    const details = { source: event.sender, source_wallet: null, destination: event.pegout, amount: event.amount.toString(), asset: null };
    return composite('tgbtc_burn_fallback', [block], { details, addresses: [details.source, details.destination] });
  },
};

/** A DKG-completed log no new-key rotation followed. */
export const tgbtcDkgLogFallbackMatcher: ActionMatcher = {
  name: 'tgbtc_dkg_log_fallback',
  ...log(tgbtcDkgCompletedEvent.opcode),
  build(block) {
    const event = readAs(block, tgbtcDkgCompletedEvent);
    if (!event) return null;
    const details = { coordinator: block.node.source, pubkey: event.internal_pubkey.toString('hex'), timestamp: event.timestamp.toString() };
    return composite('tgbtc_dkg_log_fallback', [block], { details, addresses: [block.node.source] });
  },
};

export const tgbtcMatchers: ActionMatcher[] = [tgbtcMintMatcher, tgbtcBurnMatcher, tgbtcNewKeyMatcher, tgbtcBurnFallbackMatcher, tgbtcDkgLogFallbackMatcher];
