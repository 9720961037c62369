import type { Block } from './block.js';
import type { MatchContext } from './matcher.js';
import { mergeDedustDeposits } from './matchers/dedust.js';

/** A pass over the top-level blocks after all matchers ran. */
export type PostProcessor = (blocks: Block[], ctx: MatchContext) => Block[];

/** Deployments nested anywhere inside a top-level block become top-level actions of their own. */
export function liftDeployments(blocks: Block[]): Block[] {
  const out = [...blocks];
  const seen = new Set<Block>();
  for (const block of blocks) {
    const queue = [...block.children];
    while (queue.length > 0) {
      const child = queue.shift()!;
      if (seen.has(child)) continue;
      seen.add(child);
      if (child.type === 'contract_deploy') out.push(child);
      else queue.push(...child.children);
    }
  }
  return out;
}

export const postProcessors: PostProcessor[] = [mergeDedustDeposits, liftDeployments];
