import { factsOf, TOKEN_EVENT_OPCODES, tokenEventOf } from '@tonstream/contracts';
import type { AccountStateRecord, TokenEvent, TransactionRecord } from '@tonstream/records';

/**
 * The token events of a block's transactions (jetton transfers and burns, NFT transfers), by
 * transaction hash. Each is read from the transaction's inbound body and the facts of the account's
 * state after the block (its code says it is a jetton wallet or NFT item, its data names the master
 * or collection). Only transactions whose inbound opcode can start one cost more than a lookup.
 */
export function tokenEventsOfBlock(transactions: readonly TransactionRecord[], states: readonly AccountStateRecord[]): Map<string, TokenEvent> {
  const events = new Map<string, TokenEvent>();
  let byAccount: Map<string, AccountStateRecord> | undefined;
  for (const t of transactions) {
    const opcode = t.in_msg?.opcode;
    if (!opcode || !TOKEN_EVENT_OPCODES.has(opcode)) continue;
    byAccount ??= new Map(states.map((s) => [s.account, s]));
    const s = byAccount.get(t.account);
    const event = tokenEventOf(t.account, t.in_msg, s && factsOf(s));
    if (event) events.set(t.hash, event);
  }
  return events;
}
