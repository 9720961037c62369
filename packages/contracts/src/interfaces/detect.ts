import { Cell } from '@ton/core';
import { getMethodIds, methodId } from './method-ids.js';
import { LIBRARY_INTERFACES, libraryHash, type LibraryResolver } from './library.js';
import { WALLET_INTERFACES } from './wallet-codes.js';

/** What a contract's code says it is: toncenter's interface names and its method ids (`contract_methods`). */
export type ContractInterfaces = { interfaces: string[]; methods: number[] | null };

/**
 * Codes toncenter knows by hash (base64; ton-index-go's detector, docs/toncenter-v3.md §4 "Detected
 * interfaces"): a known hash names the contract alone, whatever its get-methods. The GetGems sale and
 * auction versions can only be told apart this way (v2/v3 answer the same get_sale_data).
 */
const BY_CODE_HASH: ReadonlyMap<string, string> = new Map([
  ...WALLET_INTERFACES,
  ['tItTGr7DtxRjgpH3137W3J9qJynvyiBHcTc3TUrotZA=', 'wallet_vesting'],
  ['09FNqaYn8Ow1MzQYKXYq+SuVQLIb8DZl+sCcK0bqu6w=', 'multisig_v2'],
  ['oB4Ff71CiEArmJjXjWe9TpAlTJPFhmh5vC0dEoZUNrw=', 'multisig_order_v2'],
  ['gnj0xSM95vvtyWmvUZNEp6m//FRIVtuphqlcC8+Fcck=', 'nft_sale_getgems_v2'],
  ['JCIfpXHlQuBVx3vt/b9SfHr0YM/cfzRMRQeHtM+h600=', 'nft_sale_getgems_v3'],
  ['3rU7bFdlwebNI4v0e8XoO6WWvcwEsLhM1Qqx5HSgjzE=', 'nft_sale_getgems_v3'],
  ['MgUN+sRPZIZrzIbyzZ4TBf6dyts5WcACI3z7CQLUQyM=', 'nft_sale_getgems_v3'],
  ['a5WmQYucnSNZBF0edVm41UmuDlBvJMqrWPowyPsf64Y=', 'nft_sale_getgems_v4'],
  ['G9nFo5v/t6DzQViLXdkrgTqEK/Ze8UEJOCIAzq+Pct8=', 'nft_auction_getgems_v3'],
  ['ZmiHL6eXBUQ//UdSPo6eqfdquZ+aC1nSfej4GhwnudQ=', 'nft_auction_getgems_v3'],
  ['zlp4U06qps7tja/UhtB262CpsNbb+1Nnb2YmScBomVY=', 'nft_auction_getgems_v4'],
]);

/**
 * Interfaces of any other code, by the get-methods it has (TEP-74 jettons, TEP-62 NFTs, TEP-85 SBT,
 * TEP-81 DNS, multisig v2, vesting wallets, NFT sales and auctions), each with the methods toncenter
 * requires for it: a contract implements a standard when it answers the standard's get-methods,
 * whatever its data layout. As toncenter, every entry whose methods are all present is reported
 * (so an unknown get_sale_data code is both `nft_auction_v1` and `nft_sale`), names sorted.
 */
const BY_METHODS: [name: string, methods: number[]][] = [
  ['jetton_master', ['get_jetton_data', 'get_wallet_address']],
  ['jetton_wallet', ['get_wallet_data']],
  ['nft_collection', ['get_collection_data', 'get_nft_address_by_index', 'get_nft_content']],
  ['nft_item', ['get_nft_data']],
  ['sbt', ['get_authority_address']],
  ['editable', ['get_editor']],
  ['dns', ['dnsresolve']],
  ['multisig_v2', ['get_multisig_data', 'get_order_address']],
  ['multisig_order_v2', ['get_order_data']],
  ['wallet_vesting', ['seqno', 'get_public_key', 'get_vesting_data']],
  ['nft_sale', ['get_sale_data']],
  ['nft_auction_v1', ['get_sale_data']],
  ['nft_sale_getgems_v4', ['get_fix_price_data_v4']],
  ['nft_auction_getgems_v4', ['get_auction_data_v4']],
].map(([name, methods]) => [name as string, (methods as string[]).map(methodId)]);

/** Every name an NFT sale or auction contract is reported under (the contract tables read them all). */
export const NFT_SALE_INTERFACES: ReadonlySet<string> = new Set([
  'nft_sale', 'nft_auction_v1', 'nft_sale_getgems_v2', 'nft_sale_getgems_v3', 'nft_sale_getgems_v4', 'nft_auction_getgems_v3', 'nft_auction_getgems_v4',
]);

/** Every name the detector can report. */
export const DETECTED_INTERFACES: ReadonlySet<string> = new Set([...BY_CODE_HASH.values(), ...BY_METHODS.map(([name]) => name), ...[...LIBRARY_INTERFACES.values()].flat()]);

/**
 * The interfaces of a code (BoC cell) whose hash is `codeHash` (base64). A library cell is read as
 * the library's code when `resolveLibrary` has it, else known by the library's hash. Never throws.
 */
export function detectInterfaces(codeHash: string, code: Cell | null, resolveLibrary?: LibraryResolver): ContractInterfaces {
  const library = code ? libraryHash(code) : null;
  if (library !== null) {
    const resolved = resolveLibrary?.(library) ?? null;
    if (resolved && !resolved.isExotic) return detectInterfaces(resolved.hash().toString('base64'), resolved);
    return { interfaces: LIBRARY_INTERFACES.get(library) ?? [], methods: null };
  }
  const methods = code ? getMethodIds(code) : null;
  const known = BY_CODE_HASH.get(codeHash);
  if (known) return { interfaces: [known], methods };
  if (!methods) return { interfaces: [], methods };
  const has = new Set(methods);
  return { interfaces: BY_METHODS.filter(([, needs]) => needs.every((id) => has.has(id))).map(([name]) => name).sort(), methods };
}

/**
 * `interfaces` as toncenter serves a code's (ton-index-go's detector): the names found; else `[]`
 * when the code gave no get-methods to match (no code, not the standard entry point) and `null`
 * when it has get-methods but they name no interface.
 */
export function servedInterfaces(found: ContractInterfaces): string[] | null {
  if (found.interfaces.length > 0) return found.interfaces;
  return found.methods !== null && found.methods.length > 0 ? null : [];
}

/** Distinct codes remembered by a detector: far more than the standard codes in use on mainnet. */
export const INTERFACE_CACHE_ENTRIES = 10_000;

export type InterfaceDetector = (codeHash: string | null, codeBoc: string | null) => ContractInterfaces;

/**
 * A detector that remembers each code hash's answer (codes are shared by millions of accounts:
 * parsing one is ~50-100 µs). Evicts the oldest entry when full.
 */
export function createInterfaceDetector(maxEntries = INTERFACE_CACHE_ENTRIES, resolveLibrary?: LibraryResolver): InterfaceDetector {
  const cache = new Map<string, ContractInterfaces>();
  return (codeHash, codeBoc) => {
    if (codeHash === null) return { interfaces: [], methods: null };
    const hit = cache.get(codeHash);
    if (hit) return hit;
    let code: Cell | null;
    try {
      code = codeBoc === null ? null : Cell.fromBase64(codeBoc);
    } catch {
      code = null;
    }
    const found = detectInterfaces(codeHash, code, resolveLibrary);
    // Without the code an answer has no methods (and only a known hash names an interface): remembered,
    // it would stand for that code's answer in place of one read from the code.
    if (code === null) return found;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(codeHash, found);
    return found;
  };
}
