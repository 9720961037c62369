import { formatCursor, type Cursor, type Stage } from './cursor.js';
import type { BlockEvent, NotificationCache } from './events.js';
import { retainedBytes, stringBytes } from './retained-size.js';

/** An event as one step of the log holds it: its cursor, and its notification JSON per view built so far. */
export type LoggedEvent = { event: BlockEvent; cursor: string | null; cache: NotificationCache };

/**
 * One stage of one masterchain block. `otherWhole`: the other stage's last whole block when it was
 * emitted (its cursors name it). `bytes`: what the step holds besides its events' records.
 */
export type Step = { readonly seq: number; readonly stage: Stage; readonly mc: number; readonly otherWhole: number; readonly events: LoggedEvent[]; bytes: number };

export type RetainedLogOptions = {
  /** Masterchain blocks of each stage kept for resume. */
  retainMcBlocks: number;
  /**
   * Upper bound of what the log keeps, in estimated heap bytes: the events' records once each (a
   * block's confirmed and finalized steps share them) and every view's notification JSON; the
   * oldest steps go first.
   */
  retainMaxBytes: number;
};

export type ResumeCheck = { ok: true } | { ok: false; error: string };

/**
 * A logged event's own object, its cursor's slot and its view cache when empty (a Map, a closure
 * pair); the cursor string and each cached JSON are counted by their size.
 */
const LOGGED_EVENT_BYTES = 320;
/** One view's entry in an event's cache besides the JSON itself: the key string and the Map slots. */
const VIEW_ENTRY_BYTES = 96;

const STAGES: Stage[] = ['confirmed', 'finalized'];
const other = (s: Stage): Stage => (s === 'confirmed' ? 'finalized' : 'confirmed');

/**
 * The steps emitted, in emission order, for resume: bounded by masterchain blocks and by the bytes it
 * really keeps, each event's records and every view's JSON counted as they are added.
 */
export function createRetainedLog(options: RetainedLogOptions) {
  const steps: Step[] = [];
  /** Steps' bytes plus the records of the events they hold, each event once. */
  let bytes = 0;
  /** Record bytes of each logged event and how many retained steps hold it. */
  const eventRefs = new WeakMap<BlockEvent, { bytes: number; steps: number }>();
  /** While set (a replay), a view's JSON is kept only if it fits under the bound: a replay never evicts. */
  let keepOnlyIfRoom = false;
  /** Last whole block emitted per stage (-1: none yet). */
  const lastWhole: Record<Stage, number> = { confirmed: -1, finalized: -1 };
  /** Lowest block per stage still in the log, or the first block this process emits. */
  const lowest: Record<Stage, number | null> = { confirmed: null, finalized: null };
  /** Sequence number the next step gets; steps[i].seq === steps[0].seq + i. */
  let nextSeq = 0;

  const holdEvent = (e: BlockEvent) => {
    let ref = eventRefs.get(e);
    if (!ref) eventRefs.set(e, (ref = { bytes: retainedBytes(e), steps: 0 }));
    if (ref.steps++ === 0) bytes += ref.bytes;
  };
  const releaseEvent = (e: BlockEvent) => {
    const ref = eventRefs.get(e)!;
    if (--ref.steps === 0) bytes -= ref.bytes;
  };

  /** A step's view cache for one event: every JSON kept is counted in the step and the log. */
  const viewCache = (step: Step): NotificationCache => {
    const views = new Map<string, string>();
    return {
      get: (key) => views.get(key),
      set(key, json) {
        const added = VIEW_ENTRY_BYTES + stringBytes(key) + stringBytes(json);
        if (keepOnlyIfRoom && bytes + added > options.retainMaxBytes) return;
        views.set(key, json);
        step.bytes += added;
        bytes += added;
      },
    };
  };

  const evict = () => {
    const newest = Math.max(lastWhole.confirmed, lastWhole.finalized);
    while (steps.length > 0 && (steps[0].mc <= newest - options.retainMcBlocks || bytes > options.retainMaxBytes)) {
      const step = steps.shift()!;
      bytes -= step.bytes;
      for (const le of step.events) releaseEvent(le.event);
      lowest[step.stage] = step.mc + 1;
    }
  };

  return {
    /** Starts the step of one stage of one block; blocks of a stage must come in seqno order. */
    open(stage: Stage, mc: number): Step {
      // The first block this process emits starts both sequences: nothing before it is retained.
      for (const s of STAGES) {
        if (lowest[s] !== null) continue;
        lowest[s] = mc;
        lastWhole[s] = mc - 1;
      }
      const step: Step = { seq: nextSeq++, stage, mc, otherWhole: lastWhole[other(stage)], events: [], bytes: 0 };
      steps.push(step);
      return step;
    },

    /** Logs the step's next event under its cursor; its records are counted once however many steps hold it. */
    append(step: Step, event: BlockEvent): LoggedEvent {
      const cursor = formatCursor(step.stage, { mc: step.mc, index: step.events.length }, step.otherWhole);
      const le: LoggedEvent = { event, cursor, cache: viewCache(step) };
      step.events.push(le);
      const own = LOGGED_EVENT_BYTES + stringBytes(cursor);
      step.bytes += own;
      bytes += own;
      holdEvent(event);
      return le;
    },

    /** The step's block is whole: the oldest steps over either bound are evicted. */
    close(step: Step): void {
      lastWhole[step.stage] = step.mc;
      evict();
    },

    /** Sequence number of the oldest retained step (the next one's when the log is empty). */
    firstSeq(): number {
      return steps.length > 0 ? steps[0].seq : nextSeq;
    },

    /** The retained step with this sequence number, if any. */
    at(seq: number): Step | undefined {
      return steps[seq - this.firstSeq()];
    },

    /** Runs a replay's sends: the views they build are kept only where they fit under the bound. */
    replaying<T>(send: () => T): T {
      keepOnlyIfRoom = true;
      try {
        return send();
      } finally {
        keepOnlyIfRoom = false;
      }
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

    status() {
      return { lastWhole: { ...lastWhole }, lowest: { ...lowest }, logSteps: steps.length, logBytes: bytes };
    },
  };
}

export type RetainedLog = ReturnType<typeof createRetainedLog>;
