import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, Cell, loadMessageRelaxed } from '@ton/core';
import { decodeBlock } from '@tonstream/block';
import { describe, expect, it } from 'vitest';
import { bodyJson } from '../body-json.js';
import { isBody, readBody } from '../read-body.js';
import { FIXTURES } from '../test-support/mainnet.js';
import { w5ExtensionActionRequest, w5ExternalSignedRequest, w5InternalSignedRequest } from './wallets.js';

// Wallet v5 requests from the fixture blocks. What a wallet did with a request is on chain: the
// transaction that received it sent exactly the messages of its send_msg actions, so each action's
// destination, bounce flag and body must be those of the transaction's out messages, in order.

type Tx = ReturnType<typeof decodeBlock>['transactions'][number];

function w5Transactions(): Tx[] {
  const dir = join(FIXTURES, 'blocks');
  return readdirSync(dir)
    .flatMap((f) => decodeBlock(readFileSync(join(dir, f))).transactions)
    .filter((t) => ['0x7369676e', '0x73696e74', '0x6578746e'].includes(t.in_msg?.opcode ?? ''));
}

const bodyOf = (m: { message_content: { body: string } | null }) => Cell.fromBase64(m.message_content!.body);

describe('wallet v5 requests on mainnet', () => {
  const txs = w5Transactions();

  it('finds external and internal requests in the fixtures', () => {
    expect(txs.filter((t) => t.in_msg!.opcode === '0x7369676e').length).toBeGreaterThanOrEqual(3);
  });

  it('reads the signed header as @ton/core reads it', () => {
    for (const t of txs.filter((x) => x.in_msg!.opcode !== '0x6578746e')) {
      const body = bodyOf(t.in_msg!);
      const s = body.beginParse().skip(32);
      const want = { wallet_id: s.loadUint(32), valid_until: s.loadUint(32), msg_seqno: s.loadUint(32) };
      const b = readBody(body);
      if (!isBody(b, w5ExternalSignedRequest) && !isBody(b, w5InternalSignedRequest)) throw new Error(`not a signed request: ${b?.name}`);
      expect(b.value.request).toMatchObject(want);
      // The signature is the last 512 bits of the body's root cell.
      expect(b.value.request.signature.toString('hex')).toBe(body.beginParse().skip(body.bits.length - 512).loadBuffer(64).toString('hex'));
      const printed = bodyJson(body.toBoc()) as { request: Record<string, unknown> };
      expect(printed.request).toMatchObject({ '@type': 'w5_signed_request', wallet_id: String(want.wallet_id), valid_until: String(want.valid_until), msg_seqno: String(want.msg_seqno) });
    }
  });

  it('lists the actions the transaction carried out, in order (chain)', () => {
    let checked = 0;
    for (const t of txs.filter((x) => x.description.action?.success)) {
      const b = readBody(bodyOf(t.in_msg!));
      const inner = isBody(b, w5ExtensionActionRequest) ? b.value.request : isBody(b, w5ExternalSignedRequest) || isBody(b, w5InternalSignedRequest) ? b.value.request.inner : null;
      if (!inner) throw new Error(`unread request ${t.in_msg!.opcode}`);
      const action = t.description.action!;
      expect(inner.out_actions ?? []).toHaveLength(action.tot_actions);
      // A send the action phase skipped (mode +2, e.g. not enough balance) made no message.
      if (action.skipped_actions > 0) continue;
      const sends = (inner.out_actions ?? []).filter((a) => a.type === 'action_send_msg');
      expect(sends.map((a) => a.type === 'action_send_msg' && a.out_msg.info.type === 'int_msg_info' && (a.out_msg.info.dest as Address).toRawString().toUpperCase())).toEqual(t.out_msgs.map((m) => m.destination));
      for (const [i, a] of sends.entries()) {
        if (a.type !== 'action_send_msg' || a.out_msg.info.type !== 'int_msg_info') throw new Error('not an internal send');
        expect(a.out_msg.info.bounce).toBe(t.out_msgs[i].bounce);
        expect(a.out_msg.body.hash().toString('base64')).toBe(t.out_msgs[i].message_content!.hash);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it('reads each action message as @ton/core loadMessageRelaxed reads it', () => {
    for (const t of txs) {
      const b = readBody(bodyOf(t.in_msg!));
      const inner = isBody(b, w5ExtensionActionRequest) ? b.value.request : isBody(b, w5ExternalSignedRequest) || isBody(b, w5InternalSignedRequest) ? b.value.request.inner : null;
      // The out list, walked with @ton/core: prev ref first, then the action.
      const cells: Cell[] = [];
      const body = bodyOf(t.in_msg!);
      const head = body.beginParse().skip(32 + (t.in_msg!.opcode === '0x6578746e' ? 64 : 96));
      if (head.loadBit()) for (let c = head.loadRef(); c.refs.length > 0; c = c.refs[0]) cells.push(c);
      const core = cells.reverse().map((c) => {
        const s = c.beginParse();
        s.loadRef();
        expect(s.loadUint(32)).toBe(0x0ec3c86d);
        const mode = s.loadUint(8);
        return { mode, message: loadMessageRelaxed(s.loadRef().beginParse()) };
      });
      const ours = (inner?.out_actions ?? []).map((a) => (a.type === 'action_send_msg' ? a : null));
      expect(ours).toHaveLength(core.length);
      for (const [i, c] of core.entries()) {
        const a = ours[i]!;
        expect(a.mode).toBe(c.mode);
        if (c.message.info.type !== 'internal' || a.out_msg.info.type !== 'int_msg_info') throw new Error('not internal');
        expect(a.out_msg.info.value.grams).toBe(c.message.info.value.coins);
        expect((a.out_msg.info.dest as Address).equals(c.message.info.dest)).toBe(true);
        expect(a.out_msg.body.hash().equals(c.message.body.hash())).toBe(true);
      }
    }
  });
});
