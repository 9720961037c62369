/**
 * One load-generating process of `bench:streaming` (forked by streaming-bench.ts, several side by side so
 * the clients are not the bottleneck): opens its share of the subscribers (even index SSE over
 * node:http, odd WebSocket), reads only the cursor of each notification, and keeps a latency histogram
 * per phase: receive time minus the moment the event's masterchain block became whole in the topics,
 * which the parent sends as it learns it. Reports on request over IPC.
 */
import { request } from 'node:http';
import WebSocket from 'ws';

export type ClientsStart = { cmd: 'start'; port: number; subscriptions: { index: number; addresses: string[] }[] };
export type ParentMessage = ClientsStart | { cmd: 'block'; mc: number; wholeAtMs: number } | { cmd: 'phase'; name: string } | { cmd: 'report' } | { cmd: 'stop' };
export type PhaseReport = { name: string; histogram: number[]; received: number; overflow: number };
export type ChildMessage = { kind: 'connected'; open: number; failed: number } | { kind: 'report'; phases: PhaseReport[]; closed: number };

/** Latencies are counted per millisecond up to this; later ones land in `overflow`. */
export const HISTOGRAM_MS = 120_000;
const CONNECT_BATCH = 50;
const CONNECT_PAUSE_MS = 20;

type Phase = { name: string; histogram: Uint32Array; received: number; overflow: number };
const newPhase = (name: string): Phase => ({ name, histogram: new Uint32Array(HISTOGRAM_MS), received: 0, overflow: 0 });
const phases: Phase[] = [newPhase('warmup')];
let phase = phases[0];
const wholeAt = new Map<number, number>();
/** Receive times of confirmed events whose block time is not known yet, by masterchain seqno. */
const waiting = new Map<number, { phase: Phase; at: number }[]>();
let closed = 0;

const record = (p: Phase, latency: number) => {
  if (latency >= 0 && latency < HISTOGRAM_MS) p.histogram[latency] += 1;
  else p.overflow += 1;
};

/** `c<mc>.…`: confirmed events are timed (finalized ones wait for the watermark, a different clock). */
function onCursor(cursor: string, at: number) {
  phase.received += 1;
  if (cursor.charCodeAt(0) !== 99 /* c */) return;
  const dot = cursor.indexOf('.');
  const mc = Number(cursor.slice(1, dot));
  const t = wholeAt.get(mc);
  if (t !== undefined) record(phase, at - t);
  else {
    let list = waiting.get(mc);
    if (!list) waiting.set(mc, (list = []));
    list.push({ phase, at });
  }
}

function openSse(port: number, body: string, onOpen: (ok: boolean) => void) {
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/streaming/v2/sse', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' } }, (res) => {
    onOpen(res.statusCode === 200);
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const now = Date.now();
      buf += chunk;
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        if (buf.startsWith('id: ')) onCursor(buf.slice(4, buf.indexOf('\n')), now);
        buf = buf.slice(end + 2);
      }
    });
    res.on('close', () => (closed += 1));
  });
  req.on('error', () => onOpen(false));
  req.end(body);
}

const CURSOR_KEY = '"cursor":"';
function openWs(port: number, body: string, onOpen: (ok: boolean) => void) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/streaming/v2/ws`, { perMessageDeflate: false });
  let acked = false;
  ws.on('open', () => ws.send(body));
  ws.on('message', (data) => {
    const text = data.toString();
    if (!acked) {
      acked = true;
      onOpen(text.includes('"subscribed"'));
      return;
    }
    const i = text.lastIndexOf(CURSOR_KEY);
    if (i >= 0) onCursor(text.slice(i + CURSOR_KEY.length, text.indexOf('"', i + CURSOR_KEY.length)), Date.now());
  });
  ws.on('close', () => (closed += 1));
  ws.on('error', () => {
    if (!acked) onOpen(false);
    acked = true;
  });
  return ws;
}

async function start(msg: ClientsStart) {
  let open = 0;
  let failed = 0;
  const done = (ok: boolean) => (ok ? (open += 1) : (failed += 1));
  for (let k = 0; k < msg.subscriptions.length; k++) {
    const { index, addresses } = msg.subscriptions[k];
    const sub = { types: ['transactions', 'account_state_change'], addresses, min_finality: 'confirmed' };
    if (index % 2 === 0) openSse(msg.port, JSON.stringify(sub), done);
    else openWs(msg.port, JSON.stringify({ operation: 'subscribe', ...sub }), done);
    if (k % CONNECT_BATCH === CONNECT_BATCH - 1) await new Promise((r) => setTimeout(r, CONNECT_PAUSE_MS));
  }
  while (open + failed < msg.subscriptions.length) await new Promise((r) => setTimeout(r, 50));
  process.send!({ kind: 'connected', open, failed } satisfies ChildMessage);
}

process.on('message', (msg: ParentMessage) => {
  switch (msg.cmd) {
    case 'start':
      void start(msg);
      break;
    case 'block': {
      wholeAt.set(msg.mc, msg.wholeAtMs);
      for (const w of waiting.get(msg.mc) ?? []) record(w.phase, w.at - msg.wholeAtMs);
      waiting.delete(msg.mc);
      break;
    }
    case 'phase':
      phases.push((phase = newPhase(msg.name)));
      break;
    case 'report':
      process.send!({ kind: 'report', closed, phases: phases.map((p) => ({ name: p.name, histogram: sparse(p.histogram), received: p.received, overflow: p.overflow + [...waiting.values()].flat().filter((w) => w.phase === p).length })) } satisfies ChildMessage);
      break;
    case 'stop':
      process.exit(0);
  }
});

/** [ms, count, ms, count, …] of the non-empty buckets: the IPC message stays small. */
function sparse(h: Uint32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < h.length; i++) if (h[i] > 0) out.push(i, h[i]);
  return out;
}
