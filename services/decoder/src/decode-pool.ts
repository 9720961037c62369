import { Worker } from 'node:worker_threads';
import { decodeMessage, type DecodedBlock, type DecodeErrorKind, type DecodeOutcome, type RecordPartitions } from './decode-message.js';

/** Decodes raw block messages, on worker threads or on the calling thread. */
export type DecodePool = {
  decode(value: Buffer | null, key: string | null, partitions: RecordPartitions): Promise<DecodeOutcome>;
  close(): Promise<void>;
};

/** A decoded block as it crosses threads: every record's bytes in one transferred buffer. */
export type PackedBlock = Omit<DecodedBlock, 'transactions' | 'messages' | 'accountStates' | 'meta' | 'payload'> & {
  /** The payload's bytes (transferred, not copied). */
  blob: ArrayBuffer;
  /** Kafka messages per topic: transactions, messages, account states (the block meta comes last). */
  counts: [number, number, number];
  lengths: number[];
  partitions: (number | undefined)[];
  metaHeaders: Record<string, string>;
};

/**
 * Young generation of a decode worker. Decoding allocates many short-lived objects (cells, records,
 * JSON strings); V8's default (16 MiB semi-spaces) scavenges so often that GC took ~18 % of the
 * worker. 96 MiB (32 MiB semi-spaces) cut the decoder's CPU per transaction by ~10 % in bench:pipeline.
 */
const WORKER_YOUNG_GENERATION_MB = 96;

export type WorkerRequest = { id: number; value: Uint8Array | null; key: string | null; partitions: RecordPartitions };
export type WorkerReply =
  | { id: number; ok: true; packed: PackedBlock }
  | { id: number; ok: false; kind: DecodeErrorKind; key: string | null; name: string; message: string };

export function packBlock(d: DecodedBlock): PackedBlock {
  const all = [...d.transactions, ...d.messages, ...d.accountStates, d.meta];
  const p = d.payload;
  // Transfer the payload's own ArrayBuffer when it holds nothing else; copy otherwise.
  const blob = (p.byteOffset === 0 && p.byteLength === p.buffer.byteLength ? p.buffer : p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength)) as ArrayBuffer;
  return {
    key: d.key,
    block: d.block,
    mcSeqno: d.mcSeqno,
    seenAtMs: d.seenAtMs,
    txCount: d.txCount,
    decodeMs: d.decodeMs,
    skippedStates: d.skippedStates,
    blob,
    counts: [d.transactions.length, d.messages.length, d.accountStates.length],
    lengths: all.map((r) => r.value.length),
    partitions: all.map((r) => r.partition),
    metaHeaders: d.meta.headers ?? {},
  };
}

export function unpackBlock(p: PackedBlock): DecodedBlock {
  let offset = 0;
  // Every message of a block is keyed by the block.
  const records = p.lengths.map((length, i) => {
    const value = Buffer.from(p.blob, offset, length);
    offset += length;
    return { key: p.key, value, partition: p.partitions[i] };
  });
  const [tx, msg, states] = p.counts;
  const meta = { ...records[tx + msg + states], headers: p.metaHeaders };
  return {
    key: p.key,
    block: p.block,
    mcSeqno: p.mcSeqno,
    seenAtMs: p.seenAtMs,
    txCount: p.txCount,
    payload: Buffer.from(p.blob),
    decodeMs: p.decodeMs,
    skippedStates: p.skippedStates,
    transactions: records.slice(0, tx),
    messages: records.slice(tx, tx + msg),
    accountStates: records.slice(tx + msg, tx + msg + states),
    meta,
  };
}

export function replyFor(req: WorkerRequest): { reply: WorkerReply; transfer: ArrayBuffer[] } {
  const value = req.value === null ? null : Buffer.from(req.value.buffer, req.value.byteOffset, req.value.byteLength);
  const out = decodeMessage(value, req.key, req.partitions);
  if (!out.ok) return { reply: { id: req.id, ok: false, kind: out.kind, key: out.key, name: out.error.name, message: out.error.message }, transfer: [] };
  const packed = packBlock(out.decoded);
  return { reply: { id: req.id, ok: true, packed }, transfer: [packed.blob] };
}

function outcomeOf(reply: WorkerReply): DecodeOutcome {
  if (reply.ok) return { ok: true, decoded: unpackBlock(reply.packed) };
  const error = new Error(reply.message);
  error.name = reply.name;
  return { ok: false, kind: reply.kind, error, key: reply.key };
}

/**
 * `workers` threads decoding in parallel with the main thread, which keeps Kafka I/O; 0 decodes on
 * the calling thread (yielding between blocks). Decoding is pure, so threads share nothing.
 */
export function createDecodePool(workers: number, workerUrl: URL = new URL('./decode-worker.js', import.meta.url)): DecodePool {
  if (workers <= 0) {
    return {
      async decode(value, key, partitions) {
        // Let socket and compression callbacks run between blocks.
        await new Promise((resolve) => setImmediate(resolve));
        return decodeMessage(value, key, partitions);
      },
      close: async () => {},
    };
  }
  type Slot = { worker: Worker; pending: Map<number, (r: WorkerReply | Error) => void> };
  let nextId = 0;
  let closed = false;
  const spawnSlot = (): Slot => {
    const slot: Slot = { worker: new Worker(workerUrl, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } }), pending: new Map() };
    slot.worker.on('message', (reply: WorkerReply) => {
      const done = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      done?.(reply);
    });
    const fail = (err: Error) => {
      for (const done of slot.pending.values()) done(err);
      slot.pending.clear();
      if (!closed) slots[slots.indexOf(slot)] = spawnSlot();
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (!closed) fail(new Error(`decode worker exited with code ${code}`));
    });
    return slot;
  };
  const slots: Slot[] = Array.from({ length: workers }, spawnSlot);

  return {
    decode(value, key, partitions) {
      const slot = slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      // Copy only this message's bytes (kafkajs hands out views into a whole fetch response).
      const bytes = value === null ? null : new Uint8Array(value);
      return new Promise<DecodeOutcome>((resolve, reject) => {
        slot.pending.set(id, (r) => (r instanceof Error ? reject(r) : resolve(outcomeOf(r))));
        const req: WorkerRequest = { id, value: bytes, key, partitions };
        slot.worker.postMessage(req, bytes ? [bytes.buffer] : []);
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
