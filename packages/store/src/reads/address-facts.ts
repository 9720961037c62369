import { bounceableInAddressBook, servedInterfaces } from '@tonstream/contracts';
import type { Store } from '../client.js';
import { codeHashesSql } from './accounts.js';
import { readCodeInterfaces } from './code-interfaces.js';
import { dnsDomainsSql } from './contracts.js';
import type { ReadScope } from './scope.js';
import { type Part, type PartRow, readPart } from './together.js';
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
  return readPart(store, scope, addressFactsPart(store, scope, addresses));
}

/** readAddressFacts as a part of a shared read (together.ts). */
export function addressFactsPart(store: Store, scope: ReadScope, addresses: Iterable<string | null>): Part<Map<string, AddressFacts>> {
  const distinct = [...new Set([...addresses].filter((a): a is string => a !== null))];
  const facts = (watermark: number | null) => [
    `SELECT 'code' AS fact, address, value FROM (${codeHashesSql(store.database, distinct)})`,
    ...(watermark === null
      ? []
      : [
          `SELECT 'domain' AS fact, address, value FROM (${dnsDomainsSql(store, distinct, watermark)})`,
          `SELECT 'token' AS fact, address, '' AS value FROM (${tokenAddressesSql(store.database, distinct, watermark)})`,
        ]),
  ];
  const sql = distinct.length === 0 ? null : `SELECT address AS part_key, [fact, value] AS part_values FROM (${facts(scope.watermark).join(' UNION ALL ')})`;
  const decode = async (rows: PartRow[]) => {
    const codes = new Map<string, string | null>();
    const domains = new Map<string, string>();
    const tokens = new Set<string>();
    for (const { part_key: address, part_values: [fact, value] } of rows) {
      if (fact === 'code') codes.set(address, value === '' ? null : value);
      else if (fact === 'domain') domains.set(address, value);
      else tokens.add(address);
    }
    const interfaces = await readCodeInterfaces(store, scope, [...new Set([...codes.values()].filter((c): c is string => c !== null))]);
    const out = new Map<string, AddressFacts>();
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
  };
  return { sql, decode };
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
