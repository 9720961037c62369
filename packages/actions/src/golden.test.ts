import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyFixtureFile } from './cli-core.js';
import type { Expectation } from './golden-match.js';
import { checkExpectation } from './golden-match.js';

// Real mainnet traces with the actions toncenter's classifier expects (fixtures README: how a case matches).
const DIR = join(import.meta.dirname, '../../../test/fixtures/mainnet/traces');

type Case = { id: string; trace_file: string; expected_actions: { index: number; public: Expectation }[] };
const cases = (JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as { cases: Case[] }).cases;

function failures(c: Case): string[] {
  const { actions } = classifyFixtureFile(join(DIR, c.trace_file));
  return c.expected_actions.flatMap((e) => checkExpectation(actions, e.public).map((m) => `#${e.index} ${e.public.type}: ${m}`));
}

describe('golden mainnet traces: every expected action of expected.json', () => {
  it('has the 89 cases and 115 expected actions the fixtures README counts', () => {
    expect(cases.length).toBe(89);
    expect(cases.reduce((n, c) => n + c.expected_actions.length, 0)).toBe(115);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    expect(failures(c)).toEqual([]);
  });
});
