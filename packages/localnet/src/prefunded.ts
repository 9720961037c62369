/**
 * Wallets every new local chain starts with, deployed and funded in its first block, as Hardhat and
 * anvil give Ethereum developers: anyone can point TonClient at the local network and send real
 * transfers from them.
 *
 * !!! PUBLIC TEST KEYS. These mnemonics are published in this repository: anyone can spend whatever
 * !!! their addresses hold on any network. Never send real TON to them; use them on the local
 * !!! network only.
 *
 * Generated once with @ton/crypto `mnemonicNew(24)`; `publicKey` is `mnemonicToPrivateKey(words)`'s
 * (kept here so a chain starts without the 100,000-round PBKDF2 per wallet); addresses are
 * @ton/ton's `WalletContractV4.create` / `WalletContractV5R1.create` with workchain 0 and the
 * default wallet ids (698983191 for v4r2, mainnet's network global id -239 for v5r1).
 * packages/localnet/src/prefunded.test.ts checks all three against the mnemonics.
 */
import { Address, type Cell } from '@ton/core';
import { createShardAccount } from '@ton/sandbox';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { type ChainCore, rawOf } from './core.js';
import { LocalnetError } from './errors.js';

export type PrefundedWalletVersion = 'v4r2' | 'v5r1';

export type PrefundedWallet = {
  /** 24 words separated by single spaces. */
  mnemonic: string;
  version: PrefundedWalletVersion;
  /** Raw form, `0:<hex>`. */
  address: string;
  /** ed25519 public key (hex) of the mnemonic. */
  publicKey: string;
};

/** Each prefunded wallet's balance at the chain's start: 10,000 TON. */
export const PREFUNDED_BALANCE = 10_000n * 1_000_000_000n;

export const PREFUNDED_WALLETS: readonly PrefundedWallet[] = Object.freeze([
  {
    version: 'v4r2',
    mnemonic: 'trend lend soon call day quantum champion coach jelly pattern leave swamp curtain stove damp enroll fit time smart size diary defy blast dumb',
    publicKey: '112cd48ef678e4f3f5311fabb691241bfe5de9e4f8d3ad8497e3b2bda9733ce9',
    address: '0:7c148a1ae4823f8b2cf5fad7e731e53651c30ccb9aa9e3f0e375a05c800bcf7a',
  },
  {
    version: 'v4r2',
    mnemonic: 'robot world crumble badge turtle never wagon pink nation exile doll cereal like sentence scrap intact shoot include magic keep truth random reopen spring',
    publicKey: '9511763fe44c7277d82cfde0db9c93641c009f171e4b61b95d385097540d4e32',
    address: '0:94642ddb99e3ccc9319ac43179b13b779b13ef1c967a56e5ec2d32fc143d3653',
  },
  {
    version: 'v4r2',
    mnemonic: 'audit fitness spell lift security pilot logic sausage off lab flee primary treat pulse scout ritual rural slush carbon crisp brass mask ankle cradle',
    publicKey: 'f5675a1f3d9991b39630a58262422d3a483cfe3f224f36349bf10876ec484ff8',
    address: '0:6859de55f7ec8f40d73b47773eb2e345c048c30f50d3128c692062d8b44630ac',
  },
  {
    version: 'v5r1',
    mnemonic: 'valid stuff climb race expose elegant civil job off scheme remember remove session seat peasant ice pigeon crunch often seek tragic wagon topple capable',
    publicKey: '3825345ed7f80c309161d50643a6f1f8ec04b857a9564146b6030e094eb458e1',
    address: '0:2d22a6c64fcb794079fc6d696ef66ae474c12e90f9e0880575e892dbed7f05f2',
  },
  {
    version: 'v5r1',
    mnemonic: 'crane peasant someone inject alpha million few fog safe gospel bleak south crunch project child neck angry chicken foster student high tell winter absurd',
    publicKey: '2c0a4771ed45be5cecd9418548fc4cf4f9b2f2770bcbcbeaf80f8cd59dc38c1e',
    address: '0:c9e43a5e654cf3b3ce75a4693cc3672e67a8252bf6361fd693f703d909ada032',
  },
  {
    version: 'v5r1',
    mnemonic: 'ugly escape island sugar park napkin drip survey east cactus renew govern pepper festival decrease primary genre stay subject answer other cruel honey silly',
    publicKey: 'bfa0df7d1d6c1061117b8055f96b82ca8d4cbb226b386fa0e1756e6d4d034c4d',
    address: '0:d742130f1263be66cd2ee55732924e3d2fe1a8e9b313cd13c9fae21da0e8234c',
  },
] satisfies PrefundedWallet[]);

/** The wallet contract's StateInit, as @ton/ton builds it for the key. */
export function prefundedWalletInit(w: Pick<PrefundedWallet, 'version' | 'publicKey'>): { code: Cell; data: Cell; address: Address } {
  const publicKey = Buffer.from(w.publicKey, 'hex');
  const contract = w.version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey });
  return { code: contract.init.code, data: contract.init.data, address: contract.address };
}

/**
 * Puts the wallets on the chain as active accounts holding `balance`, without a transaction, as a
 * zerostate does; recorded as of the next masterchain block. Call before the chain's first round.
 */
export async function deployAtGenesis(core: ChainCore, wallets: readonly PrefundedWallet[], balance: bigint): Promise<void> {
  for (const w of wallets) {
    const { code, data, address } = prefundedWalletInit(w);
    if (!address.equals(Address.parse(w.address))) throw new LocalnetError('bad_request', `prefunded wallet ${w.address}: its ${w.version} StateInit gives ${rawOf(address)}`);
    const before = await core.emu.shardAccount(address);
    await core.bc.setShardAccount(address, createShardAccount({ address, code, data, balance, workchain: 0 }));
    core.states.record(core.mcTip.id.seqno + 1, rawOf(address), before, await core.emu.shardAccount(address));
  }
}
