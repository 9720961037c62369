import { extrasAddresses, type AddressExtras, type BlockEvent, type Fanout, type Finality, type Stage } from '@tonstream/streaming';

/** What the source hands the fan-out, in this order. */
export type Emitter = Pick<Fanout, 'emit' | 'emitPending' | 'invalidate'>;

/** Where a queued emission's lookup stands: `null` when no client asked (it goes at once). */
type Wait = { asked: BlockEvent[]; addresses: Set<string>; settled: boolean; until: number } | null;

type Item = ({ kind: 'step'; stage: Stage; mc: number; events: BlockEvent[] } | { kind: 'pending'; events: BlockEvent[] } | { kind: 'invalidate'; norm: string }) & { wait?: Wait };

/** The part of the lookup the queue uses (extras-lookup.ts). */
export type ExtrasSource = { refresh(addresses: Iterable<string>): Promise<void> | null; extras(addresses: Iterable<string>): AddressExtras };

export type EmitQueueOptions = {
  fanout: Fanout;
  lookup: ExtrasSource;
  /** How long an emission waits for its lookup before it goes with what is known. */
  waitMs: number;
  now?: () => number;
};

/**
 * Puts `address_book` / `metadata` facts on events before the fan-out sends them, without holding
 * the stream: an emission (a block's step, a pending trace, an invalidation) whose events some
 * client with `include_address_book` / `include_metadata` is indexed for starts one lookup for all
 * of their addresses and waits for it at most `waitMs`; then its events carry what is known (one
 * snapshot shared by the block's events, so each view's JSON is still built once). Emissions leave
 * in the order they came (a block's confirmed step before its finalized one, pending before
 * confirmed, invalidation after the pending events it concerns); one nobody asked extras for waits
 * only behind an earlier one that is waiting.
 */
export function createEmitQueue(o: EmitQueueOptions) {
  const now = o.now ?? Date.now;
  const queue: Item[] = [];
  let timer: NodeJS.Timeout | undefined;
  let late = 0;
  let waited = 0;

  /** Whether the head may go now: starts its lookup the first time it is looked at. */
  const ready = (item: Item): boolean => {
    if (item.kind === 'invalidate') return true;
    if (item.wait === undefined) {
      const finality: Finality = item.kind === 'pending' ? 'pending' : item.stage;
      const asked = item.events.filter((e) => e.type !== 'account_state_change' && o.fanout.asksForExtras(e, finality));
      if (asked.length === 0) item.wait = null;
      else {
        const addresses = new Set(asked.flatMap((e) => [...extrasAddresses(e)]));
        const refreshing = o.lookup.refresh(addresses);
        const wait = { asked, addresses, settled: refreshing === null, until: now() + o.waitMs };
        item.wait = wait;
        if (refreshing) {
          waited += 1;
          void refreshing.finally(() => {
            wait.settled = true;
            drain();
          });
        }
      }
    }
    const wait = item.wait;
    if (wait === null) return true;
    if (!wait.settled && now() < wait.until) {
      clearTimeout(timer);
      timer = setTimeout(drain, Math.max(0, wait.until - now()));
      return false;
    }
    if (!wait.settled) late += 1;
    const known = o.lookup.extras(wait.addresses);
    for (const e of wait.asked) e.extras = known;
    return true;
  };

  const send = (item: Item) => {
    if (item.kind === 'step') o.fanout.emit(item.stage, item.mc, item.events);
    else if (item.kind === 'pending') o.fanout.emitPending(item.events);
    else o.fanout.invalidate(item.norm);
  };

  function drain(): void {
    while (queue.length > 0 && ready(queue[0])) send(queue.shift()!);
  }

  const push = (item: Item) => {
    queue.push(item);
    if (queue.length === 1) drain();
  };

  const emitter: Emitter = {
    emit: (stage, mc, events) => push({ kind: 'step', stage, mc, events }),
    emitPending: (events) => push({ kind: 'pending', events }),
    invalidate: (norm) => push({ kind: 'invalidate', norm }),
  };
  return {
    ...emitter,
    /** Emissions not sent yet (the head may be waiting for its lookup). */
    status() {
      return { queued: queue.length, waited, late };
    },
    stop(): void {
      clearTimeout(timer);
    },
  };
}

export type EmitQueue = ReturnType<typeof createEmitQueue>;
