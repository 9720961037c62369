import WebSocket from 'ws';

/** One server-sent frame or WebSocket message as a client saw it. */
export type Received = { event?: string; id?: string; data: Record<string, unknown> };

/**
 * A minimal EventSource-style client over fetch (browsers' EventSource cannot POST): parses
 * `event:`, `id:` and `data:` lines per the SSE rules, ignores comments, keeps every frame.
 */
export function sseClient(url: string, body: unknown, headers: Record<string, string> = {}) {
  const frames: Received[] = [];
  const comments: string[] = [];
  const abort = new AbortController();
  let status = 0;
  let errorBody = '';
  const done = (async () => {
    const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers }, signal: abort.signal });
    status = res.status;
    if (res.status !== 200) {
      errorBody = await res.text();
      return;
    }
    const decoder = new TextDecoder();
    let buf = '';
    let frame: { event?: string; id?: string; data: string[] } = { data: [] };
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        if (line === '') {
          if (frame.data.length > 0) frames.push({ event: frame.event, id: frame.id, data: JSON.parse(frame.data.join('\n')) as Record<string, unknown> });
          frame = { data: [] };
        } else if (line.startsWith(':')) comments.push(line);
        else {
          const colon = line.indexOf(':');
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (name === 'data') frame.data.push(value);
          else if (name === 'event') frame.event = value;
          else if (name === 'id') frame.id = value;
        }
      }
    }
  })().catch((err: unknown) => {
    if ((err as Error).name !== 'AbortError') throw err;
  });
  return {
    frames,
    comments,
    done,
    get status() {
      return status;
    },
    get errorBody() {
      return errorBody;
    },
    /** The stream's `connected` frame came: the streamer sends it as it puts the subscription in place. */
    connected: () => frames.some((f) => f.event === 'connected'),
    close() {
      abort.abort();
    },
  };
}

/** A WebSocket client keeping every JSON message; `request` sends one op and resolves with its reply. */
export async function wsClient(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  const messages: Record<string, unknown>[] = [];
  const waiters: ((m: Record<string, unknown>) => boolean)[] = [];
  let closeInfo: { code: number; reason: string } | null = null;
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Record<string, unknown>;
    messages.push(m);
    for (const w of [...waiters]) if (w(m)) waiters.splice(waiters.indexOf(w), 1);
  });
  ws.on('close', (code, reason) => (closeInfo = { code, reason: reason.toString() }));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    get closed() {
      return closeInfo;
    },
    /** Sends a frame and waits for the next reply (a message without `type`). */
    request(frame: string | Buffer | object, timeoutMs = 10_000): Promise<Record<string, unknown>> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply to ${String(frame).slice(0, 80)}`)), timeoutMs);
        waiters.push((m) => {
          if ('type' in m) return false;
          clearTimeout(timer);
          resolve(m);
          return true;
        });
        ws.send(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame));
      });
    },
    notifications() {
      return messages.filter((m) => 'type' in m);
    },
    close() {
      ws.close();
    },
  };
}
