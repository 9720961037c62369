import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from '../classify.js';
import type { FixtureTrace } from '../fixture-adapter.js';
import { fromFixtureTrace } from '../fixture-adapter.js';

const DIR = join(import.meta.dirname, '../../../../test/fixtures/mainnet/traces');

/*
 * A failed JVault unstake on mainnet (golden case jvault/unstake-failed): the user's wallet sends
 * unstake_jettons to its stake wallet, which fails (exit code 56) and bounces the TON back.
 * toncenter's JVaultUnstakeBlockMatcher builds the action from the unstake message alone; the bounce
 * right after it is appended to the match result only after the action was built, and a top-level
 * result is dropped, so the bounce stays an action of its own. The action's transactions are the
 * stake wallet's and the wallet external that sent the message. toncenter never marks jvault_unstake
 * failed (its builder does not set `failed`).
 */
describe('jvault unstake that failed', () => {
  const fixture = JSON.parse(readFileSync(join(DIR, 'mTVGq-A5PCaXAdu-Xuab0J-vtygXRJ1GwqZbW-aYN84=.json'), 'utf8')) as FixtureTrace;
  const { trace, lookup } = fromFixtureTrace(fixture);
  const { actions } = classifyTrace(trace, lookup);
  const byInbound = (opcode: string) => trace.transactions.find((t) => t.in_msg?.opcode === opcode)!;
  const wallet = trace.transactions.find((t) => t.in_msg?.source === null)!;
  const unstakeTx = byInbound('0x499a9262');
  const bounceTx = byInbound('0xffffffff');

  it('lists the stake wallet and the sending wallet only, not the bounce', () => {
    const unstake = actions.filter((a) => a.type === 'jvault_unstake');
    expect(unstake).toHaveLength(1);
    expect(new Set(unstake[0].transactions)).toEqual(new Set([unstakeTx.hash, wallet.hash]));
    expect(unstake[0].success).toBe(true);
    expect(unstake[0].details).toMatchObject({ exit_code: 56 });
  });

  it('serves the bounce as a call_contract action', () => {
    const bounce = actions.filter((a) => a.transactions.includes(bounceTx.hash));
    expect(bounce).toHaveLength(1);
    expect(bounce[0]).toMatchObject({ type: 'call_contract', details: { opcode: '0xffffffff', source: unstakeTx.account, destination: bounceTx.account } });
    expect(new Set(bounce[0].transactions)).toEqual(new Set([bounceTx.hash, unstakeTx.hash]));
  });
});
