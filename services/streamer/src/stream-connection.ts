import type { Logger } from '@tonstream/runtime';
import { emptySubscription, type Client, type Fanout } from '@tonstream/streaming';
import { REVOKED_KEY_MESSAGE } from './api-keys.js';
import type { RevocationWatch } from './key-revocation.js';
import type { ConnectionLimits } from './limits.js';
import type { StreamerMetrics } from './metrics.js';
import { createOutbox } from './outbox.js';
import { pumpReplay, REPLAY_CHUNK_BYTES } from './replay-pump.js';
import type { DropKind, SlowClientGuard } from './slow-clients.js';

export type StreamDeps = {
  fanout: Fanout;
  logger: Logger;
  metrics: StreamerMetrics;
  guard: SlowClientGuard;
  revocations: RevocationWatch | null;
  /** A client whose unsent output exceeds this is dropped. */
  maxBufferedBytes: number;
};

/** What a transport gives a stream: its socket's writes and how it is cut. */
export type Transport = {
  name: 'sse' | 'ws';
  id: number;
  limits: ConnectionLimits;
  release: () => void;
  supportedActionTypes?: string[];
  /** Writes text or an encoded frame; `done` is called once it left the process. */
  write(data: string | Buffer, done: () => void): void;
  /** Holds writes in the process until `uncork` (a run of notifications then leaves in one system call). */
  cork(): void;
  uncork(): void;
  /** Bytes written and still in the process. */
  unsentBytes(): number;
  /** A notification as this transport frames it, encoded (shared by the clients it goes to). */
  frame(json: string, cursor: string): Buffer;
  /** Ends the connection for `reason` (the stream is already detached from the fan-out). */
  cut(kind: DropKind, reason: string): void;
};

export type Stream = {
  client: Client;
  isOpen(): boolean;
  /** Writes a reply, keepalive or error on the stream (tracked like notifications). */
  send(text: string): void;
  /** Replays after the client's floor, a chunk at a time, then live (or cuts it if the window moved past it). */
  startReplay(): void;
  /** The client went away: detach and free its slot. */
  close(): void;
  drop(kind: DropKind, reason: string): void;
};

/**
 * The transport-independent half of a connection: its fan-out client, its outbox (unsent data and its
 * age), the slow-client checks and the key revocation watch.
 */
export function openStream(d: StreamDeps, t: Transport): Stream {
  const outbox = createOutbox();
  let open = true;
  const send = (data: string | Buffer) => {
    outbox.queued();
    t.write(data, outbox.done);
  };
  /** Notifications written since the last flush (the socket is corked while there are any). */
  let unflushed = 0;
  const client: Client = {
    id: t.id,
    sub: emptySubscription(t.supportedActionTypes),
    floor: null,
    deliver(json, cursor) {
      if (!open) return;
      if (unflushed++ === 0) t.cork();
      send(t.frame(json, cursor));
      if (t.unsentBytes() > d.maxBufferedBytes) stream.drop('unsent_bytes', `slow consumer: more than ${d.maxBufferedBytes} bytes unsent`);
    },
    flush() {
      if (unflushed === 0) return;
      d.metrics.delivered.inc({ transport: t.name }, unflushed);
      unflushed = 0;
      t.uncork();
    },
  };
  const watched = { outbox, drop: (kind: DropKind, reason: string) => stream.drop(kind, reason) };
  const unwatchKey = t.limits.keyHash !== undefined && d.revocations ? d.revocations.watch(t.limits.keyHash, () => stream.drop('key_revoked', REVOKED_KEY_MESSAGE)) : () => undefined;

  const stream: Stream = {
    client,
    isOpen: () => open,
    send(text) {
      if (open) send(text);
    },
    startReplay() {
      const chunkBytes = Math.max(1, Math.min(REPLAY_CHUNK_BYTES, Math.floor(d.maxBufferedBytes / 4)));
      pumpReplay({
        fanout: d.fanout,
        client,
        outbox,
        chunkBytes,
        isOpen: () => open,
        onLost: () => stream.drop('replay_lost', 'cursor too old: the events after it left the resume window while they were being replayed; subscribe without a cursor and backfill from /api/v3'),
      });
    },
    close() {
      if (!open) return;
      open = false;
      d.fanout.remove(client);
      d.guard.unwatch(watched);
      unwatchKey();
      t.release();
      d.metrics.connections.dec({ transport: t.name });
    },
    drop(kind, reason) {
      if (!open) return;
      d.logger.warn('client dropped', { transport: t.name, client: t.id, kind, reason });
      d.metrics.dropped.inc({ reason: kind });
      stream.close();
      t.cut(kind, reason);
    },
  };
  d.metrics.connections.inc({ transport: t.name });
  d.fanout.add(client);
  d.guard.watch(watched);
  return stream;
}
