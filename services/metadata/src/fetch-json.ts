import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-address.js';

/** How one metadata document is fetched. */
export type FetchOptions = {
  /** Whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Body bytes at most; a larger body is aborted as soon as it passes this (never buffered whole). */
  maxBytes: number;
  /** Redirects followed at most; one more is `too_many_redirects`. */
  maxRedirects: number;
  /**
   * The one origin (`http://127.0.0.1:8080`) that may be on loopback or a private network: a local
   * IPFS gateway the operator configured. Every other URL, each redirect included, must reach a public address.
   */
  privateOrigin?: string;
  /** Stops the fetch (shutdown): the result is `aborted`. */
  signal?: AbortSignal;
};

/** Why a fetch failed; `retryable` failures are tried again later, the others mark the entry failed. */
export type FetchFailure = { ok: false; reason: string; retryable: boolean; detail: string };
export type FetchResult = { ok: true; json: Record<string, unknown>; url: string } | FetchFailure;

const USER_AGENT = 'tonstream-metadata/0.1 (TEP-64 token metadata)';
const fail = (reason: string, retryable: boolean, detail: string): FetchFailure => ({ ok: false, reason, retryable, detail });

/** A DNS lookup that refuses a name if any address it resolves to is not public (see private-address.ts). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const blocked = addresses.find((a) => isPrivateAddress(a.address));
    if (blocked || addresses.length === 0) {
      return callback(Object.assign(new Error(`${hostname} resolves to ${blocked?.address ?? 'nothing'}`), { code: 'EPRIVATEADDRESS' }), '', 0);
    }
    if ((options as LookupOptions).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

type Hop = { kind: 'done'; result: FetchResult } | { kind: 'redirect'; to: URL };

/**
 * GETs a JSON object: follows at most `maxRedirects` redirects (http and https only), fails on a
 * status other than 2xx (5xx, 408 and 429 retryable), on a body over `maxBytes` (by its declared
 * length, else while streaming), on a body that is not a JSON object, and when `timeoutMs` passes.
 */
export async function fetchJson(start: URL, options: FetchOptions): Promise<FetchResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const hop = await requestOnce(url, options, signal, deadline);
    if (hop.kind === 'done') return hop.result;
    if (redirects >= options.maxRedirects) return fail('too_many_redirects', false, `more than ${options.maxRedirects} redirects, the last to ${hop.to.href}`);
    url = hop.to;
  }
}

function requestOnce(url: URL, options: FetchOptions, signal: AbortSignal, deadline: AbortSignal): Promise<Hop> {
  return new Promise<Hop>((resolve) => {
    // Node connects to an IP literal without calling `lookup`, so the literal gets the same check here.
    const guarded = url.origin !== options.privateOrigin;
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (guarded && isIP(literal) !== 0 && isPrivateAddress(literal)) {
      return resolve({ kind: 'done', result: fail('private_address', false, `${url.host} is not a public address`) });
    }
    let settled = false;
    const finish = (hop: Hop) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(hop);
    };
    const done = (result: FetchResult) => finish({ kind: 'done', result });
    const onAbort = () => done(deadline.aborted ? fail('timeout', true, `no complete answer within ${options.timeoutMs} ms`) : fail('aborted', true, 'the worker is stopping'));
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': USER_AGENT },
      ...(guarded ? { lookup: publicOnlyLookup } : {}),
    });
    // Listening before anything can destroy the request: an 'error' without a listener would crash the process.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPRIVATEADDRESS') done(fail('private_address', false, err.message));
      else done(fail('network', true, `${err.code ?? 'error'}: ${err.message}`));
    });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        let to: URL;
        try {
          to = new URL(location, url);
        } catch {
          return done(fail('bad_redirect', false, `unreadable Location ${JSON.stringify(location)}`));
        }
        if (to.protocol !== 'http:' && to.protocol !== 'https:') return done(fail('bad_redirect', false, `redirect to ${to.protocol}`));
        return finish({ kind: 'redirect', to });
      }
      if (status < 200 || status >= 300) return done(fail(`http_${status}`, status >= 500 || status === 408 || status === 429, `HTTP ${status} from ${url.host}`));
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) return done(fail('too_large', false, `Content-Length ${declared} over ${options.maxBytes} bytes`));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) done(fail('too_large', false, `body over ${options.maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', (err) => done(fail('network', true, `body: ${err.message}`)));
      res.on('aborted', () => done(fail('network', true, 'the connection closed mid-body')));
      res.on('end', () => done(parseObject(Buffer.concat(chunks), url)));
    });
    req.end();
  });
}

function parseObject(body: Buffer, url: URL): FetchResult {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    return fail('bad_json', false, `not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('not_object', false, 'JSON, but not an object');
  return { ok: true, json: value as Record<string, unknown>, url: url.href };
}
