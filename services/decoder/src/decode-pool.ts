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
  // Every message of a block is keyed by the block; bundles name its masterchain block.
  const headers = { mc_seqno: String(p.mcSeqno) };
  const records = p.lengths.map((length, i) => {
    const value = Buffer.from(p.blob, offset, length);
    offset += length;
    return { key: p.key, value, partition: p.partitions[i], headers };
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

/** How a pool starts a decode worker; tests pass their own. */
export type SpawnWorker = () => Worker;

const spawnDecodeWorker: SpawnWorker = () =>
  new Worker(new URL('./decode-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });

type Job = { value: Buffer | null; key: string | null; partitions: RecordPartitions; done: (outcome: DecodeOutcome) => void };

/**
 * `workers` threads decoding in parallel with the main thread, which keeps Kafka I/O; 0 decodes on
 * the calling thread (yielding between blocks). Decoding is pure, so threads share nothing.
 *
 * A worker that dies (out of memory, a crash) takes the blocks it was decoding with it, and only one
 * of them may be to blame: each is decoded again alone, one at a time, on a fresh worker. A block
 * that kills a worker while alone gets a `worker` failure (the decoder dead-letters it) instead of
 * killing workers forever.
 */
export function createDecodePool(workers: number, spawn: SpawnWorker = spawnDecodeWorker): DecodePool {
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
  type Slot = { worker: Worker; pending: Map<number, Job> };
  let nextId = 0;
  let closed = false;
  let isolation = Promise.resolve();

  /** Posts a job; the bytes are copied (kafkajs hands out views into a whole fetch response) and transferred. */
  const post = (worker: Worker, id: number, job: Job) => {
    const bytes = job.value === null ? null : new Uint8Array(job.value);
    const req: WorkerRequest = { id, value: bytes, key: job.key, partitions: job.partitions };
    worker.postMessage(req, bytes ? [bytes.buffer] : []);
  };

  /** Decodes one job on a worker of its own; a death is that job's failure. */
  const decodeAlone = (job: Job): Promise<void> =>
    new Promise<void>((resolve) => {
      if (closed) {
        job.done({ ok: false, kind: 'worker', error: new Error('decode pool closed'), key: job.key });
        return resolve();
      }
      const worker = spawn();
      let settled = false;
      const settle = (outcome: DecodeOutcome) => {
        if (settled) return;
        settled = true;
        job.done(outcome);
        void worker.terminate();
        resolve();
      };
      const died = (why: string) => settle({ ok: false, kind: 'worker', error: new Error(`a decode worker died decoding this block alone: ${why}`), key: job.key });
      worker.on('message', (reply: WorkerReply) => settle(outcomeOf(reply)));
      worker.on('error', (err) => died(err.message));
      worker.on('exit', (code) => died(`exit code ${code}`));
      post(worker, 0, job);
    });

  const spawnSlot = (): Slot => {
    const slot: Slot = { worker: spawn(), pending: new Map() };
    slot.worker.on('message', (reply: WorkerReply) => {
      const job = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      job?.done(outcomeOf(reply));
    });
    let dead = false;
    const fail = () => {
      if (dead || closed) return;
      dead = true;
      const suspects = [...slot.pending.values()];
      slot.pending.clear();
      slots[slots.indexOf(slot)] = spawnSlot();
      for (const job of suspects) isolation = isolation.then(() => decodeAlone(job));
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', fail);
    return slot;
  };
  const slots: Slot[] = Array.from({ length: workers }, spawnSlot);

  return {
    decode(value, key, partitions) {
      const slot = slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise<DecodeOutcome>((resolve) => {
        const job: Job = { value, key, partitions, done: resolve };
        slot.pending.set(id, job);
        post(slot.worker, id, job);
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
