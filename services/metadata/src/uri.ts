import { rethrowBugs } from '@tonstream/errors';

/** `<cid>[/path][?query]` after `ipfs://` (or `ipfs://ipfs/`); a CID as written in URIs is letters and digits (CIDv0 base58btc, CIDv1 base32 or base36). */
const IPFS_PATH = /^([a-z0-9]+)([/?#].*)?$/i;

/**
 * Where a TEP-64 URI is fetched from: http(s) as is; `ipfs://<cid>/<path>` through the configured
 * gateway, whose URL ends where the CID goes (`https://ipfs.io/ipfs/`), and only under
 * `<gateway>/<cid>`: `ipfs://http://host/`, dot segments or backslashes never lead elsewhere.
 * Anything else (data:, tonstorage, a bare host, an ipfs URI that would escape) cannot be fetched: null.
 */
export function fetchUrl(uri: string, ipfsGateway: string): URL | null {
  const text = uri.trim();
  try {
    if (/^ipfs:/i.test(text)) {
      const ipfs = IPFS_PATH.exec(text.replace(/^ipfs:\/\/(?:ipfs\/)?/i, ''));
      if (!ipfs) return null;
      const [, cid, rest = ''] = ipfs;
      const gateway = new URL(ipfsGateway.endsWith('/') ? ipfsGateway : `${ipfsGateway}/`);
      const url = new URL(cid + rest, gateway);
      const root = gateway.pathname + cid;
      const under = url.pathname === root || url.pathname.startsWith(`${root}/`);
      return url.origin === gateway.origin && under ? url : null;
    }
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}
