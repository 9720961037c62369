import type { AssemblerState, BlockResult, Edge, PendingTrace } from '@tonstream/traces';
import type { Redis } from 'ioredis';

/**
 * The assembler's state in Redis, so incomplete traces survive a restart: a hash of pending traces
 * (trace id -> JSON with its transactions), a hash of undelivered messages (message hash -> edge) and
 * the last masterchain seqno whose output is published. A block's delta and its seqno are written in
 * one MULTI/EXEC: after a crash the state is exactly that of some processed block, never half of one.
 */
export type StateStore = {
  load(): Promise<{ state: AssemblerState; lastDone: number | null }>;
  save(mcSeqno: number, delta: BlockResult): Promise<void>;
  /** Keys the store uses (tests and operators inspect them). */
  readonly keys: { traces: string; edges: string; done: string };
};

export function createStateStore(redis: Redis, prefix: string): StateStore {
  const keys = { traces: `${prefix}tracer:traces`, edges: `${prefix}tracer:edges`, done: `${prefix}tracer:done_mc_seqno` };
  return {
    keys,
    async load() {
      const [traces, edges, done] = await Promise.all([redis.hgetall(keys.traces), redis.hgetall(keys.edges), redis.get(keys.done)]);
      const state: AssemblerState = {
        traces: new Map(Object.entries(traces).map(([id, json]) => [id, JSON.parse(json) as PendingTrace])),
        edges: new Map(Object.entries(edges).map(([hash, json]) => [hash, JSON.parse(json) as Edge])),
      };
      return { state, lastDone: done === null ? null : Number(done) };
    },
    async save(mcSeqno, delta) {
      const tx = redis.multi();
      if (delta.removed.length > 0) tx.hdel(keys.traces, ...delta.removed);
      if (delta.changed.length > 0) tx.hset(keys.traces, Object.fromEntries(delta.changed.map((t) => [t.trace_id, JSON.stringify(t)])));
      if (delta.edgesRemoved.length > 0) tx.hdel(keys.edges, ...delta.edgesRemoved);
      if (delta.edgesAdded.size > 0) tx.hset(keys.edges, Object.fromEntries([...delta.edgesAdded].map(([hash, e]) => [hash, JSON.stringify(e)])));
      tx.set(keys.done, String(mcSeqno));
      const results = await tx.exec();
      const failed = results?.find(([err]) => err);
      if (!results || failed) throw new Error(`saving the tracer state of masterchain block ${mcSeqno} failed: ${failed?.[0]?.message ?? 'transaction aborted'}`);
    },
  };
}
