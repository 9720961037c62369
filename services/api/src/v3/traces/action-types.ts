import { supportedActionSet } from '@tonstream/actions';
import type { Kind } from '../../http/kinds.js';

/** The supported set for a request: shortcuts expanded, v1 added. Unknown names stand for themselves. */
export function supportedSet(requested: readonly string[] | undefined, actionsVersion?: string): string[] {
  // X-Actions-Version replaces the parameter (docs/toncenter-v3.md §1.3).
  return [...supportedActionSet(actionsVersion !== undefined ? [actionsVersion] : (requested ?? ['latest']))];
}

/** An action type or shortcut: toncenter's allowed characters. */
export const actionType: Kind<string> = {
  accepts: 'an action type: letters, digits, "_" and "." (at most 64)',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_.]{1,64}$' },
  parse: (t) => (/^[A-Za-z0-9_.]{1,64}$/.test(t) ? t : undefined),
};
