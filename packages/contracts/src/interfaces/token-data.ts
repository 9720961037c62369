import { rethrowBugs } from '@tonstream/errors';
import type { Address, Cell, Slice } from '@ton/core';
import { cellsFromBoc } from '../lazy-cells.js';
import { readSnakeText, readTokenContent, type TokenContent } from './token-content.js';

/*
 * Token contracts' persistent data (c4) read by layout, giving what their standard get-methods
 * answer. A layout matches only when it reads the cell exactly (every bit and reference), so a
 * contract that stores something else is not misread; it is then unknown (null).
 * Addresses are raw (`0:ABC…`, upper case), amounts decimal strings (Coins reach 2^120).
 */

export type JettonWalletData = { balance: string; owner: string; jetton: string };
export type JettonMasterData = { total_supply: string; mintable: boolean; admin_address: string | null; jetton_content: TokenContent | null; jetton_wallet_code_hash: string };
export type NftItemData = { init: boolean; index: string; collection_address: string | null; owner_address: string | null; content: TokenContent | null; individual_content: string | null };
export type NftCollectionData = { owner_address: string | null; next_item_index: string; collection_content: TokenContent | null; common_content: string | null };

export function rawAddress(a: Address): string {
  return `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
}

/** MsgAddress: an internal address, null for addr_none; an external address does not fit. */
function address(s: Slice): string | null {
  const a = s.loadAddressAny();
  if (a === null) return null;
  if (!('workChain' in a)) throw new Error('external address');
  return rawAddress(a as Address);
}

function required(a: string | null): string {
  if (a === null) throw new Error('addr_none where an address is required');
  return a;
}

function exact<T>(data: Cell, read: (s: Slice) => T, refs: number): T | null {
  try {
    const s = data.beginParse();
    const value = read(s);
    return s.remainingBits === 0 && s.remainingRefs === refs ? value : null;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

/** Tries layouts in order; the first that reads the cell exactly wins. */
function firstOf<T>(data: Cell, layouts: [read: (s: Slice) => T, refsLeft: number][]): T | null {
  for (const [read, refs] of layouts) {
    const v = exact(data, read, refs);
    if (v !== null) return v;
  }
  return null;
}

/**
 * Jetton wallet: TEP-74's `balance:Coins owner:MsgAddressInt jetton:MsgAddressInt wallet_code:^Cell`,
 * or the stablecoin/v2 wallet's (USDT, Notcoin) `status:uint4` first and no code (a library).
 */
export function readJettonWalletData(data: Cell): JettonWalletData | null {
  const body = (s: Slice): JettonWalletData => ({ balance: s.loadCoins().toString(), owner: required(address(s)), jetton: required(address(s)) });
  return firstOf(data, [
    [(s) => { const v = body(s); s.loadRef(); return v; }, 0],
    [(s) => { s.loadUint(4); return body(s); }, 0],
  ]);
}

/**
 * Jetton master: TEP-74's minter `total_supply:Coins admin:MsgAddress content:^Cell wallet_code:^Cell`,
 * or the stablecoin minter's `total_supply admin next_admin wallet_code:^Cell metadata_uri:^Cell`
 * (its get_jetton_data answers off-chain content with that URI). Both minters answer mintable = true.
 */
export function readJettonMasterData(data: Cell): JettonMasterData | null {
  return firstOf(data, [
    [(s) => {
      const total_supply = s.loadCoins().toString();
      const admin_address = address(s);
      const content = s.loadRef();
      const code = s.loadRef();
      return { total_supply, mintable: true, admin_address, jetton_content: readTokenContent(content), jetton_wallet_code_hash: code.hash().toString('base64') };
    }, 0],
    [(s) => {
      const total_supply = s.loadCoins().toString();
      const admin_address = address(s);
      address(s);
      const code = s.loadRef();
      const uri = readSnakeText(s.loadRef());
      return { total_supply, mintable: true, admin_address, jetton_content: uri === null ? null : { uri }, jetton_wallet_code_hash: code.hash().toString('base64') };
    }, 0],
  ]);
}

/**
 * NFT item (TEP-62 reference item): `index:uint64 collection:MsgAddress`, then once initialised
 * `owner:MsgAddress content:^Cell`; SBTs (TEP-85) add `authority:MsgAddress revoked_at:uint64`,
 * editable items `editor:MsgAddress`. A content without a TEP-64 tag is the individual part of an
 * off-chain URI (the collection's common content comes first).
 */
export function readNftItemData(data: Cell): NftItemData | null {
  const head = (s: Slice) => ({ index: s.loadUintBig(64).toString(), collection_address: address(s) });
  const full = (s: Slice) => {
    const h = head(s);
    const owner_address = address(s);
    const content = s.loadRef();
    const tagged = readTokenContent(content);
    return { init: true, ...h, owner_address, content: tagged, individual_content: tagged ? null : readSnakeText(content) };
  };
  return firstOf<NftItemData>(data, [
    [full, 0],
    [(s) => { const v = full(s); address(s); s.loadUintBig(64); return v; }, 0],
    [(s) => { const v = full(s); address(s); return v; }, 0],
    [(s) => ({ init: false, ...head(s), owner_address: null, content: null, individual_content: null }), 0],
  ]);
}

/**
 * NFT collection (TEP-62 reference): `owner:MsgAddress next_item_index:uint64 content:^Cell
 * nft_item_code:^Cell royalty_params:^Cell`, content being `^collection_content ^common_content`.
 * The contract reads only the content's references: get_collection_data answers the first,
 * get_nft_content prefixes items with the second. A content without references makes
 * get_collection_data fail (cell underflow), so such data is not a collection we can answer for.
 */
export function readNftCollectionData(data: Cell): NftCollectionData | null {
  return firstOf(data, [
    [(s) => {
      const owner_address = address(s);
      const next_item_index = s.loadUintBig(64).toString();
      const content = s.loadRef();
      s.loadRef();
      s.loadRef();
      if (content.refs.length === 0) throw new Error('collection content without references');
      const collection_content = readTokenContent(content.refs[0]);
      const common_content = content.refs.length > 1 ? readSnakeText(content.refs[1]) : null;
      return { owner_address, next_item_index, collection_content, common_content };
    }, 0],
  ]);
}

/**
 * The data BoC (base64) as one cell, or null; its hashes deferred (lazy-cells.ts): every account
 * state's data is read, and hashing it was a sixth of the tracer's time when it read them.
 */
export function dataCell(boc: string | null): Cell | null {
  if (boc === null) return null;
  try {
    const roots = cellsFromBoc(Buffer.from(boc, 'base64'));
    return roots.length === 1 ? roots[0] : null;
  } catch {
    return null;
  }
}
