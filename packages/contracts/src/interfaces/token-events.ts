import { rethrowBugs } from '@tonstream/errors';
import { type Address, Cell, type ExternalAddress } from '@ton/core';
import type { MessageRecord, TokenEvent } from '@tonstream/records';
import { isBody, readBody } from '../read-body.js';
import { jettonBurn, jettonTransfer } from '../messages/jettons.js';
import { nftTransfer } from '../messages/nfts.js';
import type { ContractFacts } from '../facts/describe.js';
import { rawAddress } from './token-data.js';

/** The opcodes a token event starts from (the inbound message of the token contract's transaction). */
export const TOKEN_EVENT_OPCODES: ReadonlySet<string> = new Set(['0x0f8a7ea5', '0x595f07bc', '0x5fcc3d14']);

const addr = (a: Address | ExternalAddress | null): string | null => (a && 'workChain' in a ? rawAddress(a as Address) : null);
const boc = (c: Cell | null): string | null => (c ? c.toBoc({ idx: false, crc32: false }).toString('base64') : null);

/** A token event read from the inbound message alone: what the token contract (jetton, collection) is follows from its state. */
export type TokenBodyEvent =
  | Omit<Extract<TokenEvent, { type: 'jetton_transfer' }>, 'jetton_master'>
  | Omit<Extract<TokenEvent, { type: 'jetton_burn' }>, 'jetton_master'>
  | Omit<Extract<TokenEvent, { type: 'nft_transfer' }>, 'nft_collection'>;

/**
 * The token event an inbound message asks `account` for, by its body alone: a jetton transfer or
 * burn, an NFT transfer; null for anything else (another opcode, an external or bounced message, a
 * body that does not read). Never throws.
 */
export function tokenBodyEvent(account: string, inMsg: MessageRecord | null): TokenBodyEvent | null {
  if (!inMsg || inMsg.source === null || inMsg.bounced || inMsg.opcode === null || !TOKEN_EVENT_OPCODES.has(inMsg.opcode)) return null;
  let body;
  try {
    body = readBody(Cell.fromBase64(inMsg.message_content.body));
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
  if (isBody(body, jettonTransfer)) {
    const v = body.value;
    return {
      type: 'jetton_transfer',
      query_id: v.query_id.toString(),
      amount: v.amount.toString(),
      source: inMsg.source,
      destination: addr(v.destination),
      source_wallet: account,
      response_destination: addr(v.response_destination),
      custom_payload: boc(v.custom_payload),
      forward_ton_amount: v.forward_ton_amount.toString(),
      forward_payload: boc(v.forward_payload),
    };
  }
  if (isBody(body, jettonBurn)) {
    const v = body.value;
    return {
      type: 'jetton_burn',
      query_id: v.query_id.toString(),
      amount: v.amount.toString(),
      owner: inMsg.source,
      jetton_wallet: account,
      response_destination: addr(v.response_destination),
      custom_payload: boc(v.custom_payload),
    };
  }
  if (isBody(body, nftTransfer)) {
    const v = body.value;
    return {
      type: 'nft_transfer',
      query_id: v.query_id.toString(),
      nft_address: account,
      old_owner: inMsg.source,
      new_owner: addr(v.new_owner),
      response_destination: addr(v.response_destination),
      custom_payload: boc(v.custom_payload),
      forward_amount: v.forward_amount.toString(),
      forward_payload: boc(v.forward_payload),
    };
  }
  return null;
}

/**
 * The token event of a transaction: its body event when the account that ran it has the interface
 * (a look-alike contract does not make transfers): jetton transfers and burns on a jetton wallet
 * whose data names its master, NFT transfers on an NFT item. `account` is what the state after the
 * block says: a jetton wallet's master and an NFT item's collection never change, so it is as good
 * as the state before the transaction. Aborted transactions are events too (the API says
 * `transaction_aborted`). Never throws.
 */
export function tokenEventOf(account: string, inMsg: MessageRecord | null, facts: ContractFacts | undefined): TokenEvent | null {
  if (!facts) return null;
  const event = tokenBodyEvent(account, inMsg);
  if (!event) return null;
  if (event.type === 'nft_transfer') {
    if (!facts.interfaces.includes('nft_item')) return null;
    return { ...event, nft_collection: facts.nft_item?.collection_address ?? null };
  }
  if (!facts.interfaces.includes('jetton_wallet')) return null;
  return facts.jetton_wallet ? { ...event, jetton_master: facts.jetton_wallet.jetton } : null;
}
