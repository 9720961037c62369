import { readJettonMasters, readJettonWallets, readNftCollections, readNftItems, type ReadScope, type Store, type TokenRow } from '@tonstream/store';

/**
 * The `metadata` side object (toncenter-v3.md §1.7, §3 AddressMetadata): one entry per token
 * address (Jetton masters and wallets, NFT collections and items); a wallet pulls in its master.
 * On-chain TEP-64 content is served as is (`is_indexed: true`); off-chain content needs the
 * metadata fetcher (not built yet), so such entries are `is_indexed: false` with the type only.
 */
export type TokenInfo = { valid?: boolean; type: string; name?: string; symbol?: string; description?: string; image?: string; nft_index?: string; extra?: Record<string, unknown> };
export type AddressMetadata = { is_indexed: boolean; token_info: TokenInfo[] };

const NAMED = ['name', 'symbol', 'description', 'image'] as const;

function fromContent(type: string, json: string | number | undefined, more: Partial<TokenInfo> = {}): AddressMetadata {
  const content = json ? (JSON.parse(String(json)) as Record<string, string>) : null;
  if (!content || content.uri !== undefined && content.name === undefined) return { is_indexed: false, token_info: [{ type, ...more }] };
  const info: TokenInfo = { valid: true, type, ...more };
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(content)) {
    if ((NAMED as readonly string[]).includes(k)) info[k as (typeof NAMED)[number]] = v;
    else extra[k] = v;
  }
  return { is_indexed: true, token_info: [{ ...info, ...(Object.keys(extra).length > 0 ? { extra } : {}) }] };
}

export async function buildTokenMetadata(store: Store, scope: ReadScope, addresses: Iterable<string | null>): Promise<Record<string, AddressMetadata>> {
  const wanted = [...new Set([...addresses].filter((a): a is string => a !== null && a !== ''))];
  const out: Record<string, AddressMetadata> = {};
  if (wanted.length === 0) return out;
  const page = { limit: wanted.length, offset: 0 };
  const [wallets, items, collections] = await Promise.all([
    readJettonWallets(store, scope, { address: wanted }, page),
    readNftItems(store, scope, { address: wanted }, page),
    readNftCollections(store, scope, { address: wanted }, page),
  ]);
  const masterAddresses = [...new Set([...wanted, ...wallets.map((w) => String(w.jetton))])];
  const masters = await readJettonMasters(store, scope, { address: masterAddresses }, { limit: masterAddresses.length, offset: 0 });
  for (const m of masters as TokenRow[]) out[String(m.address)] = fromContent('jetton_masters', m.jetton_content);
  for (const c of collections) out[String(c.address)] = fromContent('nft_collections', c.collection_content);
  for (const i of items) out[String(i.address)] = fromContent('nft_items', i.content, { nft_index: String(i.item_index) });
  for (const w of wallets) out[String(w.address)] = { is_indexed: true, token_info: [{ valid: true, type: 'jetton_wallets', extra: { owner: w.owner, jetton: w.jetton, balance: w.balance } }] };
  return out;
}
