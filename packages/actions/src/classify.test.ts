import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from './classify.js';
import type { FixtureTrace } from './fixture-adapter.js';
import { fromFixtureTrace } from './fixture-adapter.js';

const DIR = join(import.meta.dirname, '../../../test/fixtures/mainnet/traces');
const traces = readdirSync(DIR).filter((f) => f.endsWith('=.json')).map((f) => fromFixtureTrace(JSON.parse(readFileSync(join(DIR, f), 'utf8')) as FixtureTrace));

describe('classifyTrace() on every fixture trace', () => {
  it('gives each action transactions of the trace, unique ids, and parents that exist', () => {
    for (const { trace, lookup } of traces) {
      const { actions } = classifyTrace(trace, lookup);
      const hashes = new Set(trace.transactions.map((t) => t.hash));
      const ids = actions.map((a) => a.action_id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const a of actions) {
        expect(a.transactions.every((h) => hashes.has(h))).toBe(true);
        if (a.parent_action_id !== null) expect(ids).toContain(a.parent_action_id);
      }
    }
  });

  it('covers every transaction of a trace with some top-level action or its wallet external', () => {
    for (const { trace, lookup } of traces) {
      const covered = new Set(classifyTrace(trace, lookup).actions.filter((a) => a.parent_action_id === null).flatMap((a) => a.transactions));
      // Transactions no action names are the root wallet's external and its own logs only.
      const missing = trace.transactions.filter((t) => !covered.has(t.hash) && t.in_msg?.source !== null);
      expect(missing.map((t) => t.hash)).toEqual([]);
    }
  });

  it('without any contract knowledge still classifies, into basic actions', () => {
    for (const { trace } of traces) {
      const { actions, failed } = classifyTrace(trace, () => undefined);
      expect(failed).toBe(false);
      expect(actions.length).toBeGreaterThan(0);
    }
  });
});
