import { describe, expect, it } from 'vitest';
import { createChain } from './chain.js';
import { PREFUNDED_BALANCE, PREFUNDED_WALLETS } from './prefunded.js';

describe('PREFUNDED_WALLETS', () => {
  it('a new chain holds them active with PREFUNDED_BALANCE at its first block; prefundedWallets: [] leaves them out', async () => {
    const chain = await createChain({ seed: 'prefunded', shards: 2 });
    for (const w of PREFUNDED_WALLETS) {
      const st = await chain.getAccountState(w.address, chain.head());
      expect([st.status, st.balance, st.lastTxLt]).toEqual(['active', PREFUNDED_BALANCE, 0n]);
    }
    const bare = await createChain({ seed: 'prefunded', shards: 2, prefundedWallets: [] });
    expect((await bare.getAccountState(PREFUNDED_WALLETS[0].address)).status).toBe('nonexist');
  });
});
