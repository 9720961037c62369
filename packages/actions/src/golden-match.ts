/*
 * The fixtures' matching rules (test/fixtures/mainnet/traces/README.md, "How an expectation is
 * matched"): candidates by public type, a selector narrowing them to one, then a partial match.
 */
import type { Action } from './action.js';

export type Condition = { path: string; op: '==' | '!='; value: unknown };
export type Selector = null | { all: Condition[] } | { any: Condition[] } | { top_level: true };
export type Expectation = { type: string; selector: Selector; match: Record<string, unknown> };

function readPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return null;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur === undefined ? null : cur;
}

function holds(action: Action, c: Condition): boolean {
  const equal = JSON.stringify(readPath(action, c.path)) === JSON.stringify(c.value);
  return c.op === '==' ? equal : !equal;
}

function selects(action: Action, selector: Selector): boolean {
  if (selector === null) return true;
  if ('top_level' in selector) return action.parent_action_id === null;
  if ('all' in selector) return selector.all.every((c) => holds(action, c));
  return selector.any.some((c) => holds(action, c));
}

/** Differences between an expected partial value and the actual one ([] when it matches). */
export function mismatches(expected: unknown, actual: unknown, path = ''): string[] {
  if (expected === null) return actual === null || actual === undefined ? [] : [`${path}: expected null, got ${JSON.stringify(actual)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    const free = [...actual.keys()];
    for (const [i, e] of expected.entries()) {
      const hit = free.findIndex((j) => mismatches(e, actual[j]).length === 0);
      if (hit < 0) return [`${path}[${i}]: no element matches ${JSON.stringify(e)} in ${JSON.stringify(actual)}`];
      free.splice(hit, 1);
    }
    return [];
  }
  if (typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const out: string[] = [];
    for (const [key, e] of Object.entries(expected as Record<string, unknown>)) {
      const indexed = /^(.*)\[(\d+)\]$/.exec(key);
      const a = indexed
        ? ((actual as Record<string, unknown>)[indexed[1]] as unknown[] | undefined)?.[Number(indexed[2])]
        : (actual as Record<string, unknown>)[key];
      out.push(...mismatches(e, a, path ? `${path}.${key}` : key));
    }
    return out;
  }
  return expected === actual ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** Why the expectation fails on these actions, or [] when exactly one selected candidate matches it. */
export function checkExpectation(actions: Action[], expected: Expectation): string[] {
  const candidates = actions.filter((a) => a.type === expected.type && selects(a, expected.selector));
  if (candidates.length !== 1) {
    return [`${candidates.length} ${expected.type} actions selected (of ${actions.filter((a) => a.type === expected.type).length}; all types: ${actions.map((a) => a.type).join(',')})`];
  }
  return mismatches(expected.match, candidates[0]);
}
