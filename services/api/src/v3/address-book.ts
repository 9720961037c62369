import { bounceableInAddressBook } from '@tonstream/contracts';
import { type AddressFacts, readAddressFacts, type ReadScope, type Store } from '@tonstream/store';
import { friendlyAddress, parseAddress } from '../chain/address.js';

export type AddressBookRow = { user_friendly: string | null; domain: string | null; interfaces: string[] | null };

/**
 * toncenter's rule (docs/toncenter-v3.md §3 AddressBookRow): bounceable unless the account has no code
 * (no state stored, uninit, nonexist) or runs a known wallet code; test-only flag on testnet.
 * `domain` is the address's DNS name (readDnsDomains), null when it has none.
 */
export function addressBookRow(raw: string, codeHash: string | null, testnet: boolean, interfaces: string[] | null = [], domain: string | null = null): AddressBookRow {
  const a = parseAddress(raw);
  return { user_friendly: a ? friendlyAddress(a, { bounceable: bounceableInAddressBook(codeHash), testOnly: testnet }) : null, domain, interfaces };
}

/**
 * The `address_book` of a response: one row per distinct raw address, from the stored facts of each
 * (readAddressFacts: latest code hash, its interfaces, DNS name; shared with the streamer).
 */
export async function buildAddressBook(store: Store, scope: ReadScope, addresses: Iterable<string | null>, testnet: boolean): Promise<Record<string, AddressBookRow>> {
  return addressBookOf(await readAddressFacts(store, scope, addresses, { tokens: false }), testnet);
}

/** The `address_book` of facts already read. */
export function addressBookOf(facts: ReadonlyMap<string, AddressFacts>, testnet: boolean): Record<string, AddressBookRow> {
  const book: Record<string, AddressBookRow> = {};
  for (const [a, f] of facts) book[a] = addressBookRow(a, f.codeHash, testnet, f.interfaces, f.domain);
  return book;
}
