import { describe, expect, it } from 'vitest';
import { Block } from './block.js';
import type { MatchContext, Matcher } from './matcher.js';
import { tryMatch } from './matcher.js';

const ctx: MatchContext = { lookup: () => undefined, trace: { transactions: [] } as unknown as MatchContext['trace'] };
const block = new Block('call_contract', []);
const building = (build: Matcher['build']): Matcher => ({ test: () => true, build });

describe('tryMatch: a build that throws', () => {
  it('on a body that does not read as the protocol: no match', () => {
    expect(
      tryMatch(
        building(() => {
          throw new Error('Not enough bits');
        }),
        block,
        ctx,
      ),
    ).toBeNull();
  });

  it('on a bug (a TypeError of our code): the error goes on, not read as "no match"', () => {
    const buggy = building((_b, matched) => [(matched[0] as unknown as { data: Block }).data]);
    expect(() => tryMatch(buggy, block, ctx)).toThrow(TypeError);
  });
});
