import { createHash, randomBytes } from 'node:crypto';
import { type Account, Address, beginCell, Cell, Dictionary, internal, storeAccount, storeMessageRelaxed, toNano } from '@ton/core';
import { NftSale } from '@ton-community/assets-sdk';
import { accountStateRecord } from '@tonstream/block';
import { dnsCategoryKey } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { VESTING_V1_CODE_HEX } from '../../packages/localnet/src/traffic/vesting.js';
import { DNS_ITEM_CODE_HEX, MULTISIG_ORDER_CODE_HEX, MULTISIG_V2_CODE_HEX, NFT_AUCTION_V3R2_CODE_BASE64 } from '../../packages/contracts/src/test-support/contract-codes.js';
import { raw } from '../support/ledger.js';

/**
 * Contract states for the contract tables' tests (migration 13): a .ton DNS item, a multisig v2
 * wallet and an order, a vesting wallet, a GetGems sale and an auction, each real contract code
 * with data built as its layout says (the tests compare with the code's own get-methods).
 */

const addr = (label: string) => new Address(0, createHash('sha256').update(label).digest());
const fromHex = (hex: string) => Cell.fromBoc(Buffer.from(hex, 'hex'))[0];

/** An active Account cell as @ton/core serialises it, then the record the decoder makes of it. */
export function builtState(address: Address, code: Cell, data: Cell, lt: bigint, mcSeqno: number): AccountStateRecord {
  const account: Account = {
    addr: address,
    storageStats: { used: { cells: 1n, bits: 1n }, storageExtra: null, lastPaid: 0, duePayment: null },
    storage: { lastTransLt: lt, balance: { coins: toNano(1) }, state: { type: 'active', state: { code, data } } },
  };
  const boc = beginCell().storeBit(1).store(storeAccount(account)).endCell().toBoc();
  return accountStateRecord(boc, { account: raw(address), lastTransLt: String(lt), lastTransHash: randomBytes(32).toString('base64'), mcSeqno, genUtime: 1700000000 + mcSeqno });
}

function addressDict(addresses: Address[]): Cell {
  const d = Dictionary.empty(Dictionary.Keys.Uint(8), Dictionary.Values.Address());
  addresses.forEach((a, i) => d.set(i, a));
  return beginCell().storeDictDirect(d).endCell();
}
export const dictAddresses = (cell: Cell | null) => {
  if (!cell) return [];
  const d = Dictionary.loadDirect(Dictionary.Keys.Uint(8), Dictionary.Values.Address(), cell);
  return d.keys().sort((a, b) => a - b).map((k) => raw(d.get(k)!));
};

// DNS item "tonstream.ton": wallet and site records; a newer version (above the watermark) moves the wallet.
export const DNS = fromHex(DNS_ITEM_CODE_HEX);
export const dnsWallet = addr('dns wallet');
export const dnsWalletLater = addr('dns wallet later');
export function dnsData(wallet: Address, owner = addr('dns owner'), name = 'tonstream'): Cell {
  const records = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  records.set(dnsCategoryKey('wallet'), beginCell().storeUint(0x9fd3, 16).storeAddress(wallet).storeUint(0, 8).endCell());
  records.set(dnsCategoryKey('site'), beginCell().storeUint(0xad01, 16).storeBuffer(Buffer.alloc(32, 0x3c)).storeUint(0, 8).endCell());
  return beginCell().storeUint(12345, 256).storeAddress(addr('dns collection')).storeAddress(owner).storeRef(beginCell().storeUint(0, 8).storeDict(records).endCell())
    .storeRef(beginCell().storeStringTail(name).endCell()).storeMaybeRef(null).storeUint(1_700_000_000, 64).endCell();
}
export const dnsItem = addr('dns item');
// A DNS item "named.ton" whose owner is its own wallet record: that wallet's address-book domain.
export const dnsNamed = addr('dns named');
export const dnsNamedWallet = addr('dns named wallet');

// Multisig v2 with two signers and a proposer; one order whose action sends 1.5 TON with a comment.
export const MULTISIG = fromHex(MULTISIG_V2_CODE_HEX);
export const ORDER = fromHex(MULTISIG_ORDER_CODE_HEX);
export const signers = [addr('signer 0'), addr('signer 1')];
export const proposer = addr('proposer');
export const multisig = addr('multisig');
const multisigData = beginCell().storeUint(2, 256).storeUint(2, 8).storeRef(addressDict(signers)).storeUint(2, 8).storeMaybeRef(addressDict([proposer])).storeBit(false).endCell();
export const payee = addr('payee');
const sendAction = beginCell().storeUint(0xf1381e5b, 32).storeUint(3, 8)
  .storeRef(beginCell().store(storeMessageRelaxed(internal({ to: payee, value: toNano('1.5'), bounce: false, body: 'rent' })))).endCell();
