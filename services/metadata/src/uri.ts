/**
 * Where a TEP-64 URI is fetched from: http(s) as is; `ipfs://<cid>/<path>` (also `ipfs://ipfs/<cid>`)
 * through the configured gateway, whose URL ends where the CID goes (`https://ipfs.io/ipfs/`).
 * Anything else (data:, tonstorage, a bare host) cannot be fetched: null.
 */
export function fetchUrl(uri: string, ipfsGateway: string): URL | null {
  const text = uri.trim();
  const ipfs = /^ipfs:\/\/(?:ipfs\/)?(.+)$/i.exec(text);
  try {
    if (ipfs) return new URL(ipfs[1], ipfsGateway.endsWith('/') ? ipfsGateway : `${ipfsGateway}/`);
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
