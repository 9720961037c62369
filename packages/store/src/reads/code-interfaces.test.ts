import { describe, expect, it } from 'vitest';
import type { Store } from '../client.js';
import { readCodeInterfaces } from './code-interfaces.js';

/** A store whose `contract_interfaces` holds `rows`; every query is recorded (the codes it asked for). */
function storeWith(rows: Record<string, string[]>) {
  const asked: string[][] = [];
  const store = {
    database: 'db',
    query: async (sql: string) => {
      const codes = [...sql.matchAll(/'([^']*)'/g)].map((m) => m[1]);
      asked.push(codes);
      return codes.filter((c) => rows[c]).map((c) => ({ code_hash: c, interfaces: rows[c], methods: ['85143'] }));
    },
  } as unknown as Store;
  return { store, asked };
}

describe('readCodeInterfaces()', () => {
  const scope = { watermark: 10 };

  it('asks the store once for a code it has found, again after a minute, and every time for a code it has not', async () => {
    const { store, asked } = storeWith({ A: ['wallet_v4r2'] });
    const t = 1_000_000;
    expect(await readCodeInterfaces(store, scope, ['A', 'B'], t)).toEqual(new Map([['A', { interfaces: ['wallet_v4r2'], methods: [85143] }]]));
    expect(await readCodeInterfaces(store, scope, ['A'], t + 59_000)).toEqual(new Map([['A', { interfaces: ['wallet_v4r2'], methods: [85143] }]]));
    await readCodeInterfaces(store, scope, ['A', 'B'], t + 59_000);
    await readCodeInterfaces(store, scope, ['A'], t + 61_000);
    expect(asked).toEqual([['A', 'B'], ['B'], ['A']]);
  });

  it('keeps answers per store', async () => {
    const one = storeWith({ A: ['jetton_wallet'] });
    const other = storeWith({ A: ['nft_item'] });
    await readCodeInterfaces(one.store, scope, ['A'], 0);
    expect((await readCodeInterfaces(other.store, scope, ['A'], 0)).get('A')?.interfaces).toEqual(['nft_item']);
    expect(await readCodeInterfaces(one.store, scope, [], 0)).toEqual(new Map());
    expect([one.asked.length, other.asked.length]).toEqual([1, 1]);
  });
});
