import { bounceableInAddressBook, servedInterfaces } from '@tonstream/contracts';
import type { Store } from '../client.js';
import { readCodeHashes } from './accounts.js';
import { readCodeInterfaces } from './code-interfaces.js';
import { readDnsDomains } from './contracts.js';
import type { ReadScope } from './scope.js';
import { readTokenAddresses } from './tokens.js';

/** What an address book row says of an address besides its user-friendly form, and whether it has a metadata entry. */
export type AddressFacts = {
  codeHash: string | null;
  interfaces: string[] | null;
  domain: string | null;
  /** The address book's user-friendly form is bounceable (bounceableInAddressBook). */
  bounceable: boolean;
  /** A Jetton master or wallet, an NFT collection or item at or below the watermark: `buildTokenMetadata` has an entry for it (false when not asked). */
  token: boolean;
};

/**
 * The stored facts of each address a response's side objects show (docs/toncenter-v3.md §3
 * AddressBookRow, AddressMetadata): its latest code hash, the interfaces detected for that code, its
 * DNS name (readDnsDomains) and, unless `tokens` is false (an address book alone), whether it is a token
 * (readTokenAddresses). The three reads side by side (three small queries cost 18.16 less than one
 * combining them: store README), then the interfaces of the codes found (readCodeInterfaces: kept per
 * store, so mostly no query). Every address asked gets an entry (null code, no interfaces, no name, no
 * token when nothing is stored).
 */
export async function readAddressFacts(store: Store, scope: ReadScope, addresses: Iterable<string | null>, options: { tokens?: boolean } = {}): Promise<Map<string, AddressFacts>> {
  const distinct = [...new Set([...addresses].filter((a): a is string => a !== null))];
  const out = new Map<string, AddressFacts>();
  if (distinct.length === 0) return out;
  const [codes, domains, tokens] = await Promise.all([
    readCodeHashes(store, scope, distinct),
    readDnsDomains(store, scope, distinct),
    options.tokens === false ? [] : readTokenAddresses(store, scope, distinct),
  ]);
  const tokenSet = new Set(tokens);
  const interfaces = await readCodeInterfaces(store, scope, [...new Set([...codes.values()].filter((c): c is string => c !== null))]);
  for (const a of distinct) {
    const stored = codes.get(a);
    const codeHash = stored ?? null;
    out.set(a, {
      codeHash,
      interfaces: addressBookInterfaces(stored, stored ? interfaces.get(stored) : undefined),
      domain: domains.get(a) ?? null,
      bounceable: bounceableInAddressBook(codeHash),
      token: tokenSet.has(a),
    });
  }
  return out;
}

/**
 * An address's `interfaces` as ton-index-go's address book has them: `[]` when no state of it is
 * stored (`codeHash` undefined), null when its state has no code, else `servedInterfaces` of what the
 * writer detected for the code (`contract_interfaces`; none stored: no get-methods were found).
 */
export function addressBookInterfaces(codeHash: string | null | undefined, ofCode: { interfaces: string[]; methods: number[] } | undefined): string[] | null {
  if (codeHash === undefined) return [];
  if (codeHash === null) return null;
  return servedInterfaces({ interfaces: ofCode?.interfaces ?? [], methods: ofCode?.methods ?? null });
}
