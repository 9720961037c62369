import { Address, beginCell } from '@ton/core';
import { TONCO_PTON_MASTER } from '@tonstream/contracts';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from '../classify.js';
import { addr, buildTrace, jettonTransferBody, notifyBody, opBody, walletExternalBody } from '../test-support/trace-builder.js';

/*
 * A TONCO swap of TON for USDT that fails (toncenter's ToncoSwapBlockMatcher): the user pays pTON
 * (ton_transfer 0x01f3835d to the router's pTON wallet, the swap request in its forward payload),
 * the router asks the pool to swap, the pool answers pay_to with an exit code other than 0 / 200 and
 * the TON comes back as pTON. For a failed swap toncenter takes `asset_out` and `min_out_amount`
 * from the request (the last hop's router jetton wallet, looked up, and its minimum out), not from
 * the refund. The request, as TONCO's SDK writes it: op 0xa7fb58f8, router jetton wallet of the
 * wanted token, price limit:uint160, minimum out:Coins, recipient, maybe ^next request.
 */

const user = addr('user');
const router = addr('tonco router');
const routerPton = addr('router pTON wallet');
const routerUsdt = addr('router USDT wallet');
const usdt = addr('USDT master');
const pool = addr('TON/USDT pool');
const a = (s: string) => Address.parse(s);

function failedSwap(exitCode: number) {
  const request = beginCell().storeUint(0xa7fb58f8, 32).storeAddress(a(routerUsdt)).storeUint(0n, 160).storeCoins(4_900_000n).storeAddress(a(user)).storeMaybeRef(null).endCell();
  const refund = 1_995_000_000n;
  const payTo = opBody(0xa1daa96d, (b) =>
    b
      .storeAddress(a(user))
      .storeAddress(a(user))
      .storeUint(exitCode, 32)
      .storeUint(1, 64)
      .storeMaybeRef(beginCell().storeCoins(refund).storeAddress(a(routerPton)).storeCoins(0n).storeAddress(a(routerUsdt)).endCell()),
  );
  const swap = opBody(0xa7fb58f8, (b) =>
    b
      .storeAddress(a(user))
      .storeAddress(a(routerPton))
      .storeRef(beginCell().storeCoins(2_000_000_000n).storeUint(0n, 160).storeCoins(4_900_000n))
      .storeRef(beginCell().storeAddress(a(user)).storeCoins(0n).storeMaybeRef(null).storeCoins(0n).storeMaybeRef(null)),
  );
  return buildTrace(
    {
      account: user,
      body: walletExternalBody(),
      children: [
        {
          account: routerPton,
          value: 2_300_000_000n,
          body: opBody(0x01f3835d, (b) => b.storeCoins(2_000_000_000n).storeAddress(a(user)).storeMaybeRef(request)),
          children: [
            {
              account: router,
              value: 2_250_000_000n,
              body: notifyBody(2_000_000_000n, user),
              children: [
                {
                  account: pool,
                  value: 2_200_000_000n,
                  body: swap,
                  children: [
                    {
                      account: router,
                      value: 2_150_000_000n,
                      body: payTo,
                      children: [
                        {
                          account: routerPton,
                          value: 2_100_000_000n,
                          body: jettonTransferBody(refund, user, user),
                          children: [{ account: user, value: 2_050_000_000n, body: opBody(0x01f3835d, (b) => b.storeCoins(refund).storeAddress(a(user)).storeMaybeRef(null)) }],
                        },
                      ],
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
      [routerPton]: { JettonWallet: { address: routerPton, owner: router, jetton: TONCO_PTON_MASTER } },
      [routerUsdt]: { JettonWallet: { address: routerUsdt, owner: router, jetton: usdt } },
    },
  );
}

function swapOf(exitCode: number) {
  const { trace, lookup } = failedSwap(exitCode);
  const swaps = classifyTrace(trace, lookup).actions.filter((x) => x.type === 'jetton_swap');
  expect(swaps).toHaveLength(1);
  return swaps[0];
}

describe('tonco swap of TON for USDT', () => {
  it('that failed shows the asset and minimum out the request asked for', () => {
    const swap = swapOf(300);
    expect(swap.success).toBe(false);
    expect(swap.details).toMatchObject({ dex: 'tonco', asset_in: null, asset_out: usdt, min_out_amount: '4900000' });
    expect(swap.details).toMatchObject({ dex_outgoing_transfer: { asset: null, amount: '1995000000', destination: user } });
  });

  it('with exit code 0 is not failed, and shows what was paid out', () => {
    const swap = swapOf(0);
    expect(swap.success).toBe(true);
    expect(swap.details).toMatchObject({ asset_out: null, min_out_amount: '1995000000' });
  });
});
