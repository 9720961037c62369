import { Cell } from '@ton/core';
import { getMethodIds, methodId } from './method-ids.js';
import { LIBRARY_INTERFACES, libraryHash, type LibraryResolver } from './library.js';
import { WALLET_INTERFACES } from './wallet-codes.js';

/** What a contract's code says it is: toncenter's interface names and its method ids (`contract_methods`). */
export type ContractInterfaces = { interfaces: string[]; methods: number[] | null };

/**
 * Interfaces recognised by the get-methods a code has (TEP-74 jettons, TEP-62 NFTs, TEP-85 SBT,
 * TEP-81 DNS; multisig v1/v2 wallets and orders, vesting, NFT sales and auctions), each with the methods it needs: a contract implements a standard when it answers the
 * standard's get-methods, whatever its data layout.
 */
const BY_METHODS: [name: string, methods: number[]][] = [
  ['jetton_master', ['get_jetton_data', 'get_wallet_address']],
  ['jetton_wallet', ['get_wallet_data']],
  ['nft_collection', ['get_collection_data', 'get_nft_address_by_index', 'get_nft_content']],
  ['nft_item', ['get_nft_data']],
  ['sbt', ['get_nft_data', 'get_authority_address', 'get_revoked_time']],
  ['editable', ['get_editor']],
  ['dns', ['dnsresolve']],
  ['multisig', ['get_multisig_data']],
  ['multisig_order', ['get_order_data']],
  ['multisig_v1', ['get_n_k', 'get_public_keys']],
  ['vesting', ['get_vesting_data']],
  ['nft_sale', ['get_sale_data']],
].map(([name, methods]) => [name as string, (methods as string[]).map(methodId)]);

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
  const wallet = WALLET_INTERFACES.get(codeHash);
  if (wallet) return { interfaces: [wallet], methods: code ? getMethodIds(code) : null };
  const methods = code ? getMethodIds(code) : null;
  if (!methods) return { interfaces: [], methods };
  const has = new Set(methods);
  return { interfaces: BY_METHODS.filter(([, needs]) => needs.every((id) => has.has(id))).map(([name]) => name), methods };
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
    // Without the code only a wallet hash is conclusive: do not remember a guess.
    if (code === null && found.interfaces.length === 0) return found;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(codeHash, found);
    return found;
  };
}
