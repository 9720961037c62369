import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Bytes the huge document would have: far over any sane metadata limit. */
export const HUGE_BYTES = 100 * 1024 * 1024;
const SLOW_MS = 30_000;

/**
 * A local metadata host for the worker's tests (the network is closed here): `documents` served as
 * JSON by path, plus the bad kinds: `/slow.json` (answers after 30 s), `/huge.json` (100 MB streamed
 * in 64 KiB chunks without a length, written only as fast as the client reads), `/malformed.json`,
 * `/loop/<n>` (each redirects to the next, forever), `/flaky.json` (503 once, then its document),
 * `/hang-once.json` (the first request never answers, later ones do), `/redirect?to=<url>` (a redirect
 * there). Documents under `/held/` are answered only once `release()` was called. Counts requests per
 * path and the bytes `/huge.json` actually sent.
 */
export type MetadataServer = {
  base: string;
  hits(path: string): number;
  /** Requests for documents under `/held/` waiting for `release()`. */
  held(): number;
  /** Answers the held requests and every later one at once. */
  release(): void;
  hugeBytesSent(): number;
  close(): Promise<void>;
};

export async function startMetadataServer(documents: Record<string, unknown>): Promise<MetadataServer> {
  const hits = new Map<string, number>();
  let hugeSent = 0;
  let holding = true;
  const held: (() => void)[] = [];
  const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  function streamHuge(req: IncomingMessage, res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    chunk.write('{"name": "', 0);
    let closed = false;
    res.on('close', () => (closed = true));
    const pump = () => {
      while (!closed && hugeSent < HUGE_BYTES) {
        hugeSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!closed) res.end('"}');
    };
    pump();
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    if (path.startsWith('/held/') && holding && path in documents) return void held.push(() => json(res, documents[path]));
    if (path in documents) return json(res, documents[path]);
    if (path === '/redirect') return void res.writeHead(302, { location: new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/' }).end();
    if (path === '/slow.json') {
      const timer = setTimeout(() => json(res, { name: 'too late' }), SLOW_MS);
      return void res.on('close', () => clearTimeout(timer));
    }
    if (path === '/huge.json') return streamHuge(req, res);
    if (path === '/malformed.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"name": "broken", "symbol": ');
    const loop = /^\/loop\/(\d+)$/.exec(path);
    if (loop) return void res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` }).end();
    if (path === '/flaky.json') return n === 1 ? void res.writeHead(503).end('busy') : json(res, documents['/flaky-document']);
    if (path === '/hang-once.json') return n === 1 ? undefined : json(res, documents['/hang-once-document']);
    res.writeHead(404).end('not found');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (path) => hits.get(path) ?? 0,
    held: () => held.length,
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    hugeBytesSent: () => hugeSent,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
