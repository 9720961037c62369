import { supportedActionSet } from '@tonstream/actions';
import { isAfter, wholeBlock, type Cursor, type Position, type Stage } from './cursor.js';
import { eventAddresses, eventTrace, forgetPartsJson, notificationJson, type BlockEvent, type View } from './events.js';
import { createRetainedLog, type LoggedEvent, type ResumeCheck, type RetainedLogOptions } from './retained-log.js';
import { emptySubscription, FINALITY_RANK, type Finality, type Subscription } from './subscription.js';

/** A connection as the fan-out sees it; the transport owns the socket and its buffer. */
export type Client = {
  readonly id: number;
  sub: Subscription;
  /** Events at or before these positions are not delivered (resume); null: live only. */
  floor: Cursor | null;
  /** Queues one notification; the transport drops the client itself when its buffer is over the limit. */
  deliver(json: string, cursor: string): void;
  /**
   * Called once after a run of `deliver` calls (one emitted step, one replay chunk): the transport
   * may hold the run's writes and send them together here (one system call instead of one each).
   */
  flush?(): void;
  /** Internal: the run that last delivered to this client (it is flushed once per run). */
  run?: number;
  /** Internal: the dispatch that last reached this client, so one event is delivered once. */
  seen?: number;
  /** Internal: while set, the client is catching up from the log (next step and event) and gets no live events. */
  replayAt?: { seq: number; index: number };
  /**
   * Internal: traces this connection was sent a non-finalized `transactions`/`actions`/`trace` event
   * of and no finalized one yet: the ones it is told about when they are invalidated (§8).
   */
  openTraces?: Set<string>;
};

export type FanoutOptions = RetainedLogOptions;

/** Where a replaying client stands after a `replayNext` call: more to send, caught up (now live), or overtaken by eviction. */
export type ReplayProgress = 'more' | 'live' | 'lost';

/**
 * The subscription table (address -> clients, trace hash -> clients), the retained log of emitted
 * steps (one stage of one masterchain block each) and delivery: every event is matched through the
 * table, serialized once per distinct client view and handed to each matching client.
 */
