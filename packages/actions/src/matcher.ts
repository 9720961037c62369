import { rethrowBugs } from '@tonstream/errors';
import { Block } from './block.js';
import type { ActionData } from './block.js';
import type { ClassifierTrace, InterfaceLookup } from './input.js';

export const OP_EXCESSES = 0xd53276db;
export const OP_BOUNCE = 0xffffffff;

/** What matchers may consult besides the blocks. */
export type MatchContext = { lookup: InterfaceLookup; trace: ClassifierTrace };

/**
 * A declarative block pattern (toncenter's BlockMatcher): `test` on the candidate; `child` tried on
 * every successor (all matches kept; required unless optional); `children` each on a distinct
 * successor in order; `parent` on the predecessor; then `build` makes the result (null = no match).
 * Excesses and bounces right after a matched nested block are taken along.
 */
export type Matcher = {
  test: (block: Block, ctx: MatchContext) => boolean;
  child?: Matcher;
  children?: Matcher[];
  parent?: Matcher;
  optional?: boolean;

  build?: (block: Block, matched: Block[], ctx: MatchContext) => Block[] | null;
  /** An alternation: the first of these that matches (the rest of this matcher is ignored). */
  alternatives?: Matcher[];
};

/** One top-level entry of the classifier's list: a pattern whose `build` makes a composite. */
export type ActionMatcher = Matcher & { name: string };

/**
 * Matches `m` at `block`. `topLevel` is the classifier's own call: the excesses and bounces right
 * after a top-level match stay blocks of their own, as toncenter appends them only to what a nested
 * match hands up to its parent (a top-level result goes nowhere).
 */
export function tryMatch(m: Matcher, block: Block | null, ctx: MatchContext, topLevel = false): Block[] | null {
  if (!block || !m.test(block, ctx)) return null;
  if (m.alternatives) {
    for (const a of m.alternatives) {
      const r = tryMatch(a, block, ctx, topLevel);
      if (r) return r;
    }
    return null;
  }
  const matched: Block[] = [];
  if (m.child) {
    for (const next of block.next) {
      const r = tryMatch(m.child, next, ctx);
      if (r) matched.push(...r);
    }
    if (!m.child.optional && matched.length === 0) return null;
  }
  if (m.children) {
    const r = matchChildren(m.children, block, ctx);
    if (!r) return null;
    matched.push(...r);
  }
  if (m.parent) {
    const r = tryMatch(m.parent, block.prev, ctx);
    if (r) matched.push(...r);
    else if (!m.parent.optional) return null;
  }
  for (const next of block.next) {
    // Taken before build, so a nested block's composite absorbs its excesses and bounces too.
    if (!topLevel && next.type === 'call_contract' && (next.opcode === OP_EXCESSES || next.opcode === OP_BOUNCE) && !matched.includes(next)) matched.push(next);
  }
  if (!m.build) return [block, ...matched];
  try {
    return m.build(block, matched, ctx);
  } catch (err) {
    // A body that does not read as the protocol says is not this protocol's (toncenter: no match); a bug is not a mismatch.
    rethrowBugs(err);
    return null;
  }
}

function matchChildren(matchers: Matcher[], block: Block, ctx: MatchContext): Block[] | null {
  const free = [...block.next];
  const out: Block[] = [];
  for (const m of matchers) {
    let hit = false;
    for (const next of free) {
      const r = tryMatch(m, next, ctx);
      if (r) {
        out.push(...r);
        free.splice(free.indexOf(next), 1);
        hit = true;
        break;
      }
    }
    if (!hit && !m.optional) return null;
  }
  return out;
}

type Options = Omit<Matcher, 'test'>;

/** A basic block carrying a message with this opcode (or one of these). */
export function op(opcode: number | number[], options: Options = {}): Matcher {
  const set = Array.isArray(opcode) ? opcode : [opcode];
  return { ...options, test: (b) => b.type === 'call_contract' && b.opcode !== null && set.includes(b.opcode) };
}

/** A block of this type (a basic one or a composite built by an earlier matcher). */
export function ofType(type: string | string[], options: Options = {}): Matcher {
  const set = Array.isArray(type) ? type : [type];
  return { ...options, test: (b) => set.includes(b.type) };
}

/** A block passing `test`. */
export function where(test: Matcher['test'], options: Options = {}): Matcher {
  return { ...options, test };
}

/** The first alternative that matches. */
export function anyOf(alternatives: Matcher[], options: { optional?: boolean } = {}): Matcher {
  return { ...options, alternatives, test: (b, ctx) => alternatives.some((a) => a.test(b, ctx)) };
}

/** Chains matchers: each is the required child of the one before it. */
export function chain(...matchers: Matcher[]): Matcher {
  for (let i = matchers.length - 2; i >= 0; i -= 1) matchers[i] = { ...matchers[i], child: matchers[i + 1] };
  return matchers[0];
}

/** Replaces `include` by one composite block of `type`; null when they are not connected. */
export function composite(type: string, include: Block[], data: ActionData, failed = false): Block[] | null {
  const b = new Block(type, [], data);
  if (!b.merge(include)) return null;
  b.failed = failed;
  return [b];
}
