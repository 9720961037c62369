import type { Request } from 'express';

/**
 * The API key a request carries: the `X-API-Key` header, else the `api_key` query parameter
 * (toncenter §1.2; the header wins, as for v3's other settings). Empty values count as absent; a
 * repeated one takes the last value, as v3's single-valued parameters do.
 */
export function requestApiKey(req: Pick<Request, 'headers' | 'query'>): string | undefined {
  return lastNonEmpty(req.headers['x-api-key']) ?? lastNonEmpty(req.query.api_key);
}

function lastNonEmpty(value: unknown): string | undefined {
  const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
  return values.at(-1);
}
