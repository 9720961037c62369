import type { Builder, Cell } from '@ton/core';
import { Address, beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from '../classify.js';
import { addr, burnBody, burnNotificationBody, buildTrace, opBody, walletExternalBody } from '../test-support/trace-builder.js';

/*
 * tgBTC burn (toncenter's TgBTCBurnBlockMatcher): a jetton burn whose notification reaches the
 * teleport, which logs a burn event (0xca444ce6 amount:Coins sender:MsgAddress pegout:MsgAddress).
 * toncenter's amount is the burn's amount capped by the log's (the log's when the burn's is 0); the
 * log's addresses are optional (older logs have other bits there), its amount is not.
 */

const user = addr('user');
const wallet = addr('user tgBTC wallet');
const master = addr('tgBTC master');
const teleport = addr('teleport');
const pegout = addr('pegout');

function burn(burnt: bigint, log: Cell, burnBodyOf: (amount: bigint) => Cell = (amount) => burnBody(amount, user)) {
  return buildTrace(
    {
      account: user,
      body: walletExternalBody(),
      children: [
        {
          account: wallet,
          value: 600_000_000n,
          body: burnBodyOf(burnt),
          children: [
            {
              account: master,
              value: 590_000_000n,
              body: burnNotificationBody(burnt, user, user),
              children: [{ account: teleport, value: 580_000_000n, body: burnNotificationBody(burnt, user, user), logs: [log] }],
            },
          ],
        },
      ],
    },
    { [wallet]: { JettonWallet: { address: wallet, owner: user, jetton: master } } },
  );
}

const burnLog = (amount: bigint, tail: (b: Builder) => Builder): Cell => tail(beginCell().storeUint(0xca444ce6, 32).storeCoins(amount)).endCell();

function tgbtcBurn(burnt: bigint, log: Cell, burnBodyOf?: (amount: bigint) => Cell) {
  const { trace, lookup } = burn(burnt, log, burnBodyOf);
  const actions = classifyTrace(trace, lookup).actions.filter((a) => a.type === 'tgbtc_burn');
  expect(actions).toHaveLength(1);
  return actions[0];
}

describe('tgbtc burn amount', () => {
  it('is the burnt amount when the log says more', () => {
    const log = burnLog(12_000n, (b) => b.storeAddress(Address.parse(user)).storeAddress(Address.parse(pegout)));
    expect(tgbtcBurn(9_637n, log).details).toEqual({ source: user, source_wallet: wallet, destination: pegout, amount: '9637', asset: master });
  });

  it("is the log's when the log says less, even when the log's addresses do not read", () => {
    const log = burnLog(93_066n, (b) => b.storeUint(5, 3));
    expect(tgbtcBurn(100_000n, log).details).toEqual({ source: user, source_wallet: wallet, destination: null, amount: '93066', asset: master });
  });

  it('reads a burn without the custom payload bit, as toncenter reads burns', () => {
    const log = burnLog(9_637n, (b) => b.storeAddress(Address.parse(user)).storeAddress(Address.parse(pegout)));
    const bare = (amount: bigint) => opBody(0x595f07bc, (b) => b.storeCoins(amount).storeAddress(Address.parse(user)));
    expect(tgbtcBurn(9_637n, log, bare).details).toMatchObject({ source: user, source_wallet: wallet, amount: '9637' });
  });

  it("is the log's when nothing was burnt", () => {
    const log = burnLog(500n, (b) => b.storeAddress(Address.parse(user)).storeAddress(Address.parse(pegout)));
    expect(tgbtcBurn(0n, log).details).toMatchObject({ amount: '500', destination: pegout });
  });
});
