import { rethrowBugs } from '@tonstream/errors';
import { type Cell, Dictionary, type Slice } from '@ton/core';
import { countedValue } from '../tlb/dict.js';
import { createHash } from 'node:crypto';
import { readAddress, readExactly, requireAddress } from './contract-layout.js';
import { snakeBytes } from './token-content.js';

/** A .ton domain item's records, as toncenter's DNSRecord names them; hex for ADNL addresses and bag ids. */
export type DnsRecords = { dns_next_resolver: string | null; dns_wallet: string | null; dns_site_adnl: string | null; dns_storage_bag_id: string | null };

export type DnsItemData = DnsRecords & {
  index: string;
  collection_address: string | null;
  owner_address: string | null;
  /** The full name, `<name>.ton`; null before the item is initialised. */
  domain: string | null;
};

/** TEP-81 record categories: the key of a record is sha256 of its category name. */
export const DNS_CATEGORIES = ['dns_next_resolver', 'wallet', 'site', 'storage'] as const;
export type DnsCategory = (typeof DNS_CATEGORIES)[number];
export const dnsCategoryKey = (category: string): bigint => BigInt('0x' + createHash('sha256').update(category).digest('hex'));
const CATEGORY_BY_KEY = new Map(DNS_CATEGORIES.map((c) => [dnsCategoryKey(c), c]));

const refValue = { serialize: () => undefined, parse: (s: Slice): Cell => s.loadRef() };
const hex256 = (s: Slice) => s.loadBuffer(32).toString('hex');

/**
 * One DnsRecord (TEP-81): `dns_smc_address#9fd3 smc_addr:MsgAddressInt flags:(## 8) ...`,
 * `dns_next_resolver#ba93 resolver:MsgAddressInt`, `dns_adnl_address#ad01 adnl_addr:bits256 flags:(## 8) ...`,
 * `dns_storage_address#7473 bag_id:bits256`. Null when the value is none of them.
 */
export function readDnsRecord(value: Cell): { type: 'smc' | 'next_resolver' | 'adnl' | 'storage'; value: string } | null {
  try {
    const s = value.beginParse();
    const tag = s.loadUint(16);
    if (tag === 0x9fd3) return { type: 'smc', value: requireAddress(s) };
    if (tag === 0xba93) return { type: 'next_resolver', value: requireAddress(s) };
    if (tag === 0xad01) return { type: 'adnl', value: hex256(s) };
    if (tag === 0x7473) return { type: 'storage', value: hex256(s) };
    return null;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

/** The records of an item's content (`0x00` + HashmapE 256 from category key to ^DnsRecord). */
export function readDnsRecords(content: Cell): DnsRecords {
  const out: DnsRecords = { dns_next_resolver: null, dns_wallet: null, dns_site_adnl: null, dns_storage_bag_id: null };
  const s = content.beginParse();
  if (s.loadUint(8) !== 0) throw new Error('DNS content is not on-chain content');
  const dict = s.loadDict(Dictionary.Keys.BigUint(256), countedValue(refValue) as never) as Dictionary<bigint, Cell>;
  for (const [key, cell] of dict) {
    const category = CATEGORY_BY_KEY.get(key);
    const record = readDnsRecord(cell);
    if (!category || !record) continue;
    if (category === 'wallet' && record.type === 'smc') out.dns_wallet = record.value;
    else if (category === 'dns_next_resolver' && record.type === 'next_resolver') out.dns_next_resolver = record.value;
    else if (category === 'site' && record.type === 'adnl') out.dns_site_adnl = record.value;
    else if ((category === 'storage' || category === 'site') && record.type === 'storage') out.dns_storage_bag_id ??= record.value;
  }
  return out;
}

/**
 * A .ton DNS item (ton-blockchain/dns-contract `nft-item.fc`): `index:uint256 collection:MsgAddress`,
 * then once initialised `owner:MsgAddress content:^Cell domain:^Cell auction:(Maybe ^Cell)
 * last_fill_up_time:uint64`. The domain cell holds the name without `.ton`.
 */
export function readDnsItemData(data: Cell): DnsItemData | null {
  return readExactly(data, (s) => {
    const index = s.loadUintBig(256).toString();
    const collection_address = readAddress(s);
    if (s.remainingBits === 0 && s.remainingRefs === 0) {
      return { index, collection_address, owner_address: null, domain: null, dns_next_resolver: null, dns_wallet: null, dns_site_adnl: null, dns_storage_bag_id: null };
    }
    const owner_address = readAddress(s);
    const records = readDnsRecords(s.loadRef());
    const name = snakeBytes(s.loadRef().beginParse()).toString('utf8');
    s.loadMaybeRef();
    s.loadUintBig(64);
    return { index, collection_address, owner_address, domain: `${name}.ton`, ...records };
  });
}
