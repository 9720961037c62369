import { type Cell, Dictionary, type Slice } from '@ton/core';

/**
 * Code kept in a library cell (an exotic cell of type 2 holding the code's hash) is shared by every
 * contract of that kind: USDT's and other stablecoin/v2 Jetton wallets are deployed this way, so
 * their own code has no method dictionary to read. Such a code is known by the library's hash, or
 * read after resolving the library (the masterchain's library collection; a liteserver's
 * getLibraries answers the same cells).
 */

/** Library cell tag (the first byte of its data); the 256-bit hash of the code follows. */
const LIBRARY_CELL_TYPE = 2;

/**
 * Interfaces of library codes by the library's hash (hex), for when the library itself is not at
 * hand. Each was read from the resolved code's get-methods (library.test.ts checks it against the
 * mainnet libraries).
 */
export const LIBRARY_INTERFACES: ReadonlyMap<string, string[]> = new Map([
  // USDT (Tether) Jetton wallet, the stablecoin contract's wallet.
  ['8F452D7A4DFD74066B682365177259ED05734435BE76B5FD4BD5D8AF2B7C3D68', ['jetton_wallet']],
  // A Jetton master deployed with its code in a library (in mainnet block 71398501).
  ['A9338ECD624CA15D37E4A8D9BF677DDC9B84F0E98F05F2FB84C7AFE332A281B4', ['jetton_master']],
]);

/** The code a library hash (hex, upper case) stands for, when known. */
export type LibraryResolver = (hash: string) => Cell | null;

/** The library hash (hex, upper case) a code cell refers to, or null when the code is ordinary. */
export function libraryHash(code: Cell): string | null {
  if (!code.isExotic || code.bits.length !== 8 + 256) return null;
  const s = code.beginParse(true);
  if (s.loadUint(8) !== LIBRARY_CELL_TYPE) return null;
  return s.loadBuffer(32).toString('hex').toUpperCase();
}

// shared_lib_descr$00 lib:^Cell publishers:(Hashmap 256 True) = LibDescr;
const libDescr = { serialize: () => { throw new Error('LibDescr is read only'); }, parse: (s: Slice) => (s.loadUint(2), s.loadRef()) };

/**
 * A resolver over a masterchain library collection (`HashmapE 256 LibDescr`, as in the masterchain
 * state and a block's config for the emulator). A library whose cell does not hash to its key is
 * not answered.
 */
export function librariesFromCollection(root: Cell): LibraryResolver {
  const dict = Dictionary.loadDirect(Dictionary.Keys.BigUint(256), libDescr as never, root) as Dictionary<bigint, Cell>;
  return (hash) => {
    const cell = dict.get(BigInt(`0x${hash}`)) ?? null;
    return cell && cell.hash().toString('hex').toUpperCase() === hash ? cell : null;
  };
}
