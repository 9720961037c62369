import { type Address, beginCell, type Cell, external, type MessageRelaxed, SendMode, type StateInit, storeMessage } from '@ton/core';
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { highloadV3, highloadV3Body } from './highload-v3.js';
import { type KeyPair, keyPairFromLabel, signBytes } from './keys.js';

export const WALLET_KINDS = ['v3r2', 'v4r2', 'v5r1', 'highload-v3'] as const;
export type WalletKind = (typeof WALLET_KINDS)[number];

/** Messages per external: v3/v4 carry up to 4; v5 up to 255, kept at 4 here; highload v3 sends one per external. */
export const MAX_MESSAGES: Record<WalletKind, number> = { v3r2: 4, v4r2: 4, v5r1: 4, 'highload-v3': 1 };

export type Wallet = {
  kind: WalletKind;
  label: string;
  keys: KeyPair;
  address: Address;
  init: StateInit;
  /**
   * A signed external-in message (BoC). `seq` is the seqno (highload v3: the query id); `now` the
   * chain time the message executes at (the next round's); it stays valid for a minute (highload v3: its timeout).
   */
  external(d: { seq: number; now: number; messages: MessageRelaxed[]; deploy: boolean }): Promise<Uint8Array>;
};

const VALIDITY_S = 60;
const SEND_MODE = SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS;

export function createWallet(kind: WalletKind, label: string): Wallet {
  const keys = keyPairFromLabel(label);
  const signer = async (c: Cell) => signBytes(keys, c.hash());
  const pack = (address: Address, init: StateInit, body: Cell, deploy: boolean) =>
    beginCell()
      .store(storeMessage(external({ to: address, init: deploy ? init : undefined, body })))
      .endCell()
      .toBoc();
  switch (kind) {
    case 'v3r2': {
      const w = WalletContractV3R2.create({ workchain: 0, publicKey: keys.publicKey });
      return { kind, label, keys, address: w.address, init: w.init, external: async (d) => pack(w.address, w.init, await w.createTransfer({ seqno: d.seq, signer, messages: d.messages, sendMode: SEND_MODE, timeout: d.now + VALIDITY_S }), d.deploy) };
    }
    case 'v4r2': {
      const w = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
      return { kind, label, keys, address: w.address, init: w.init, external: async (d) => pack(w.address, w.init, await w.createTransfer({ seqno: d.seq, signer, messages: d.messages, sendMode: SEND_MODE, timeout: d.now + VALIDITY_S }), d.deploy) };
    }
    case 'v5r1': {
      const w = WalletContractV5R1.create({ workchain: 0, publicKey: keys.publicKey });
      return { kind, label, keys, address: w.address, init: w.init, external: async (d) => pack(w.address, w.init, await w.createTransfer({ seqno: d.seq, signer, messages: d.messages, sendMode: SEND_MODE, timeout: d.now + VALIDITY_S }), d.deploy) };
    }
    case 'highload-v3': {
      const w = highloadV3(keys.publicKey);
      return {
        kind,
        label,
        keys,
        address: w.address,
        init: w.init,
        external: async (d) => {
          if (d.messages.length !== 1) throw new Error('highload v3 sends one message per external here');
          return pack(w.address, w.init, highloadV3Body(keys, { message: d.messages[0], sendMode: SEND_MODE, queryId: d.seq, createdAt: d.now }), d.deploy);
        },
      };
    }
  }
}
