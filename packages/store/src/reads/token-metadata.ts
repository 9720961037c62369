import type { Store } from '../client.js';
import { readMetadataEntries, type MetadataEntry } from '../metadata/cache.js';
import { contentUri, itemUri, parseContent } from '../metadata/token-uri.js';
import type { ReadScope } from './scope.js';
import { readJettonMasters, readJettonWallets, readNftCollections, readNftItems, readTokenAddresses, type Row as TokenRow } from './tokens.js';

/**
 * The `metadata` side object (docs/toncenter-v3.md §1.7, §3 AddressMetadata): one entry per token
 * address (Jetton masters and wallets, NFT collections and items); a wallet pulls in its master.
 * On-chain TEP-64 content is served as is. Off-chain and semi-chain content comes from the metadata
 * worker's cache (services/metadata) by its URI (an NFT item's: its collection's common content +
 * its own part): fetched, the document's keys with the on-chain ones over them (TEP-64: on-chain
 * values win); not fetched yet, `is_indexed: false` with the type only (never waited for); failed
 * for good (`failed`, with its reason in the cache), `valid: false` with the on-chain keys.
 */
export type TokenInfo = { valid?: boolean; type: string; name?: string; symbol?: string; description?: string; image?: string; nft_index?: string; extra?: Record<string, unknown> };
export type AddressMetadata = { is_indexed: boolean; token_info: TokenInfo[] };

const NAMED = ['name', 'symbol', 'description', 'image'] as const;

/** TokenInfo from content keys: the named string ones in place, every other key (uri included) in `extra`. */
function info(type: string, valid: boolean, content: Record<string, unknown>, more: Partial<TokenInfo>): TokenInfo {
  const out: TokenInfo = { valid, type, ...more };
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(content)) {
    if ((NAMED as readonly string[]).includes(k) && typeof v === 'string') out[k as (typeof NAMED)[number]] = v;
    else extra[k] = v;
  }
  return Object.keys(extra).length > 0 ? { ...out, extra } : out;
}

/** One token's entry from its stored content, its off-chain URI (null: on chain only) and that URI's cache entry. */
export function tokenMetadata(type: string, contentJson: string | number | undefined, uri: string | null, cached: MetadataEntry | undefined, more: Partial<TokenInfo> = {}): AddressMetadata {
  const onChain = parseContent(contentJson) ?? {};
  if (uri === null) {
    return Object.keys(onChain).length === 0 ? { is_indexed: false, token_info: [{ type, ...more }] } : { is_indexed: true, token_info: [info(type, true, onChain, more)] };
  }
  const withUri = { ...onChain, uri };
  if (cached?.status === 'ok') return { is_indexed: true, token_info: [info(type, true, { ...(parseContent(cached.content) ?? {}), ...withUri }, more)] };
  if (cached?.status === 'failed') return { is_indexed: true, token_info: [info(type, false, withUri, more)] };
  return { is_indexed: false, token_info: [{ type, ...more }] };
}

export async function buildTokenMetadata(store: Store, scope: ReadScope, addresses: Iterable<string | null>): Promise<Record<string, AddressMetadata>> {
  const named = [...new Set([...addresses].filter((a): a is string => a !== null && a !== ''))];
  return tokenMetadataOf(store, scope, await readTokenAddresses(store, scope, named));
}

/** `buildTokenMetadata` of addresses already known to be tokens (readTokenAddresses, AddressFacts.token). */
export async function tokenMetadataOf(store: Store, scope: ReadScope, wanted: string[]): Promise<Record<string, AddressMetadata>> {
  const out: Record<string, AddressMetadata> = {};
  if (wanted.length === 0) return out;
  const page = { limit: wanted.length, offset: 0 };
  const [wallets, items, collections] = await Promise.all([
    readJettonWallets(store, scope, { address: wanted }, page),
    readNftItems(store, scope, { address: wanted }, page),
    readNftCollections(store, scope, { address: wanted }, page),
  ]);
  const masterAddresses = [...new Set([...wanted, ...wallets.map((w) => String(w.jetton))])];
  const itemCollections = [...new Set(items.map((i) => String(i.collection_address)).filter((c) => c !== ''))];
  const [masters, ofItems] = await Promise.all([
    readJettonMasters(store, scope, { address: masterAddresses }, { limit: masterAddresses.length, offset: 0 }),
    itemCollections.length === 0 ? [] : readNftCollections(store, scope, { address: itemCollections }, { limit: itemCollections.length, offset: 0 }),
  ]);
  const common = new Map(ofItems.map((c) => [String(c.address), String(c.common_content)]));
  const uriOf = (i: TokenRow) => itemUri(i.content, i.individual_content, i.collection_address === '' ? '' : common.get(String(i.collection_address)));
  const uris = [...masters.map((m) => contentUri(m.jetton_content)), ...collections.map((c) => contentUri(c.collection_content)), ...items.map(uriOf)].filter((u): u is string => u !== null);
  const cache = uris.length === 0 ? new Map<string, MetadataEntry>() : await readMetadataEntries(store, uris, scope.query);
  const entry = (uri: string | null) => (uri === null ? undefined : cache.get(uri));
  for (const m of masters) {
    const uri = contentUri(m.jetton_content);
    out[String(m.address)] = tokenMetadata('jetton_masters', m.jetton_content, uri, entry(uri));
  }
  for (const c of collections) {
    const uri = contentUri(c.collection_content);
    out[String(c.address)] = tokenMetadata('nft_collections', c.collection_content, uri, entry(uri));
  }
  for (const i of items) {
    const uri = uriOf(i);
    out[String(i.address)] = tokenMetadata('nft_items', i.content, uri, entry(uri), { nft_index: String(i.item_index) });
  }
  for (const w of wallets) out[String(w.address)] = { is_indexed: true, token_info: [{ valid: true, type: 'jetton_wallets', extra: { owner: w.owner, jetton: w.jetton, balance: w.balance } }] };
  return out;
}

/**
 * What each address brings to a `metadata` object on its own, from `buildTokenMetadata`'s answer for
 * many: its own entry, and a Jetton wallet's master's with it (the same pull as above). Addresses
 * that are no token bring nothing (an empty object), so callers can keep that answer too.
 */
export function metadataOfEach(all: Readonly<Record<string, AddressMetadata>>, addresses: Iterable<string>): Map<string, Record<string, AddressMetadata>> {
  const out = new Map<string, Record<string, AddressMetadata>>();
  for (const a of addresses) {
    const own = all[a];
    const brought: Record<string, AddressMetadata> = {};
    if (own) {
      brought[a] = own;
      const master = own.token_info[0]?.type === 'jetton_wallets' ? own.token_info[0].extra?.jetton : undefined;
      if (typeof master === 'string' && all[master]) brought[master] = all[master];
    }
    out.set(a, brought);
  }
  return out;
}
