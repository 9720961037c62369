import type { Store } from '../client.js';
import { strList, uint } from '../sql.js';
import { contentUri, itemUri } from './token-uri.js';

type Content = { c: string };
type ItemContent = { content: string; individual_content: string; collection_address: string };

/**
 * The off-chain URIs of the token states (Jetton masters, NFT collections and items) stored for
 * masterchain blocks in (`after`, `upTo`]: once the watermark passed `upTo`, every such row is in.
 * Contents without a `uri` are left out in SQL; an item's untagged content is joined to its
 * collection's common content (the collection's latest row).
 */
export async function readTokenUris(store: Store, after: number, upTo: number): Promise<string[]> {
  const db = store.database;
  const range = `mc_block_seqno > ${uint(after)} AND mc_block_seqno <= ${uint(upTo)}`;
  const [masters, collections, items] = await Promise.all([
    store.query<Content>(`SELECT DISTINCT jetton_content AS c FROM ${db}.jetton_masters WHERE ${range} AND position(jetton_content, '"uri"') > 0`),
    store.query<Content>(`SELECT DISTINCT collection_content AS c FROM ${db}.nft_collections WHERE ${range} AND position(collection_content, '"uri"') > 0`),
    store.query<ItemContent>(`SELECT DISTINCT content, individual_content, collection_address FROM ${db}.nft_items WHERE ${range} AND (position(content, '"uri"') > 0 OR individual_content != '')`),
  ]);
  const common = await readCommonContents(store, items.filter((i) => i.individual_content !== '' && i.collection_address !== '').map((i) => i.collection_address));
  const uris = new Set<string>();
  for (const { c } of [...masters, ...collections]) {
    const uri = contentUri(c);
    if (uri !== null) uris.add(uri);
  }
  for (const i of items) {
    const uri = itemUri(i.content, i.individual_content, i.collection_address === '' ? '' : common.get(i.collection_address));
    if (uri !== null) uris.add(uri);
  }
  return [...uris];
}

/** Each collection's common content (its latest stored row); collections not stored are absent. */
export async function readCommonContents(store: Store, collections: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(collections)];
  const out = new Map<string, string>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await store.query<{ address: string; common_content: string }>(
      `SELECT address, common_content FROM ${store.database}.nft_collections WHERE address IN ${strList(wanted.slice(i, i + 500))} ORDER BY address, last_trans_lt DESC LIMIT 1 BY address`,
    );
    for (const r of rows) out.set(r.address, r.common_content);
  }
  return out;
}