const orderDict = Dictionary.empty(Dictionary.Keys.Uint(8), Dictionary.Values.Cell());
orderDict.set(0, sendAction);
const orderCell = beginCell().storeDictDirect(orderDict).endCell();
export const order = addr('order 1');
const orderData = beginCell().storeAddress(multisig).storeUint(1, 256).storeUint(2, 8).storeBit(false).storeRef(addressDict(signers)).storeUint(1, 256).storeUint(1, 8).storeUint(1_900_000_000, 48).storeRef(orderCell).endCell();

// Vesting wallet with one whitelisted address and an amount above 2^64.
export const VESTING = fromHex(VESTING_V1_CODE_HEX);
export const vesting = addr('vesting');
export const vestingOwner = addr('vesting owner');
export const vestingSender = addr('vesting sender');
export const whitelisted = addr('whitelisted');
const whitelist = Dictionary.empty(Dictionary.Keys.BitString(264), { serialize: (v: boolean, b) => void b.storeBit(v), parse: (s) => s.loadBit() });
whitelist.set(beginCell().storeInt(0, 8).storeBuffer(whitelisted.hash).endCell().beginParse().loadBits(264), true);
const vestingData = beginCell().storeUint(0, 32).storeUint(0x10c, 32).storeBuffer(Buffer.alloc(32, 4)).storeDict(whitelist)
  .storeRef(beginCell().storeUint(1_650_000_000, 64).storeUint(86_400 * 360, 32).storeUint(86_400 * 30, 32).storeUint(0, 32).storeCoins((1n << 70n) + 1n).storeAddress(vestingSender).storeAddress(vestingOwner)).endCell();

// A GetGems fixed-price sale and an auction.
export const sale = addr('sale');
export const saleNft = addr('nft');
export const saleSeller = addr('seller');
const saleData = beginCell().storeBit(false).storeUint(1_700_000_123, 32).storeAddress(addr('marketplace')).storeAddress(saleNft).storeAddress(saleSeller).storeCoins(toNano(25))
  .storeRef(beginCell().storeAddress(addr('marketplace fee')).storeCoins(toNano(1)).storeAddress(addr('royalty')).storeCoins(toNano(2))).storeBit(true).endCell();
export const AUCTION = Cell.fromBase64(NFT_AUCTION_V3R2_CODE_BASE64);
export const auction = addr('auction');
export const auctionSeller = addr('auction seller');
const auctionData = beginCell().storeBit(false).storeBit(true).storeBit(false).storeAddress(addr('bidder')).storeCoins(toNano(7)).storeUint(1_700_000_900, 32).storeUint(1_700_086_400, 32).storeAddress(auctionSeller)
  .storeRef(beginCell().storeAddress(addr('marketplace fee')).storeUint(5, 32).storeUint(100, 32).storeAddress(addr('royalty')).storeUint(3, 32).storeUint(100, 32))
  .storeRef(beginCell().storeInt(9_909_000, 32).storeAddress(addr('marketplace')).storeCoins(toNano(1)).storeCoins(toNano(500)).storeCoins(5).storeUint(300, 32).storeAddress(addr('auctioned nft')).storeUint(1_700_000_000, 32)).endCell();

export const CONTRACTS: [Address, Cell, Cell][] = [[dnsItem, DNS, dnsData(dnsWallet)], [multisig, MULTISIG, multisigData], [order, ORDER, orderData], [vesting, VESTING, vestingData], [sale, NftSale.code, saleData], [auction, AUCTION, auctionData]];

/** Every contract's state at `mcSeqno` (and the named DNS item's), and the DNS item's next version (its wallet moved) at `laterMcSeqno`. */
export function contractStates(mcSeqno: number, laterMcSeqno: number): AccountStateRecord[] {
  const states = CONTRACTS.map(([a, code, data], i) => builtState(a, code, data, 1000n + BigInt(i), mcSeqno));
  states.push(builtState(dnsNamed, DNS, dnsData(dnsNamedWallet, dnsNamedWallet, 'named'), 2000n, mcSeqno));
  states.push(builtState(dnsItem, DNS, dnsData(dnsWalletLater), 5000n, laterMcSeqno));
  return states;
}
