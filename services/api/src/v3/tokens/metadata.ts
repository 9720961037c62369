import { buildTokenMetadata, type AddressMetadata, type ReadScope, type Store } from '@tonstream/store';
import type { Settings } from '../request.js';

/**
 * `metadata` of a response: {} under X-No-Metadata. The entries' rules live in the store's read layer
 * (reads/token-metadata.ts), shared with the streamer's notifications.
 */
export async function metadataSideObject(ctx: { settings: Settings; store: Store; scope: ReadScope }, addresses: Iterable<string | null>): Promise<Record<string, AddressMetadata>> {
  return ctx.settings.noMetadata ? {} : buildTokenMetadata(ctx.store, ctx.scope, addresses);
}
