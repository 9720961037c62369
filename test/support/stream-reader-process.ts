/**
 * A Streaming API WebSocket reader in a process of its own, so how fast it reads does not depend on
 * a test process that is busy producing the load (built to test/bench/dist/support/ by `npx tsc -b`):
 *
 *   fork('stream-reader-process.js', [wsUrl, subscribeFrameJson])
 *
 * It sends the frame once connected, keeps the cursor of every notification, and answers its parent
 * over IPC: every reply is `{ op, ... }` for the request `{ op }`.
 *   - `ack`: the first reply of the server (a message without `type`), once it came
 *   - `status`: `{ received, closed }` (notifications so far; the close code and reason, or null)
 *   - `cursors`: `{ cursors }`, every notification's cursor in the order received
 *   - `close`: closes the socket and exits
 */
import WebSocket from 'ws';

export type ReaderRequest = { op: 'ack' | 'status' | 'cursors' | 'close' };
export type ReaderReply =
  | { op: 'ack'; ack: Record<string, unknown> }
  | { op: 'status'; received: number; closed: { code: number; reason: string } | null }
  | { op: 'cursors'; cursors: string[] }
  | { op: 'close' };

const [url, frame] = process.argv.slice(2);
const cursors: string[] = [];
let ack: Record<string, unknown> | undefined;
let closed: { code: number; reason: string } | null = null;
const ackWaiters: (() => void)[] = [];
const reply = (r: ReaderReply) => process.send!(r);

const ws = new WebSocket(url);
ws.on('open', () => ws.send(frame));
ws.on('message', (data) => {
  const m = JSON.parse(data.toString()) as Record<string, unknown>;
  if ('type' in m) cursors.push(String(m.cursor));
  else if (ack === undefined) {
    ack = m;
    for (const w of ackWaiters.splice(0)) w();
  }
});
ws.on('close', (code, reason) => (closed = { code, reason: reason.toString() }));
ws.on('error', (err) => console.error(`stream reader: ${err.message}`));

process.on('message', (req: ReaderRequest) => {
  if (req.op === 'ack') {
    if (ack !== undefined) reply({ op: 'ack', ack });
    else ackWaiters.push(() => reply({ op: 'ack', ack: ack! }));
  } else if (req.op === 'status') reply({ op: 'status', received: cursors.length, closed });
  else if (req.op === 'cursors') reply({ op: 'cursors', cursors });
  else {
    ws.close();
    reply({ op: 'close' });
    process.disconnect();
  }
});
