import { describe, expect, it } from 'vitest';
import { classifyTrace } from '../classify.js';
import { addr, buildTrace, jettonTransferBody, opBody, walletExternalBody } from '../test-support/trace-builder.js';

/*
 * A jetton transfer the sender's own wallet refused (say, too few jettons): toncenter's
 * JettonTransferBlockMatcher requires the internal_transfer, so there is no jetton_transfer; the
 * transfer call (failed) and the bounce back to the owner are call_contract actions.
 */

const user = addr('user');
const wallet = addr('user jetton wallet');
const jetton = addr('jetton master');

describe('jetton transfer refused by the sender wallet', () => {
  it('is a failed call_contract and a bounce, not a jetton_transfer', () => {
    const { trace, lookup } = buildTrace(
      {
        account: user,
        body: walletExternalBody(),
        children: [
          {
            account: wallet,
            value: 50_000_000n,
            aborted: true,
            exitCode: 47,
            body: jettonTransferBody(1_000_000n, addr('receiver'), user),
            children: [{ account: user, value: 45_000_000n, bounce: false, bounced: true, body: opBody(0xffffffff) }],
          },
        ],
      },
      { [wallet]: { JettonWallet: { address: wallet, owner: user, jetton } } },
    );
    const { actions } = classifyTrace(trace, lookup);
    expect(actions.map((a) => [a.type, a.success])).toEqual([
      ['call_contract', false],
      ['call_contract', true],
    ]);
    expect(actions[0].details).toMatchObject({ opcode: '0x0f8a7ea5', source: user, destination: wallet });
    expect(actions[1].details).toMatchObject({ opcode: '0xffffffff', source: wallet, destination: user });
  });
});
