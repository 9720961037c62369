import { Address } from '@ton/core';
import { ETHENA_TSUSDE_MASTER, ETHENA_USDE_MASTER } from '@tonstream/contracts';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from '../classify.js';
import { addr, buildTrace, excessesBody, internalTransferBody, jettonTransferBody, notifyBody, opBody, walletExternalBody } from '../test-support/trace-builder.js';

/*
 * Ethena unstake (toncenter's EthenaWithdrawalRequestBlockMatcher): the user sends tsUSDe from its
 * wallet, the wallet's internal_transfer goes to the tsUSDe master, whose notify reaches the pool;
 * the pool's mint (0x642b7d07) makes the master send 0xb2583ed5 to the user's wallet. toncenter reads
 * that last body as an internal_transfer (op, query_id, amount, from, response, forward TON amount)
 * and serves its amount as `tokens_minted`.
 */

const user = addr('user');
const userWallet = addr('user tsUSDe wallet');
const pool = addr('ethena pool');

function unstake(minted: bigint) {
  const timelocked = opBody(0xb2583ed5, (b) => b.storeCoins(minted).storeAddress(null).storeAddress(null).storeCoins(0n).storeBit(false));
  return buildTrace(
    {
      account: user,
      body: walletExternalBody(),
      children: [
        {
          account: userWallet,
          value: 200_000_000n,
          body: jettonTransferBody(150_000_000n, pool, user),
          children: [
            {
              account: ETHENA_TSUSDE_MASTER,
              value: 150_000_000n,
              body: internalTransferBody(150_000_000n, user, user),
              children: [
                {
                  account: pool,
                  value: 100_000_000n,
                  body: notifyBody(150_000_000n, user),
                  children: [
                    {
                      account: ETHENA_TSUSDE_MASTER,
                      value: 80_000_000n,
                      body: opBody(0x642b7d07, (b) => b.storeAddress(null).storeCoins(0n)),
                      children: [{ account: userWallet, value: 50_000_000n, body: timelocked, children: [{ account: user, value: 10_000_000n, body: excessesBody() }] }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
    { [userWallet]: { JettonWallet: { address: userWallet, owner: user, jetton: ETHENA_TSUSDE_MASTER } } },
  );
}

describe('ethena unstake request', () => {
  it('serves the timelocked transfer amount as tokens_minted (the body has its own opcode, not internal_transfer\'s)', () => {
    const { trace, lookup } = unstake(187_500_000n);
    const actions = classifyTrace(trace, lookup).actions.filter((a) => a.type === 'stake_withdrawal_request');
    expect(actions).toHaveLength(1);
    const [action] = actions;
    expect(action.details).toEqual({
      provider: 'ethena',
      stake_holder: user,
      pool,
      payout_nft: null,
      asset: ETHENA_TSUSDE_MASTER,
      tokens_burnt: null,
      tokens_minted: '187500000',
    });
    // Every transaction of the flow, the user's wallet external included.
    expect(new Set(action.transactions)).toEqual(new Set(trace.transactions.map((t) => t.hash)));
    expect(new Set(action.accounts)).toEqual(new Set([user, userWallet, ETHENA_TSUSDE_MASTER, pool]));
  });
});

/*
 * Ethena stake (toncenter's EthenaDepositBlockMatcher): a USDe jetton_transfer to the pool followed by
 * a jetton_mint of tsUSDe. toncenter merges exactly those two and never marks the action failed, even
 * when the mint failed; the bounce that answers the failed mint stays an action of its own.
 */
describe('ethena stake whose mint failed', () => {
  const usdeWallet = addr('user USDe wallet');
  const poolUsdeWallet = addr('pool USDe wallet');
  const { trace, lookup } = buildTrace(
    {
      account: user,
      body: walletExternalBody(),
      children: [
        {
          account: usdeWallet,
          value: 300_000_000n,
          body: jettonTransferBody(2_500_300_127n, pool, user, 200_000_000n),
          children: [
            {
              account: poolUsdeWallet,
              value: 250_000_000n,
              body: internalTransferBody(2_500_300_127n, user, user, 200_000_000n),
              children: [
                {
                  account: pool,
                  value: 200_000_000n,
                  body: notifyBody(2_500_300_127n, user),
                  children: [
                    {
                      account: ETHENA_TSUSDE_MASTER,
                      value: 150_000_000n,
                      aborted: true,
                      body: opBody(0x642b7d07, (b) => b.storeAddress(Address.parse(user)).storeCoins(100_000_000n)),
                      children: [{ account: pool, value: 140_000_000n, bounce: false, bounced: true, body: opBody(0xffffffff) }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
    {
      [usdeWallet]: { JettonWallet: { address: usdeWallet, owner: user, jetton: ETHENA_USDE_MASTER } },
      [poolUsdeWallet]: { JettonWallet: { address: poolUsdeWallet, owner: pool, jetton: ETHENA_USDE_MASTER } },
    },
  );
  const { actions } = classifyTrace(trace, lookup);
  const bounceTx = trace.transactions.find((t) => t.in_msg?.opcode === '0xffffffff')!;

  it('is a successful stake_deposit of the transfer and the mint only', () => {
    const deposits = actions.filter((a) => a.type === 'stake_deposit');
    expect(deposits).toHaveLength(1);
    expect(deposits[0]).toMatchObject({ success: true, details: { provider: 'ethena', stake_holder: user, pool, amount: '2500300127', tokens_minted: null } });
    expect(new Set(deposits[0].transactions)).toEqual(new Set(trace.transactions.filter((t) => t !== bounceTx).map((t) => t.hash)));
  });

  it('leaves the bounce of the mint as a call_contract', () => {
    expect(actions.filter((a) => a.transactions.includes(bounceTx.hash)).map((a) => a.type)).toEqual(['call_contract']);
  });
});
