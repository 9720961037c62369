import { bounceableInAddressBook, servedInterfaces } from '@tonstream/contracts';
import type { Store } from '../client.js';
import { codeHashesSql } from './accounts.js';
import { readCodeInterfaces } from './code-interfaces.js';
import { dnsDomainsSql } from './contracts.js';
import { pointRead, type ReadScope } from './scope.js';
import { tokenAddressesSql } from './tokens.js';

/** What an address book row says of an address besides its user-friendly form, and whether it has a metadata entry. */
export type AddressFacts = {
  codeHash: string | null;
  interfaces: string[] | null;
  domain: string | null;
  /** The address book's user-friendly form is bounceable (bounceableInAddressBook). */
  bounceable: boolean;
  /** A Jetton master or wallet, an NFT collection or item at or below the watermark: `buildTokenMetadata` has an entry for it. */
  token: boolean;
};

/**
 * The stored facts of each address a response's side objects show (docs/toncenter-v3.md §3
 * AddressBookRow, AddressMetadata): its latest code hash, the interfaces detected for that code, its
 * DNS name (readDnsDomains) and whether it is a token (readTokenAddresses). One query for the three
 * reads (a UNION ALL: one round trip where there were three), then the interfaces of the codes found
 * (readCodeInterfaces: kept per store, so mostly no query). Every address asked gets an entry (null
 * code, no interfaces, no name, no token when nothing is stored).
 */
export async function readAddressFacts(store: Store, scope: ReadScope, addresses: Iterable<string | null>): Promise<Map<string, AddressFacts>> {
  const distinct = [...new Set([...addresses].filter((a): a is string => a !== null))];
  const out = new Map<string, AddressFacts>();
  if (distinct.length === 0) return out;
  const db = store.database;
  const parts = [`SELECT 'code' AS fact, address, value FROM (${codeHashesSql(db, distinct)})`];
  if (scope.watermark !== null) {
    parts.push(`SELECT 'domain' AS fact, address, value FROM (${dnsDomainsSql(store, distinct, scope.watermark)})`);
    parts.push(`SELECT 'token' AS fact, address, '' AS value FROM (${tokenAddressesSql(db, distinct, scope.watermark)})`);
  }
  const rows = await store.query<{ fact: 'code' | 'domain' | 'token'; address: string; value: string }>(parts.join(' UNION ALL '), pointRead(scope));
  const codes = new Map<string, string | null>();
  const domains = new Map<string, string>();
  const tokens = new Set<string>();
  for (const r of rows) {
    if (r.fact === 'code') codes.set(r.address, r.value === '' ? null : r.value);
    else if (r.fact === 'domain') domains.set(r.address, r.value);
    else tokens.add(r.address);
  }
  const interfaces = await readCodeInterfaces(store, scope, [...new Set([...codes.values()].filter((c): c is string => c !== null))]);
  for (const a of distinct) {
    const stored = codes.get(a);
    const codeHash = stored ?? null;
    out.set(a, {
      codeHash,
      interfaces: addressBookInterfaces(stored, stored ? interfaces.get(stored) : undefined),
      domain: domains.get(a) ?? null,
      bounceable: bounceableInAddressBook(codeHash),
      token: tokens.has(a),
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
