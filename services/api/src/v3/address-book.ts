import { readCodeHashes, type ReadScope, type Store } from '@tonstream/store';
import { friendlyAddress, parseAddress } from './address.js';

/**
 * Code hashes (base64) of the standard wallet contracts, v1r1 .. v5r1 (what @ton/ton deploys;
 * address-book.test.ts recomputes them). toncenter shows wallets non-bounceable (`UQ…`).
 */
export const WALLET_CODE_HASHES: ReadonlySet<string> = new Set([
  'oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=', // v1r1
  '1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=', // v1r2
  'WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=', // v1r3
  'XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=', // v2r1
  '/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=', // v2r2
  'thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=', // v3r1
  'hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=', // v3r2
  '/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=', // v4r2
  '89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=', // v5 beta
  'IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=', // v5r1
]);

export type AddressBookRow = { user_friendly: string | null; domain: string | null; interfaces: string[] };

/**
 * toncenter's rule (toncenter-v3.md §3 AddressBookRow): bounceable unless the account has no code
 * (no state stored, uninit, nonexist) or runs a known wallet code; test-only flag on testnet.
 */
export function addressBookRow(raw: string, codeHash: string | null, testnet: boolean): AddressBookRow {
  const a = parseAddress(raw);
  const bounceable = codeHash !== null && !WALLET_CODE_HASHES.has(codeHash);
  // DNS names and interfaces need the DNS and contracts slices; until then null and [].
  return { user_friendly: a ? friendlyAddress(a, { bounceable, testOnly: testnet }) : null, domain: null, interfaces: [] };
}

/** The `address_book` of a response: one row per distinct raw address. Code hashes are the latest stored. */
export async function buildAddressBook(store: Store, scope: ReadScope, addresses: Iterable<string | null>, testnet: boolean): Promise<Record<string, AddressBookRow>> {
  const distinct = [...new Set([...addresses].filter((a): a is string => a !== null))];
  const codes = await readCodeHashes(store, scope, distinct);
  const book: Record<string, AddressBookRow> = {};
  for (const a of distinct) book[a] = addressBookRow(a, codes.get(a) ?? null, testnet);
  return book;
}
