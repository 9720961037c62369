import { formatCursor, isAfter, wholeBlock, type Cursor, type Position, type Stage } from './cursor.js';
import { eventAddresses, notificationJson, type BlockEvent } from './events.js';
import { emptySubscription, FINALITY_RANK, type Subscription } from './subscription.js';

/** A connection as the fan-out sees it; the transport owns the socket and its buffer. */
export type Client = {
  readonly id: number;
  sub: Subscription;
  /** Events at or before these positions are not delivered (resume); null: live only. */
  floor: Cursor | null;
  /** Queues one notification; the transport drops the client itself when its buffer is over the limit. */
  deliver(json: string, cursor: string): void;
  /** Internal: the dispatch that last reached this client, so one event is delivered once. */
  seen?: number;
};

type LoggedEvent = { event: BlockEvent; cursor: string; cache: Map<string, string> };
type Step = { stage: Stage; mc: number; events: LoggedEvent[]; bytes: number };

export type FanoutOptions = {
  /** Masterchain blocks of each stage kept for resume. */
  retainMcBlocks: number;
  /** Upper bound of the retained events' estimated size; the oldest blocks go first. */
  retainMaxBytes: number;
};

export type ResumeCheck = { ok: true } | { ok: false; error: string };

const STAGES: Stage[] = ['confirmed', 'finalized'];
const other = (s: Stage): Stage => (s === 'confirmed' ? 'finalized' : 'confirmed');

/**
 * The subscription table (address -> clients, trace hash -> clients), the retained log of emitted
 * steps (one stage of one masterchain block each) and delivery: every event is matched through the
 * table, serialized once per distinct client view and handed to each matching client.
 */
