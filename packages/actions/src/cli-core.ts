import { readFileSync } from 'node:fs';
import type { Action } from './action.js';
import { classifyTrace } from './classify.js';
import type { FixtureTrace } from './fixture-adapter.js';
import { fromFixtureTrace } from './fixture-adapter.js';

/** Classifies one trace file in the golden fixtures' format: the CLI's whole job, without the printing. */
export function classifyFixtureFile(path: string): { actions: Action[] } {
  const fixture = JSON.parse(readFileSync(path, 'utf8')) as FixtureTrace;
  const { trace, lookup } = fromFixtureTrace(fixture);
  return { actions: classifyTrace(trace, lookup).actions };
}

/** An action as the CLI prints it: the public form plus parent_action_id and ancestor_type. */
export type PrintedAction = Omit<Action, 'internal_type' | 'broken'>;

export function printable(action: Action): PrintedAction {
  const { internal_type: _internal, broken: _broken, ...rest } = action;
  return rest;
}
