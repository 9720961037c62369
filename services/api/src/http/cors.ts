import type { NextFunction, Request, Response } from 'express';

/** Headers a page may read besides the CORS-safelisted ones: when to retry, the index position, the id of a failure. */
const EXPOSED_HEADERS = 'Retry-After, X-Index-Mc-Seqno, X-Traces-Mc-Seqno, X-Index-Lag-Seconds, X-Request-Id';

/**
 * CORS for /api/v2 and /api/v3, as toncenter answers both: any origin (browser dapps call the API
 * directly). Mounted ahead of the rate limits, so a preflight is answered here without spending the
 * client's allowance and the limits' refusals (401, 429) carry the header a page needs to read them.
 */
export function cors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', String(req.headers['access-control-request-headers'] ?? 'Content-Type, X-API-Key'));
  res.setHeader('Access-Control-Max-Age', '86400');
  res.status(204).end();
}