export function createFanout(options: FanoutOptions) {
  const byAddress = new Map<string, Set<Client>>();
  const byTrace = new Map<string, Set<Client>>();
  const clients = new Set<Client>();
  const log: Step[] = [];
  let logBytes = 0;
  /** Last whole block emitted per stage (-1: none yet). */
  const lastWhole: Record<Stage, number> = { confirmed: -1, finalized: -1 };
  /** Lowest block per stage still in the log, or the first block this process emits. */
  const lowest: Record<Stage, number | null> = { confirmed: null, finalized: null };
  let dispatches = 0;
  let delivered = 0;

  const index = (map: Map<string, Set<Client>>, keys: Iterable<string>, c: Client, add: boolean) => {
    for (const k of keys) {
      let set = map.get(k);
      if (add) {
        if (!set) map.set(k, (set = new Set()));
        set.add(c);
      } else if (set) {
        set.delete(c);
        if (set.size === 0) map.delete(k);
      }
    }
  };

  const matches = (c: Client, e: BlockEvent, stage: Stage, pos: Position) => {
    if (!c.sub.types.has(e.type)) return false;
    if (FINALITY_RANK[stage] < FINALITY_RANK[c.sub.minFinality]) return false;
    return c.floor === null || isAfter(pos, c.floor[stage]);
  };

  const send = (c: Client, le: LoggedEvent, stage: Stage) => {
    const json = notificationJson(le.event, stage, le.cursor, { addresses: c.sub.addresses, includeAddressBook: c.sub.includeAddressBook, includeMetadata: c.sub.includeMetadata }, le.cache);
    if (json === null) return;
    delivered += 1;
    c.deliver(json, le.cursor);
  };

  const evict = () => {
    const newest = Math.max(lastWhole.confirmed, lastWhole.finalized);
    while (log.length > 0 && (log[0].mc <= newest - options.retainMcBlocks || logBytes > options.retainMaxBytes)) {
      const step = log.shift()!;
      logBytes -= step.bytes;
      lowest[step.stage] = step.mc + 1;
    }
  };

  return {
    /** Registers a connection (nothing is delivered until its subscription says so). */
    add(c: Client): void {
      clients.add(c);
    },
    remove(c: Client): void {
      if (!clients.delete(c)) return;
      index(byAddress, c.sub.addresses, c, false);
      index(byTrace, c.sub.traceHashes, c, false);
    },
    /** Replaces a client's subscription and re-indexes it. */
    setSubscription(c: Client, sub: Subscription): void {
      index(byAddress, c.sub.addresses, c, false);
      index(byTrace, c.sub.traceHashes, c, false);
      c.sub = sub;
      index(byAddress, sub.addresses, c, true);
      index(byTrace, sub.traceHashes, c, true);
    },
    /** Removes addresses and trace hashes from a client's subscription; its types stay. */
    unsubscribe(c: Client, addresses: string[], traceHashes: string[]): void {
      index(byAddress, addresses, c, false);
      index(byTrace, traceHashes, c, false);
      for (const a of addresses) c.sub.addresses.delete(a);
      for (const h of traceHashes) c.sub.traceHashes.delete(h);
    },

    /** Whether every event after `cursor` is still retained (or not emitted yet). */
    canResume(cursor: Cursor): ResumeCheck {
      for (const s of STAGES) {
        const lo = lowest[s];
        if (lo === null) return { ok: false, error: 'resume unavailable: the streamer has not emitted its first block yet, retry shortly' };
        const p = cursor[s];
        if (p.mc >= lo || (p.mc === lo - 1 && p.index === Number.POSITIVE_INFINITY)) continue;
        return { ok: false, error: `cursor too old: ${s} events after masterchain block ${p.mc} are no longer retained (oldest retained: ${lo}); subscribe without a cursor and backfill from /api/v3` };
      }
      return { ok: true };
    },

    /** Sends a client every retained event after its floor that it subscribes to, in emission order. */
    replay(c: Client): void {
      if (c.floor === null) return;
      for (const step of log) {
        step.events.forEach((le, i) => {
          const forClient = [...eventAddresses(le.event)].some((a) => c.sub.addresses.has(a));
          if (forClient && clients.has(c) && matches(c, le.event, step.stage, { mc: step.mc, index: i })) send(c, le, step.stage);
        });
      }
    },

    /**
     * Emits one stage of one masterchain block: each event gets its cursor, goes to the clients whose
     * subscription matches, and is logged for resume. Blocks of a stage must come in seqno order.
     */
    emit(stage: Stage, mc: number, events: BlockEvent[], sizeOf: (e: BlockEvent) => number): void {
      // The first block this process emits starts both sequences: nothing before it is retained.
      for (const s of STAGES) {
        if (lowest[s] !== null) continue;
        lowest[s] = mc;
        lastWhole[s] = mc - 1;
      }
      const otherWhole = lastWhole[other(stage)];
      const step: Step = { stage, mc, events: [], bytes: 0 };
      events.forEach((event, i) => {
        const le: LoggedEvent = { event, cursor: formatCursor(stage, { mc, index: i }, otherWhole), cache: new Map() };
        step.events.push(le);
        step.bytes += sizeOf(event);
        const seen = ++dispatches;
        const targets: Client[] = [];
        for (const a of eventAddresses(event)) {
          const set = byAddress.get(a);
          if (!set) continue;
          for (const c of set) {
            if (c.seen === seen) continue;
            c.seen = seen;
            targets.push(c);
          }
        }
        for (const c of targets) if (clients.has(c) && matches(c, event, stage, { mc, index: i })) send(c, le, stage);
      });
      log.push(step);
      logBytes += step.bytes;
      lastWhole[stage] = mc;
      evict();
    },

    /** Where each stage stands: resume bounds and counters for health and metrics. */
    status() {
      return { clients: clients.size, addresses: byAddress.size, lastWhole: { ...lastWhole }, lowest: { ...lowest }, logSteps: log.length, logBytes, delivered };
    },
  };
}

export type Fanout = ReturnType<typeof createFanout>;

/** A fresh client's state: no subscription, live. */
export function newClientState(supportedActionTypes?: string[]): Pick<Client, 'sub' | 'floor'> {
  return { sub: emptySubscription(supportedActionTypes), floor: null };
}

export { wholeBlock };
