import type { MessageLayout } from './layout.js';
import { COMMON_MESSAGES } from './messages/common.js';
import { DNS_MESSAGES } from './messages/dns.js';
import { ELECTOR_MESSAGES } from './messages/elector.js';
import { JETTON_MESSAGES } from './messages/jettons.js';
import { MULTISIG_MESSAGES } from './messages/multisig.js';
import { NFT_MESSAGES } from './messages/nfts.js';
import { TELEGRAM_MESSAGES } from './messages/telegram.js';
import { VESTING_MESSAGES } from './messages/vesting.js';
import { WALLET_MESSAGES } from './messages/wallets.js';

/**
 * Every message body this package knows, one entry per layout. Adding a message is adding its
 * layout to a family's list. When several layouts share an opcode, the earlier one is tried first
 * and names the opcode (ton-marker's order: the reading with more structure wins).
 */
export const MESSAGE_LAYOUTS: readonly MessageLayout[] = [
  ...COMMON_MESSAGES,
  ...JETTON_MESSAGES,
  ...NFT_MESSAGES,
  ...DNS_MESSAGES,
  ...ELECTOR_MESSAGES,
  ...WALLET_MESSAGES,
  ...MULTISIG_MESSAGES,
  ...VESTING_MESSAGES,
  ...TELEGRAM_MESSAGES,
] as readonly MessageLayout[];

const byOpcode = new Map<number, MessageLayout[]>();
for (const layout of MESSAGE_LAYOUTS) byOpcode.set(layout.opcode, [...(byOpcode.get(layout.opcode) ?? []), layout]);

/** The layouts for an opcode (unsigned 32-bit), in the order they are tried; empty when unknown. */
export function layoutsFor(opcode: number): readonly MessageLayout[] {
  return byOpcode.get(opcode >>> 0) ?? [];
}

/** The name of an opcode (`jetton_transfer`), or null when this package does not know it. */
export function opcodeName(opcode: number): string | null {
  return layoutsFor(opcode)[0]?.name ?? null;
}
