import { buildTokenMetadata, readAddressFacts, tokenMetadataOf, type AddressMetadata, type ReadScope, type Store } from '@tonstream/store';
import { addressBookOf, type AddressBookRow } from './address-book.js';
import type { Settings } from './request.js';

export type SideObjects = { address_book: Record<string, AddressBookRow>; metadata: Record<string, AddressMetadata> };

/**
 * The `address_book` and `metadata` of a response (each `{}` under X-No-Address-Book / X-No-Metadata)
 * from one read of the addresses' facts (readAddressFacts: code, interfaces, DNS name, token or not);
 * the token reads follow only when some address is a token (token-metadata.ts has the entries' rules).
 */
export async function sideObjects(ctx: { settings: Settings; store: Store; scope: ReadScope; testnet: boolean }, addresses: Iterable<string | null>): Promise<SideObjects> {
  const { settings, store, scope } = ctx;
  if (settings.noAddressBook && settings.noMetadata) return { address_book: {}, metadata: {} };
  // Metadata alone needs only the token lookups, not the code hashes and names of an address book.
  if (settings.noAddressBook) return { address_book: {}, metadata: await buildTokenMetadata(store, scope, addresses) };
  const facts = await readAddressFacts(store, scope, addresses, { tokens: !settings.noMetadata });
  const tokens = [...facts].filter(([, f]) => f.token).map(([a]) => a);
  return {
    address_book: addressBookOf(facts, ctx.testnet),
    metadata: settings.noMetadata ? {} : await tokenMetadataOf(store, scope, tokens),
  };
}
