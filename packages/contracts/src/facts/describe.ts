import type { Cell } from '@ton/core';
import type { AccountStateRecord, ContractFactsJson } from '@tonstream/records';
import { createInterfaceDetector } from '../interfaces/detect.js';
import { dataCell } from '../interfaces/token-data.js';
import { dnsItem } from './dns-item.js';
import { jettonMaster } from './jetton-master.js';
import { jettonWallet } from './jetton-wallet.js';
import { multisigOrder } from './multisig-order.js';
import { multisig } from './multisig.js';
import { nftCollection } from './nft-collection.js';
import { nftItem } from './nft-item.js';
import { nftSale } from './nft-sale.js';
import type { Standard } from './standard.js';
import { vesting } from './vesting.js';
import { wallet } from './wallet.js';

/** Every standard an account's facts can name, by the key of its fact. A new standard: its file and its line here. */
export const STANDARDS = {
  wallet,
  jetton_wallet: jettonWallet,
  jetton_master: jettonMaster,
  nft_collection: nftCollection,
  nft_item: nftItem,
  dns_item: dnsItem,
  multisig,
  multisig_order: multisigOrder,
  vesting,
  nft_sale: nftSale,
} satisfies Record<string, Standard<unknown>>;

type StandardName = keyof typeof STANDARDS;
type FactOf<S> = S extends Standard<infer F> ? F : never;

/**
 * What an account's state says its contract is: its code's interfaces and get-method ids (toncenter's
 * `interfaces`, `contract_methods`) and, for an active account, one entry per standard its code has
 * and its data reads as. Plain JSON (amounts and 64-bit values as decimal strings, addresses raw).
 */
export type ContractFacts = { interfaces: string[]; methods: number[] | null } & { [K in StandardName]?: FactOf<(typeof STANDARDS)[K]> };

/** The parts of an account state the facts follow from. */
export type AccountInput = Pick<AccountStateRecord, 'status' | 'code_hash' | 'code_boc' | 'data_boc'>;

/** Codes repeat (every wallet of a jetton shares one): each is parsed once per process (or thread). */
const detect = createInterfaceDetector();

/** Reads an account state's contract facts. Never throws. */
export function describeAccount(state: AccountInput): ContractFacts {
  const { interfaces, methods } = detect(state.code_hash, state.code_boc);
  const facts: ContractFacts = { interfaces, methods };
  if (state.status !== 'active' || state.code_hash === null) return facts;
  const code = { code_hash: state.code_hash, interfaces };
  let data: Cell | null | undefined;
  for (const name of Object.keys(STANDARDS) as StandardName[]) {
    const standard: Standard<unknown> = STANDARDS[name];
    if (!standard.has(code)) continue;
    if (data === undefined) data = dataCell(state.data_boc);
    const fact = standard.read(data, code);
    if (fact !== null) (facts as Record<string, unknown>)[name] = fact;
  }
  return facts;
}

/**
 * The facts of a state: those the decoder put on it (`contract`), else derived here. The only
 * fallback: a state from before the decoder carried them, or one read back from stored rows.
 */
export function factsOf(state: AccountInput & { contract?: ContractFactsJson }): ContractFacts {
  return (state.contract as ContractFacts | undefined) ?? describeAccount(state);
}
