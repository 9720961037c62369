import { recoverWith } from '@tonstream/errors';
import { Address, type Cell, Dictionary, type TupleItem } from '@ton/core';
import { createHash } from 'node:crypto';
import type { Liteserver } from '../chain/liteserver.js';
import { friendlyAddress } from '../chain/address.js';
import { required } from '../http/params.js';
import { V2Error } from './envelope.js';
import { runGetMethod } from '../chain/get-method.js';
import * as kinds from './kinds.js';
import { defineMethod } from './method.js';

/**
 * getTokenData (docs/toncenter-v2.md §2.1) from the standard get-methods (TEP-74 Jettons, TEP-62 NFTs)
 * run on the liteserver; content decoded per TEP-64 (off-chain URL or on-chain dictionary of the
 * standard keys); an item's content is completed through its collection's get_nft_content. Not here:
 * verification against the master/collection and .ton DNS content.
 */

const CONTENT_KEYS = ['uri', 'name', 'description', 'image', 'image_data', 'symbol', 'decimals', 'amount_style', 'render_type'];
const KEY_BY_HASH = new Map(CONTENT_KEYS.map((k) => [BigInt(`0x${createHash('sha256').update(k).digest('hex')}`), k]));

function snakeText(c: Cell): string {
  const s = c.beginParse();
  if (s.remainingBits >= 8 && s.preloadUint(8) === 0) s.skip(8);
  return s.loadStringTail();
}

/** TEP-64 content: `0x01` + URL (off-chain) or `0x00` + dictionary sha256(key) → ^snake value (on-chain). */
export function tokenContent(c: Cell): { type: 'onchain' | 'offchain'; data: string | Record<string, string> } {
  const s = c.beginParse();
  const layout = s.remainingBits >= 8 ? s.loadUint(8) : -1;
  if (layout === 1) return { type: 'offchain', data: s.loadStringTail() };
  const data: Record<string, string> = {};
  if (layout === 0) {
    const dict = s.loadDict(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    for (const [k, v] of dict) {
      const key = KEY_BY_HASH.get(k);
      if (key) data[key] = snakeText(v);
    }
  }
  return { type: 'onchain', data };
}

const addressOf = (item: TupleItem | undefined, testnet: boolean): string | null => {
  if (!item || (item.type !== 'slice' && item.type !== 'cell')) return null;
  const a = item.cell.beginParse().loadMaybeAddress();
  return a instanceof Address ? friendlyAddress({ workchain: a.workChain, hash: a.hash }, { bounceable: true, testOnly: testnet }) : null;
};
/**
 * An NFT item's full content: an item of a collection holds only its individual part, which the
 * collection's `get_nft_content(index, individual_content)` completes (TEP-62); a lone item's is whole.
 */
async function itemContent(lite: Liteserver, item: TupleItem[]): Promise<Cell | undefined> {
  const individual = cellOf(item[4]);
  const collection = item[2]?.type === 'slice' || item[2]?.type === 'cell' ? item[2].cell.beginParse().loadMaybeAddress() : null;
  if (!individual || !(collection instanceof Address)) return individual;
  const run = await runGetMethod(lite, { workchain: collection.workChain, hash: collection.hash }, 'get_nft_content', [{ type: 'int', value: intOf(item[1]) ?? 0n }, { type: 'cell', cell: individual }]);
  return run.exitCode === 0 ? cellOf(run.stack[0]) : individual;
}

const intOf = (item: TupleItem | undefined) => (item?.type === 'int' ? item.value : undefined);
const cellOf = (item: TupleItem | undefined) => (item && (item.type === 'cell' || item.type === 'slice') ? item.cell : undefined);
const b64 = (c: Cell | undefined) => c?.toBoc().toString('base64') ?? '';

export const getTokenData = defineMethod({
  name: 'getTokenData',
  summary: 'Jetton master/wallet or NFT collection/item data from their get-methods',
  source: 'liteserver',
  params: { address: required(kinds.address, 'Token contract address.') },
  async handle({ params: { address }, lite, testnet }) {
    const self = friendlyAddress(address, { bounceable: true, testOnly: testnet });
    const run = (m: string) => runGetMethod(lite, address, m, []).then((r) => (r.exitCode === 0 ? r.stack : undefined)).catch(recoverWith(undefined));
    const [jetton, wallet, item, collection] = await Promise.all([run('get_jetton_data'), run('get_wallet_data'), run('get_nft_data'), run('get_collection_data')]);
    try {
      if (jetton && jetton.length >= 5) {
        const admin = addressOf(jetton[2], testnet);
        return { '@type': 'ext.tokens.jettonMasterData', address: self, contract_type: 'jetton_master', total_supply: String(intOf(jetton[0]) ?? 0n), mintable: intOf(jetton[1]) !== 0n, ...(admin ? { admin_address: admin } : {}), jetton_content: tokenContent(cellOf(jetton[3])!), jetton_wallet_code: b64(cellOf(jetton[4])) };
      }
      if (wallet && wallet.length >= 4) {
        return { '@type': 'ext.tokens.jettonWalletData', address: self, contract_type: 'jetton_wallet', balance: String(intOf(wallet[0]) ?? 0n), owner: addressOf(wallet[1], testnet), jetton: addressOf(wallet[2], testnet), jetton_wallet_code: b64(cellOf(wallet[3])) };
      }
      if (item && item.length >= 5) {
        const collectionAddress = addressOf(item[2], testnet);
        const owner = addressOf(item[3], testnet);
        const content = await itemContent(lite, item);
        return { '@type': 'ext.tokens.nftItemData', address: self, contract_type: 'nft_item', init: intOf(item[0]) !== 0n, index: String(intOf(item[1]) ?? 0n), ...(collectionAddress ? { collection_address: collectionAddress } : {}), ...(owner ? { owner_address: owner } : {}), content: content ? tokenContent(content) : { type: 'onchain', data: {} } };
      }
      if (collection && collection.length >= 3) {
        const owner = addressOf(collection[2], testnet);
        return { '@type': 'ext.tokens.nftCollectionData', address: self, contract_type: 'nft_collection', next_item_index: String(intOf(collection[0]) ?? 0n), ...(owner ? { owner_address: owner } : {}), collection_content: tokenContent(cellOf(collection[1])!) };
      }
    } catch (err) {
      throw new V2Error(409, `Smart contract ${self} answers the token get-methods with data that does not decode: ${(err as Error).message}`);
    }
    throw new V2Error(409, `Smart contract ${self} is not Jetton or NFT`);
  },
});
