import { Address, beginCell, type Cell, type Message, type Slice } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { bounce, excess, textComment } from './messages/common.js';
import { jettonBurn, jettonBurnNotification, jettonInternalTransfer, jettonNotify, jettonTransfer } from './messages/jettons.js';
import { nftOwnershipAssigned, nftTransfer } from './messages/nfts.js';
import { teleitemBidInfo, teleitemMsgDeploy } from './messages/telegram.js';
import { isBody, readBody } from './read-body.js';
import { opcodeName } from './table.js';
import { fixtureTransactions, type FixtureTx, opcodeOf, withInbound } from './test-support/mainnet.js';

// Expected values come from @ton/core reading the same bits directly, and from the chain itself:
// what a contract did with a message (the messages its transaction sent) is an independent record
// of what the message said.

const raw = (a: unknown) => (a instanceof Address ? a.toRawString() : a === null ? null : String(a));
const hashOf = (c: Cell) => c.hash().toString('hex');
const afterOpcode = (body: Cell): Slice => {
  const s = body.beginParse();
  s.skip(32);
  return s;
};
const outWith = (t: FixtureTx, opcode: number): Message[] => t.out.filter((m) => opcodeOf(m.body) === opcode);
const internal = (m: Message) => {
  if (m.info.type !== 'internal') throw new Error('not internal');
  return m.info;
};

describe('opcodeName()', () => {
  it('names the opcodes SOURCES.md lists as toncenter names them', () => {
    // SOURCES.md: 0x0f8a7ea5 jetton transfer, 0x178d4519 internal_transfer, 0x7362d09c notification,
    // 0xd53276db excesses, 0x595f07bc burn, 0x7bdd97de burn_notification, 0x5fcc3d14 NFT transfer,
    // 0x05138d91 ownership_assigned, 0 text comment, 0xffffffff bounced.
    const names = [0x0f8a7ea5, 0x178d4519, 0x7362d09c, 0xd53276db, 0x595f07bc, 0x7bdd97de, 0x5fcc3d14, 0x05138d91, 0, 0xffffffff].map(opcodeName);
    expect(names).toEqual([
      'jetton_transfer', 'jetton_internal_transfer', 'jetton_notify', 'excess', 'jetton_burn', 'jetton_burn_notification',
      'nft_transfer', 'nft_ownership_assigned', 'text_comment', 'bounce',
    ]);
  });

  it('knows no name for other opcodes', () => {
    // 0xaf750d34 (a memepad buy in the fixtures) and 0x61ee542d (a DEX swap) are not standard contracts.
    expect([0xaf750d34, 0x61ee542d, 0x12345678, 0x2c76b973].map(opcodeName)).toEqual([null, null, null, null]);
  });

  it('matches the opcode of the inbound body of every fixture category it names', () => {
    const byCategory: Record<string, string> = {
      jetton_transfer: 'jetton_transfer', jetton_internal_transfer: 'jetton_internal_transfer', jetton_transfer_notification: 'jetton_notify',
      jetton_excesses: 'excess', jetton_burn: 'jetton_burn', jetton_burn_notification: 'jetton_burn_notification', nft_transfer: 'nft_transfer',
      nft_ownership_assigned: 'nft_ownership_assigned', internal_text_comment: 'text_comment', inbound_bounced_message: 'bounce',
    };
    const seen = new Set<string>();
    for (const t of fixtureTransactions()) {
      const want = byCategory[t.category];
      if (!want) continue;
      seen.add(t.category);
      expect(readBody(t.in!.body)?.name, `${t.category} ${t.lt}`).toBe(want);
    }
    expect([...seen].sort()).toEqual(Object.keys(byCategory).sort());
  });
});

