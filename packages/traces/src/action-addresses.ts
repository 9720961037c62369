import type { ActionRecord } from './trace-record.js';

const RAW_ADDRESS = /^-?\d{1,10}:[0-9A-F]{64}$/;

/** Every address an action names: its accounts and the raw addresses in its details (for an address book). */
export function actionAddresses(a: ActionRecord): string[] {
  const found = new Set(a.accounts);
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (RAW_ADDRESS.test(v)) found.add(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(a.details);
  return [...found];
}
