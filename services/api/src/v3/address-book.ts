import { readCodeHashes, readCodeInterfaces, type ReadScope, type Store } from '@tonstream/store';
import { friendlyAddress, parseAddress } from './address.js';
import { WALLET_TYPES } from './wallets.js';

/**
 * Code hashes (base64) of the standard wallet contracts, v1r1 .. v5r1 (`WALLET_TYPES` in wallets.ts,
 * recomputed from @ton/ton by api-wallets.test.ts). toncenter shows wallets non-bounceable (`UQ…`).
 */
export const WALLET_CODE_HASHES: ReadonlySet<string> = new Set(WALLET_TYPES.keys());

export type AddressBookRow = { user_friendly: string | null; domain: string | null; interfaces: string[] };

/**
 * toncenter's rule (toncenter-v3.md §3 AddressBookRow): bounceable unless the account has no code
 * (no state stored, uninit, nonexist) or runs a known wallet code; test-only flag on testnet.
 */
export function addressBookRow(raw: string, codeHash: string | null, testnet: boolean, interfaces: string[] = []): AddressBookRow {
  const a = parseAddress(raw);
  const bounceable = codeHash !== null && !WALLET_CODE_HASHES.has(codeHash);
  // DNS names need the DNS slice; until then null.
  return { user_friendly: a ? friendlyAddress(a, { bounceable, testOnly: testnet }) : null, domain: null, interfaces };
}

/** The `address_book` of a response: one row per distinct raw address. Code hashes are the latest stored. */
export async function buildAddressBook(store: Store, scope: ReadScope, addresses: Iterable<string | null>, testnet: boolean): Promise<Record<string, AddressBookRow>> {
  const distinct = [...new Set([...addresses].filter((a): a is string => a !== null))];
  const codes = await readCodeHashes(store, scope, distinct);
  const interfaces = await readCodeInterfaces(store, scope, [...codes.values()].filter((c): c is string => c !== null));
  const book: Record<string, AddressBookRow> = {};
  for (const a of distinct) {
    const code = codes.get(a) ?? null;
    book[a] = addressBookRow(a, code, testnet, (code && interfaces.get(code)?.interfaces) || []);
  }
  return book;
}