describe('readBody() on mainnet bodies', () => {
  it('reads jetton_transfer as @ton/core reads its fields', () => {
    const txs = withInbound(0x0f8a7ea5);
    expect(txs.length).toBeGreaterThanOrEqual(2);
    for (const t of txs) {
      const s = afterOpcode(t.in!.body);
      const want = {
        query_id: s.loadUintBig(64),
        amount: s.loadCoins(),
        destination: raw(s.loadAddressAny()),
        response_destination: raw(s.loadAddressAny()),
        custom_payload: s.loadMaybeRef(),
        forward_ton_amount: s.loadCoins(),
        forward_payload: s.loadBit() ? s.loadRef() : s.asCell(),
      };
      const b = readBody(t.in!.body);
      if (!isBody(b, jettonTransfer)) throw new Error(`not a jetton_transfer: ${b?.name}`);
      const v = b.value;
      expect({ ...v, destination: raw(v.destination), response_destination: raw(v.response_destination), custom_payload: v.custom_payload && hashOf(v.custom_payload), forward_payload: hashOf(v.forward_payload) }).toEqual({
        type: 'jetton_transfer', ...want, custom_payload: want.custom_payload && hashOf(want.custom_payload), forward_payload: hashOf(want.forward_payload),
      });
    }
  });

  it('a jetton wallet passes the transfer on in its internal_transfer: amount, query id, owner, response, forward amount and payload (chain)', () => {
    const txs = withInbound(0x0f8a7ea5);
    for (const t of txs) {
      const transfer = readBody(t.in!.body);
      const [sent] = outWith(t, 0x178d4519);
      const passed = readBody(sent.body);
      if (!isBody(transfer, jettonTransfer) || !isBody(passed, jettonInternalTransfer)) throw new Error('unexpected bodies');
      expect(passed.value.amount).toBe(transfer.value.amount);
      expect(passed.value.query_id).toBe(transfer.value.query_id);
      expect(raw(passed.value.from)).toBe(raw(internal(t.in!).src));
      expect(raw(passed.value.response_address)).toBe(raw(transfer.value.response_destination));
      expect(passed.value.forward_ton_amount).toBe(transfer.value.forward_ton_amount);
      expect(hashOf(passed.value.forward_payload)).toBe(hashOf(transfer.value.forward_payload));
    }
  });

  it('the receiving wallet notifies its owner with the amount, sender and payload, paying the forward amount, and returns excesses to the response address (chain)', () => {
    const txs = withInbound(0x178d4519).filter((t) => outWith(t, 0x7362d09c).length > 0);
    expect(txs.length).toBeGreaterThanOrEqual(1);
    for (const t of txs) {
      const got = readBody(t.in!.body);
      const [notifyMsg] = outWith(t, 0x7362d09c);
      const [excessMsg] = outWith(t, 0xd53276db);
      const notify = readBody(notifyMsg.body);
      const returned = readBody(excessMsg.body);
      if (!isBody(got, jettonInternalTransfer) || !isBody(notify, jettonNotify) || !isBody(returned, excess)) throw new Error('unexpected bodies');
      expect(notify.value.amount).toBe(got.value.amount);
      expect(notify.value.query_id).toBe(got.value.query_id);
      expect(raw(notify.value.sender)).toBe(raw(got.value.from));
      expect(hashOf(notify.value.forward_payload)).toBe(hashOf(got.value.forward_payload));
      expect(internal(notifyMsg).value.coins).toBe(got.value.forward_ton_amount);
      expect(returned.value.query_id).toBe(got.value.query_id);
      expect(raw(internal(excessMsg).dest)).toBe(raw(got.value.response_address));
    }
  });

  it('a burn reaches the minter as burn_notification with the amount, the owner and the response address (chain)', () => {
    const txs = withInbound(0x595f07bc);
    expect(txs.length).toBeGreaterThanOrEqual(1);
    for (const t of txs) {
      const burn = readBody(t.in!.body);
      const note = readBody(outWith(t, 0x7bdd97de)[0].body);
      if (!isBody(burn, jettonBurn) || !isBody(note, jettonBurnNotification)) throw new Error('unexpected bodies');
      expect(note.value.amount).toBe(burn.value.amount);
      expect(note.value.query_id).toBe(burn.value.query_id);
      expect(raw(note.value.sender)).toBe(raw(internal(t.in!).src));
      expect(raw(note.value.response_destination)).toBe(raw(burn.value.response_destination));
    }
  });

  it('a failed nft_transfer bounces back with the first 256 bits of its body (TVM bounce)', () => {
    const txs = withInbound(0x5fcc3d14);
    expect(txs.length).toBeGreaterThanOrEqual(1);
    for (const t of txs) {
      expect(isBody(readBody(t.in!.body), nftTransfer)).toBe(true);
      const back = readBody(outWith(t, 0xffffffff)[0].body);
      if (!isBody(back, bounce)) throw new Error('no bounce');
      const original = t.in!.body.beginParse().loadBits(256).toString();
      expect(back.value.payload.bits.toString()).toBe(original);
    }
  });

  it('reads text comments as @ton/core reads the string tail', () => {
    const txs = withInbound(0);
    expect(txs.length).toBeGreaterThanOrEqual(3);
    for (const t of txs) {
      const b = readBody(t.in!.body);
      if (!isBody(b, textComment)) throw new Error('not a comment');
      expect(b.value.text).toBe(afterOpcode(t.in!.body).loadStringTail());
    }
  });

  it('a Telegram item minted at its bid tells its owner that bid in ownership_assigned (chain)', () => {
    const [t] = withInbound(0x299a3e15);
    const deploy = readBody(t.in!.body);
    const assigned = readBody(outWith(t, 0x05138d91)[0].body);
    if (!isBody(deploy, teleitemMsgDeploy) || !isBody(assigned, nftOwnershipAssigned)) throw new Error('unexpected bodies');
    const info = readBody(assigned.value.forward_payload);
    if (!isBody(info, teleitemBidInfo)) throw new Error('no bid info');
    expect(info.value.bid).toBe(deploy.value.bid);
    // The item's name: its bytes as @ton/core reads them from the token_info ref.
    const tokenInfo = t.in!.body.refs[0].beginParse();
    expect(deploy.value.token_info.name).toEqual(tokenInfo.loadBuffer(tokenInfo.loadUint(8)));
    expect(deploy.value.token_info.name.toString('latin1')).toMatch(/^[a-z0-9-]+$/);
  });

  it('answers null, never a throw, for bodies without a known opcode or that do not fit', () => {
    const unknownOps = fixtureTransactions().flatMap((t) => [t.in, ...t.out]).filter((m): m is Message => m !== null && opcodeName(opcodeOf(m.body) ?? 0) === null && opcodeOf(m.body) !== null);
    expect(unknownOps.length).toBeGreaterThan(3);
    for (const m of unknownOps) expect(readBody(m.body)).toBeNull();
    // A transfer cut after its query id does not fit the layout.
    const [t] = withInbound(0x0f8a7ea5);
    const cut = t.in!.body.beginParse().loadBits(96);
    expect(readBody(beginCell().storeBits(cut).endCell())).toBeNull();
  });
});
