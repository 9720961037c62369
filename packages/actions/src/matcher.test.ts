import { Cell } from '@ton/core';
import type { MessageLayout } from '@tonstream/contracts';
import { describe, expect, it } from 'vitest';
import { Block } from './block.js';
import type { EventNode } from './tree.js';
import type { MatchContext, Matcher } from './matcher.js';
import { tryMatch } from './matcher.js';
import { readAs } from './matchers/util.js';

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

describe('readAs: a layout whose read throws', () => {
  const withBody = new Block('call_contract', [{ parent: null, txLt: 1n, body: () => Cell.EMPTY } as unknown as EventNode]);
  const layout = (read: () => unknown) => ({ read }) as unknown as MessageLayout;

  it('on a body of another layout: null', () => {
    expect(
      readAs(
        withBody,
        layout(() => {
          throw new Error('Not enough bits');
        }),
      ),
    ).toBeNull();
  });

  it('on a bug: the error goes on', () => {
    expect(() => readAs(withBody, layout(() => (null as unknown as { bits: number }).bits))).toThrow(TypeError);
  });
});
