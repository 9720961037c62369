/**
 * Where a token's off-chain metadata lives, from the token rows as stored (migration 9): the `uri`
 * of its TEP-64 content (off-chain `{uri}`, or semi-chain: on-chain keys beside a `uri`), or for an
 * NFT item whose content is untagged, its collection's common content followed by that individual
 * part (TEP-62's standard get_nft_content). null when the content is fully on chain or unknown.
 */
export function contentUri(contentJson: string | number | undefined): string | null {
  const content = parseContent(contentJson);
  const uri = content?.uri;
  return typeof uri === 'string' && uri.trim() !== '' ? uri.trim() : null;
}

/** An NFT item's URI; `commonContent` is its collection's (undefined when that collection is not stored). */
export function itemUri(contentJson: string | number | undefined, individualContent: string | number | undefined, commonContent: string | undefined): string | null {
  const own = contentUri(contentJson);
  if (own !== null) return own;
  const individual = String(individualContent ?? '');
  if (individual === '' || commonContent === undefined) return null;
  const uri = (commonContent + individual).trim();
  return uri === '' ? null : uri;
}

/** A stored content column (JSON text of a TEP-64 content, '' for none) as an object; null when absent or not an object. */
export function parseContent(contentJson: string | number | undefined): Record<string, unknown> | null {
  if (contentJson === undefined || contentJson === '') return null;
  try {
    const v: unknown = JSON.parse(String(contentJson));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
