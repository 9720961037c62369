import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What one connection may do, from the gateway's headers (reference §2) or the server's defaults. */
export type ConnectionLimits = { key: string; maxConnections: number; maxAddresses: number };

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** -1 (unlimited) for a missing or unreadable value: the reference's advice for quirk 7. */
function limit(text: string | undefined): number {
  if (text === undefined || !/^-?\d{1,9}$/.test(text.trim())) return -1;
  return Number(text.trim());
}

/**
 * A gateway in front may send `X-Limiting-Key`, `X-Max-Parallel-Connections` and
 * `X-Max-Subscribed-Addr`, as toncenter's does. Without it, connections are grouped by API key
 * (`X-API-Key` header, `api_key` or `token` query parameter: the three forms clients use) or, with no
 * key, by client address, under the server's defaults.
 */
export function connectionLimits(req: IncomingMessage, url: URL, defaults: { maxConnections: number; maxAddresses: number }): ConnectionLimits {
  const gatewayKey = header(req, 'x-limiting-key');
  if (gatewayKey !== undefined && gatewayKey !== '') {
    const maxAddr = limit(header(req, 'x-max-subscribed-addr'));
    return { key: `gw:${gatewayKey}`, maxConnections: limit(header(req, 'x-max-parallel-connections')), maxAddresses: maxAddr < 0 ? defaults.maxAddresses : Math.min(maxAddr, defaults.maxAddresses) };
  }
  const apiKey = header(req, 'x-api-key') ?? url.searchParams.get('api_key') ?? url.searchParams.get('token') ?? '';
  const key = apiKey !== '' ? `key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}` : `ip:${req.socket.remoteAddress ?? ''}`;
  return { key, ...defaults };
}

/** Open connections per limiting key, in this process (as toncenter's: per node, §11.10). */
export function createConnectionCounter() {
  const open = new Map<string, number>();
  return {
    /** Takes a slot, or says how many are open when the limit is reached. */
    acquire(l: ConnectionLimits): { ok: true; release: () => void } | { ok: false; active: number } {
      const n = open.get(l.key) ?? 0;
      if (l.maxConnections >= 0 && n >= l.maxConnections) return { ok: false, active: n };
      open.set(l.key, n + 1);
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          const left = (open.get(l.key) ?? 1) - 1;
          if (left <= 0) open.delete(l.key);
          else open.set(l.key, left);
        },
      };
    },
  };
}

export type ConnectionCounter = ReturnType<typeof createConnectionCounter>;
