import { TONSTAKERS_OPS } from '@tonstream/contracts';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from '../classify.js';
import { addr, burnBody, burnNotificationBody, buildTrace, opBody, walletExternalBody } from '../test-support/trace-builder.js';

/*
 * Tonstakers immediate withdrawal (toncenter's TONStakersWithdrawMatcher): the user burns tsTON, the
 * wallet notifies the tsTON master, the master sends withdraw_request to the pool, and the pool pays
 * out at once (pool_withdrawal 0x0a77535c). toncenter serves `amount` = the payout's value less the
 * request's value (the TON the request brought along), `tokens_burnt` = the burn's amount, `asset` =
 * the request's sender (the tsTON master), `payout_nft` null.
 */

const user = addr('user');
const tsTonWallet = addr('user tsTON wallet');
const tsTonMaster = addr('tsTON master');
const pool = addr('tonstakers pool');

describe('tonstakers immediate withdrawal', () => {
  it('serves the payout less the request value as amount and the burn as tokens_burnt', () => {
    const { trace, lookup } = buildTrace({
      account: user,
      body: walletExternalBody(),
      children: [
        {
          account: tsTonWallet,
          value: 1_050_000_000n,
          body: burnBody(3_000_000_000n, user),
          children: [
            {
              account: tsTonMaster,
              value: 1_040_000_000n,
              body: burnNotificationBody(3_000_000_000n, user, user),
              children: [
                {
                  account: pool,
                  value: 1_030_000_000n,
                  body: opBody(TONSTAKERS_OPS.withdrawRequest, (b) => b.storeCoins(3_000_000_000n).storeAddress(null)),
                  children: [{ account: user, value: 4_200_000_000n, body: opBody(TONSTAKERS_OPS.poolWithdrawal) }],
                },
              ],
            },
          ],
        },
      ],
    });
    const actions = classifyTrace(trace, lookup).actions.filter((a) => a.type === 'stake_withdrawal');
    expect(actions).toHaveLength(1);
    expect(actions[0].details).toEqual({
      provider: 'liquid_staking',
      stake_holder: user,
      pool,
      amount: String(4_200_000_000n - 1_030_000_000n),
      payout_nft: null,
      tokens_burnt: '3000000000',
      asset: tsTonMaster,
    });
    expect(actions[0].success).toBe(true);
    expect(new Set(actions[0].transactions)).toEqual(new Set(trace.transactions.map((t) => t.hash)));
  });
});

/*
 * A Tonstakers deposit the pool refused: toncenter's TONStakersDepositMatcher reads the asset off the
 * mint's internal_transfer unconditionally, so without one there is no stake_deposit; the request and
 * its bounce stay call_contract actions.
 */
describe('tonstakers deposit that minted nothing', () => {
  it('is no stake_deposit', () => {
    const { trace, lookup } = buildTrace({
      account: user,
      body: walletExternalBody(),
      children: [
        {
          account: pool,
          value: 11_000_000_000n,
          aborted: true,
          body: opBody(TONSTAKERS_OPS.depositRequest),
          children: [{ account: user, value: 10_990_000_000n, bounce: false, bounced: true, body: opBody(0xffffffff) }],
        },
      ],
    });
    const { actions } = classifyTrace(trace, lookup);
    expect(actions.map((a) => a.type)).toEqual(['call_contract', 'call_contract']);
    expect(actions[0]).toMatchObject({ success: false, details: { opcode: '0x47d54391', source: user, destination: pool } });
  });
});
