import { type Address, beginCell, type Cell, external, type MessageRelaxed, SendMode, type StateInit, storeMessage, storeMessageRelaxed } from '@ton/core';
import { MultisigOrder, MultisigWallet } from '@ton/ton';
import { type KeyPair, keyPairFromLabel, signBytes } from './keys.js';

/** Owners and threshold of the traffic's multisig v1 wallet (@ton/ton MultisigWallet). */
export const MULTISIG_OWNERS = 3;
export const MULTISIG_K = 2;
export const MULTISIG_WALLET_ID = 0x4d53;
/**
 * An order's query_id is (expiry << 32) | n. The wallet refuses new orders expiring within the hour
 * (exit code 41) and beyond its horizon; MultisigOrderBuilder uses 7200 s, we use 1.5 hours.
 */
const ORDER_TTL_S = 5400;

export type Multisig = {
  address: Address;
  init: StateInit;
  /** An external carrying an order signed by owners 0 (root) and 1, enough to execute it at once. */
  order(d: { now: number; n: number; messages: MessageRelaxed[] }): Uint8Array;
};

export function createMultisig(label: string): Multisig {
  const owners: KeyPair[] = Array.from({ length: MULTISIG_OWNERS }, (_, i) => keyPairFromLabel(`${label}:owner:${i}`));
  const wallet = new MultisigWallet(
    owners.map((k) => k.publicKey),
    0,
    MULTISIG_WALLET_ID,
    MULTISIG_K,
  );
  return {
    address: wallet.address,
    init: wallet.init,
    order(d) {
      // payload: wallet_id:uint32 query_id:uint64 (mode:uint8 ^MessageRelaxed)*, as MultisigOrderBuilder writes it
      const payload = beginCell().storeUint(MULTISIG_WALLET_ID, 32).storeUint((BigInt(d.now + ORDER_TTL_S) << 32n) | BigInt(d.n), 64);
      for (const m of d.messages) payload.storeUint(SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS, 8).storeRef(beginCell().store(storeMessageRelaxed(m)).endCell());
      const order = MultisigOrder.fromPayload(payload.endCell());
      order.signatures[1] = signBytes(owners[1], order.payload.hash());
      const signed: Cell = order.toCell(0);
      const body = beginCell().storeBuffer(signBytes(owners[0], signed.hash())).storeSlice(signed.asSlice()).endCell();
      return beginCell().store(storeMessage(external({ to: wallet.address, body }))).endCell().toBoc();
    },
  };
}