export function createFanout(options: FanoutOptions) {
  const byAddress = new Map<string, Set<Client>>();
  const byTrace = new Map<string, Set<Client>>();
  const clients = new Set<Client>();
  const log = createRetainedLog(options);
  let dispatches = 0;
  let delivered = 0;
  /** The newest cursor issued: pending events, which no sequence holds, carry it (resuming from it replays what came after). */
  let lastCursor: string | null = null;
  const views = new WeakMap<Subscription, View>();
  /** Clients whose subscription asks for `address_book` or `metadata` (none: no event needs a lookup). */
  let askingExtras = 0;
  const asksExtras = (sub: Subscription) => (sub.includeAddressBook || sub.includeMetadata ? 1 : 0);
  /** Clients delivered to in the current run, flushed when it ends. */
  let runs = 0;
  const touched: Client[] = [];

  const viewOf = (sub: Subscription): View => {
    let view = views.get(sub);
    if (!view) {
      view = { addresses: sub.addresses, includeAddressBook: sub.includeAddressBook, includeMetadata: sub.includeMetadata, actionTypes: sub.actionTypes, supported: supportedActionSet(sub.supportedActionTypes) };
      views.set(sub, view);
    }
    return view;
  };

  /** Runs `deliveries`, then flushes every client it delivered to, once. */
  const inRun = <T>(deliveries: () => T): T => {
    runs += 1;
    try {
      return deliveries();
    } finally {
      for (const c of touched) c.flush?.();
      touched.length = 0;
    }
  };
  const deliverTo = (c: Client, json: string, cursor: string) => {
    delivered += 1;
    if (c.run !== runs) {
      c.run = runs;
      touched.push(c);
    }
    c.deliver(json, cursor);
  };

  /** Whether the client's table entries point at the event: a `trace` by its hash, the rest by address. */
  const indexed = (c: Client, e: BlockEvent) => (e.type === 'trace' ? c.sub.traceHashes.has(e.norm) : [...eventAddresses(e)].some((a) => c.sub.addresses.has(a)));

  /** The clients the table points at for an event, each once. */
  const targetsOf = (e: BlockEvent): Client[] => {
    const seen = ++dispatches;
    const targets: Client[] = [];
    const add = (set: Set<Client> | undefined) => {
      if (!set) return;
      for (const c of set) {
        if (c.seen === seen) continue;
        c.seen = seen;
        targets.push(c);
      }
    };
    if (e.type === 'trace') add(byTrace.get(e.norm));
    else for (const a of eventAddresses(e)) add(byAddress.get(a));
    return targets;
  };
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

  const wants = (c: Client, e: BlockEvent, finality: Finality) => c.sub.types.has(e.type) && FINALITY_RANK[finality] >= FINALITY_RANK[c.sub.minFinality];
  const matches = (c: Client, e: BlockEvent, stage: Stage, pos: Position) => wants(c, e, stage) && (c.floor === null || isAfter(pos, c.floor[stage]));

  /** Delivers one event to one client; returns the bytes handed over (0: nothing in it for the client). */
  const send = (c: Client, le: LoggedEvent, finality: Finality): number => {
    const json = notificationJson(le.event, finality, le.cursor, viewOf(c.sub), le.cache);
    if (json === null) return 0;
    const norm = eventTrace(le.event);
    if (norm !== null) {
      if (finality === 'finalized') c.openTraces?.delete(norm);
      else (c.openTraces ??= new Set()).add(norm);
    }
    deliverTo(c, json, le.cursor ?? '');
    return json.length;
  };

  const replayFrom = (c: Client, at: { seq: number; index: number }, maxBytes: number): ReplayProgress => {
    let sent = 0;
    while (sent < maxBytes) {
      if (at.seq < log.firstSeq()) {
        c.replayAt = undefined;
        return 'lost';
      }
      const step = log.at(at.seq);
      if (step === undefined) {
        c.replayAt = undefined;
        return 'live';
      }
      if (at.index >= step.events.length) {
        at.seq += 1;
        at.index = 0;
        continue;
      }
      const i = at.index++;
      const le = step.events[i];
      if (indexed(c, le.event) && clients.has(c) && matches(c, le.event, step.stage, { mc: step.mc, index: i })) {
        sent += send(c, le, step.stage);
        forgetPartsJson(le.event);
      }
    }
    return 'more';
  };

  return {
    /** Registers a connection (nothing is delivered until its subscription says so). */
    add(c: Client): void {
      if (clients.has(c)) return;
      clients.add(c);
      askingExtras += asksExtras(c.sub);
    },
    remove(c: Client): void {
      if (!clients.delete(c)) return;
      askingExtras -= asksExtras(c.sub);
      index(byAddress, c.sub.addresses, c, false);
      index(byTrace, c.sub.traceHashes, c, false);
    },
    /** Replaces a client's subscription and re-indexes it. */
    setSubscription(c: Client, sub: Subscription): void {
      index(byAddress, c.sub.addresses, c, false);
      index(byTrace, c.sub.traceHashes, c, false);
      if (clients.has(c)) askingExtras += asksExtras(sub) - asksExtras(c.sub);
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
      return log.canResume(cursor);
    },

    /**
     * Starts a resuming client's catch-up from the oldest retained step: until `replayNext` says
     * 'live', it gets no live events; they are logged and reach it through the replay, in order.
     * A client without a floor is live at once.
     */
    beginReplay(c: Client): void {
      c.replayAt = c.floor === null ? undefined : { seq: log.firstSeq(), index: 0 };
    },

    /**
     * Sends a replaying client its next retained events after its floor, in emission order, until
     * about `maxBytes` are handed over; the transport calls it again once those are written, so a
     * long replay never sits in memory at once. 'lost': the steps it still needed were evicted.
     */
    replayNext(c: Client, maxBytes: number): ReplayProgress {
      const at = c.replayAt;
      if (at === undefined) return 'live';
      return log.replaying(() => inRun(() => replayFrom(c, at, maxBytes)));
    },

    /**
     * Emits one stage of one masterchain block: each event gets its cursor, goes to the clients whose
     * subscription matches, and is logged for resume. Blocks of a stage must come in seqno order.
     */
    emit(stage: Stage, mc: number, events: BlockEvent[]): void {
      const step = log.open(stage, mc);
      inRun(() =>
        events.forEach((event, i) => {
          const le = log.append(step, event);
          const pos = { mc, index: i };
          for (const c of targetsOf(event)) if (c.replayAt === undefined && clients.has(c) && matches(c, event, stage, pos)) send(c, le, stage);
          forgetPartsJson(event);
        }),
      );
      log.close(step);
      if (step.events.length > 0) lastCursor = step.events[step.events.length - 1].cursor;
    },

    /**
     * Delivers emulated (`pending`) events to the clients that asked for them. They belong to no
     * sequence: not retained, not replayed on resume; each carries the newest cursor issued.
     */
    emitPending(events: BlockEvent[]): void {
      inRun(() => {
        for (const event of events) {
          const le: LoggedEvent = { event, cursor: lastCursor, cache: new Map() };
          for (const c of targetsOf(event)) if (c.replayAt === undefined && clients.has(c) && wants(c, event, 'pending')) send(c, le, 'pending');
        }
      });
    },

    /**
     * `trace_invalidated` (§8): to each connection that was sent a non-finalized event of the trace
     * and no finalized one, once, even if it unsubscribed since; never with `min_finality: finalized`.
     */
    invalidate(norm: string): void {
      const json = `{"type":"trace_invalidated","trace_external_hash_norm":${JSON.stringify(norm)}${lastCursor === null ? '' : `,"cursor":${JSON.stringify(lastCursor)}`}}`;
      inRun(() => {
        for (const c of clients) if (c.openTraces?.delete(norm) && c.sub.minFinality !== 'finalized') deliverTo(c, json, lastCursor ?? '');
      });
    },

    /**
     * Whether a client the table points at for the event, taking its type at this finality, asked for
     * `address_book` or `metadata`: the streamer looks those up from the store only then.
     */
    asksForExtras(e: BlockEvent, finality: Finality): boolean {
      if (askingExtras === 0) return false;
      const asks = (set: Set<Client> | undefined) => {
        if (set) for (const c of set) if ((c.sub.includeAddressBook || c.sub.includeMetadata) && wants(c, e, finality)) return true;
        return false;
      };
      if (e.type === 'trace') return asks(byTrace.get(e.norm));
      for (const a of eventAddresses(e)) if (asks(byAddress.get(a))) return true;
      return false;
    },

    /** Where each stage stands: resume bounds and counters for health and metrics. */
    status() {
      return { clients: clients.size, addresses: byAddress.size, ...log.status(), delivered };
    },
  };
}

export type Fanout = ReturnType<typeof createFanout>;
export type { ResumeCheck };

/** A fresh client's state: no subscription, live. */
export function newClientState(supportedActionTypes?: string[]): Pick<Client, 'sub' | 'floor'> {
  return { sub: emptySubscription(supportedActionTypes), floor: null };
}

export { wholeBlock };
