import type { readDnsDomains, readDnsEntries, readMultisigOrders, readMultisigWallets, readNftSales, readNftSalesBySeller, readSalesOfItems, readVestingContracts, ReadScope, Store } from '@tonstream/store';
import {
  auction, auctionSeller, dnsItem, dnsNamedWallet, dnsWallet, dnsWalletLater, multisig, order, proposer, sale, saleNft, saleSeller, signers, vesting, vestingOwner, vestingSender, whitelisted,
} from './contract-states.js';
import { raw } from '../support/ledger.js';

/**
 * store-chdb.test.ts's cases for the contract reads (migration 13) over `contractStates()`: every
 * filter, both directions, an empty answer each; `before` is a watermark below every contract's state.
 */
type ArgsOf<F> = F extends (store: Store, ...rest: infer A) => unknown ? A : never;
type Case<F> = { args: ArgsOf<F>; empty?: true };
export type ContractCases = {
  readDnsEntries: Case<typeof readDnsEntries>[];
  readMultisigWallets: Case<typeof readMultisigWallets>[];
  readMultisigOrders: Case<typeof readMultisigOrders>[];
  readVestingContracts: Case<typeof readVestingContracts>[];
  readNftSales: Case<typeof readNftSales>[];
  readSalesOfItems: Case<typeof readSalesOfItems>[];
  readNftSalesBySeller: Case<typeof readNftSalesBySeller>[];
  readDnsDomains: Case<typeof readDnsDomains>[];
};

export function contractCases(scope: ReadScope, before: ReadScope): ContractCases {
  const page = { limit: 10, offset: 0 };
  const sorts = ['asc', 'desc'] as const;
  const stranger = raw(dnsItem).replace(/^0:./, '0:F');
  return {
    readDnsEntries: [
      { args: [scope, { wallet: raw(dnsWallet) }, page] },
      { args: [scope, { domain: 'tonstream.ton' }, page] },
      // The later version's wallet is above the watermark.
      { args: [scope, { wallet: raw(dnsWalletLater) }, page], empty: true },
      { args: [before, { domain: 'tonstream.ton' }, page], empty: true },
    ],
    readMultisigWallets: [
      ...sorts.flatMap((sort) => [
        { args: [scope, { address: [raw(multisig)] }, { ...page, sort }] as ArgsOf<typeof readMultisigWallets> },
        { args: [scope, { party: [raw(signers[0]), raw(proposer)] }, { ...page, sort }] as ArgsOf<typeof readMultisigWallets> },
      ]),
      { args: [scope, { address: [raw(multisig)], party: [raw(signers[1])] }, { ...page, sort: 'desc' }] },
      { args: [scope, { party: [stranger] }, { ...page, sort: 'desc' }], empty: true },
    ],
    readMultisigOrders: [
      ...sorts.flatMap((sort) => [
        { args: [scope, { address: [raw(order)] }, { ...page, sort }] as ArgsOf<typeof readMultisigOrders> },
        { args: [scope, { multisig: [raw(multisig)] }, { ...page, sort }] as ArgsOf<typeof readMultisigOrders> },
      ]),
      { args: [before, { multisig: [raw(multisig)] }, { ...page, sort: 'desc' }], empty: true },
    ],
    readVestingContracts: [
      { args: [scope, { address: [raw(vesting)] }, page] },
      { args: [scope, { wallet: [raw(vestingOwner), raw(vestingSender)] }, page] },
      { args: [scope, { wallet: [raw(whitelisted)], whitelisted: true }, page] },
      { args: [scope, { wallet: [raw(whitelisted)] }, page], empty: true },
    ],
    readNftSales: [
      { args: [scope, [raw(sale), raw(auction)]] },
      { args: [scope, [stranger]], empty: true },
    ],
    readSalesOfItems: [
      { args: [scope, [{ nft: raw(saleNft), owner: raw(sale) }, { nft: raw(saleNft), owner: raw(auction) }]] },
      // The auction sells another NFT.
      { args: [scope, [{ nft: raw(saleNft), owner: raw(auction) }]], empty: true },
    ],
    readNftSalesBySeller: [
      { args: [scope, [raw(saleSeller), raw(auctionSeller)]] },
      { args: [before, [raw(saleSeller)]], empty: true },
    ],
    readDnsDomains: [
      { args: [scope, [raw(dnsNamedWallet), raw(dnsWallet)]] },
      // The item's owner is not its wallet record.
      { args: [scope, [raw(dnsWallet)]], empty: true },
    ],
  };
}
