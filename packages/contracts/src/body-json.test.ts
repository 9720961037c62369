import { Address, beginCell, Cell, storeMessageRelaxed } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { bodyJson, bodyJsonFromText, decodeBudget, MAX_BODY_BOC_BYTES, MAX_BODY_CELLS } from './body-json.js';
import type { TlbObject } from './tlb/codec.js';
import { fixtureTransactions, opcodeOf, withInbound } from './test-support/mainnet.js';

// The printed form is ton-marker's (toncenter's decoder): its JSON printer writes a constructor as
// {"@type": name, fields...}, every integer as a decimal string, `bits` as upper-case hex and a
// cell as a base64 BoC, which is decoded in place when it is itself a known body. The test vectors
// below are ton-marker's own (ton-index-worker/ton-marker/test/logic.cpp); field values come from
// @ton/core reading the same bits.

const boc64 = (c: Cell) => c.toBoc({ idx: false, crc32: false }).toString('base64');
const obj = (v: unknown) => v as TlbObject & Record<string, never>;
const stdAddress = (a: Address) => ({
  internal_address: { '@type': 'addr_std', anycast: { '@type': 'nothing_from_maybe' }, workchain_id: String(a.workChain), address: a.hash.toString('hex').toUpperCase() },
});
const varUint = (v: bigint) => ({ '@type': 'var_uint', len: String(v === 0n ? 0 : Math.ceil(v.toString(16).length / 2)), value: v.toString() });

describe('bodyJson(): ton-marker test vectors', () => {
  it('prints its jetton transfer vector as a jetton_transfer', () => {
    const out = bodyJsonFromText('te6cckEBAgEAXwABrA+KfqXd1cM7477pClMu6EG4CAGpIg3SmqRBb3f118SmKj9v88uiLn/wr10L8o/P1edBoQALRoNZaHCTREZ/qCrIa3pc1jOHL2t49dK6CvI3sot9R8IDAQAITSOFQ1gqiHU=');
    expect(JSON.stringify(out).startsWith('{"@type":"jetton_transfer"')).toBe(true);
  });

  it('stops its shared-cell bomb (each payload referring twice to the next) with its message', () => {
    const vector =
      'te6cckECCQEAAtYAAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwEBAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwICAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwMDAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwQEAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwUFAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwYGAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwcHAqwPin6l3dXDO+O+6QpTLuhBuAgBqSIN0pqkQW939dfEpio/b/PLoi5/8K9dC/KPz9XnQaEAC0aDWWhwk0RGf6gqyGt6XNYzhy9rePXSugryN7KLfUfiAwgIAAhNI4VDgcJxgg==';
    expect(bodyJsonFromText(vector)).toEqual({ error: 'unknown: recursive decode error - recursive decode operation limit exceeded' });
  });

  it('prints VarUInteger as var_uint with its byte length, as toncenter answers an internal_transfer amount', () => {
    // A toncenter message_content.decoded seen by a client: "amount":{"@type":"var_uint","len":"3","value":"2250000"}.
    const body = beginCell().storeUint(0x178d4519, 32).storeUint(1, 64).storeCoins(2250000n).storeAddress(null).storeAddress(null).storeCoins(0).storeBit(false).endCell();
    const out = obj(bodyJson(body.toBoc()));
    expect(out['@type']).toBe('jetton_internal_transfer');
    expect(out.query_id).toBe('1');
    expect(out.amount).toEqual({ '@type': 'var_uint', len: '3', value: '2250000' });
    expect(out.from).toEqual({ external_address: { '@type': 'addr_none' } });
    expect(out.forward_payload).toEqual({ '@type': 'first_from_either', value: { empty_cell: '' } });
  });
});

describe('bodyJson() on mainnet bodies', () => {
  it('prints each jetton_transfer field with the value @ton/core reads', () => {
    const txs = withInbound(0x0f8a7ea5);
    expect(txs.length).toBeGreaterThanOrEqual(2);
    for (const t of txs) {
      const s = t.in!.body.beginParse().skip(32);
      const queryId = s.loadUintBig(64);
      const amount = s.loadCoins();
      const destination = s.loadAddress();
      const response = s.loadAddress();
      const custom = s.loadMaybeRef();
      const forwardTon = s.loadCoins();
      const inRef = s.loadBit();
      const payload = inRef ? s.loadRef() : s.asCell();
      const out = obj(bodyJson(t.in!.body.toBoc()));
      expect(out).toMatchObject({
        '@type': 'jetton_transfer',
        query_id: queryId.toString(),
        amount: varUint(amount),
        destination: stdAddress(destination),
        response_destination: stdAddress(response),
        custom_payload: custom ? { '@type': 'something_from_maybe', value: boc64(custom) } : { '@type': 'nothing_from_maybe' },
        forward_ton_amount: varUint(forwardTon),
      });
      const fwd = out.forward_payload as unknown as { '@type': string; value: unknown };
      expect(fwd['@type']).toBe(inRef ? 'second_from_either' : 'first_from_either');
      // The payload cell is decoded in place when it is a body itself; else it stays its BoC.
      expect(fwd.value).toEqual(payload.bits.length === 0 && payload.refs.length === 0 ? { empty_cell: '' } : typeof fwd.value === 'string' ? boc64(payload) : bodyJson(payload.toBoc()));
      expect(Object.keys(out)).toEqual(['@type', 'query_id', 'amount', 'destination', 'response_destination', 'custom_payload', 'forward_ton_amount', 'forward_payload']);
    }
  });

  it('decodes a nested payload in place: the bid info of a minted Telegram item', () => {
    const [t] = withInbound(0x299a3e15);
    const assigned = t.out.find((m) => opcodeOf(m.body) === 0x05138d91)!;
    const s = assigned.body.beginParse().skip(32 + 64 + 2);
    expect(s.loadBit()).toBe(false); // the payload is inline
    expect(s.loadUint(32)).toBe(0x38127de1);
    const bid = s.loadCoins();
    const bidTs = s.loadUint(32);
    expect(obj(bodyJson(assigned.body.toBoc())).forward_payload).toEqual({
      '@type': 'first_from_either',
      value: { '@type': 'teleitem_bid_info', bid: { '@type': 'nanograms', amount: varUint(bid) }, bid_ts: String(bidTs) },
    });
  });

  it('prints a text comment as its text, and a bounce as the BoC of what came back when that is no body', () => {
    const [comment] = withInbound(0);
    expect(bodyJson(comment.in!.body.toBoc())).toEqual({ '@type': 'text_comment', text: comment.in!.body.beginParse().skip(32).loadStringTail() });
    const [bounced] = withInbound(0xffffffff);
    const rest = bounced.in!.body.beginParse().skip(32).asCell();
    expect(bodyJson(bounced.in!.body.toBoc())).toEqual({ '@type': 'bounce', payload: boc64(rest) });
  });

  it('prints an encrypted comment\'s ciphertext as the BoC of the cell after the opcode, under an empty field name', () => {
    const cipher = Buffer.alloc(48, 0x5a);
    const body = beginCell().storeUint(0x2167da4b, 32).storeBuffer(cipher).endCell();
    expect(bodyJson(body.toBoc())).toEqual({ '@type': 'encrypted_text_comment', cipher_text: { '': boc64(beginCell().storeBuffer(cipher).endCell()) } });
  });

  it('prints bits as upper-case hex and 64-bit signed ints as signed decimals (teleitem messages)', () => {
    const [t] = withInbound(0x299a3e15);
    const deploy = obj(bodyJson(t.in!.body.toBoc()));
    const info = t.in!.body.refs[0].beginParse();
    const nameLen = info.loadUint(8);
    expect(deploy.token_info).toMatchObject({ '@type': 'telemint_token_info', name: { '@type': 'telemint_text', len: String(nameLen), text: info.loadBuffer(nameLen).toString('hex').toUpperCase() } });
    const cancel = fixtureTransactions().flatMap((x) => x.out).find((m) => opcodeOf(m.body) === 0x371638ae);
    if (cancel) expect(obj(bodyJson(cancel.body.toBoc())).query_id).toBe(cancel.body.beginParse().skip(32).loadIntBig(64).toString());
  });
});

describe('bodyJson() errors, as toncenter words them', () => {
  it('reads hex and base64 BoCs alike', () => {
    const [t] = withInbound(0x0f8a7ea5);
    const bytes = t.in!.body.toBoc();
    expect(bodyJsonFromText(bytes.toString('hex'))).toEqual(bodyJson(bytes));
    expect(bodyJsonFromText(bytes.toString('hex').toUpperCase())).toEqual(bodyJson(bytes));
    expect(bodyJsonFromText(bytes.toString('base64'))).toEqual(bodyJson(bytes));
  });

  it('reports text that is neither, bytes that are no BoC, and BoCs with two roots', () => {
    expect(bodyJsonFromText('not a boc!')).toEqual({ error: 'unknown: failed to decode base64' });
    expect(bodyJsonFromText('aGVsbG8gd29ybGQ=')).toEqual({ error: 'unknown: failed to deserialize boc' });
    expect(bodyJsonFromText('')).toEqual({ error: 'unknown: failed to deserialize boc' });
    const twoRoots = twoRootBoc([beginCell().storeUint(0xd53276db, 32).storeUint(1, 64).endCell(), beginCell().endCell()]);
    expect(Cell.fromBoc(twoRoots)).toHaveLength(2);
    expect(bodyJson(twoRoots)).toEqual({ error: 'unknown: failed to deserialize boc' });
  });

  it('answers an empty cell, short bodies, unknown opcodes and bodies that fit no layout', () => {
    expect(bodyJson(beginCell().endCell().toBoc())).toEqual({ empty_cell: '' });
    expect(bodyJson(beginCell().storeUint(1, 8).endCell().toBoc())).toEqual({ error: 'unknown: boc is too small, size=8' });
    expect(bodyJson(beginCell().storeRef(beginCell().endCell()).endCell().toBoc())).toEqual({ error: 'unknown: boc is too small, size=0' });
    expect(bodyJson(beginCell().storeUint(0x12345678, 32).endCell().toBoc())).toEqual({ error: 'unknown: no parser succeeded' });
    expect(bodyJson(beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 64).endCell().toBoc())).toEqual({ error: 'unknown: no parser succeeded' });
  });

  it('refuses BoCs over the size limit, and known bodies of more cells than a message may have', () => {
    expect(bodyJson(new Uint8Array(MAX_BODY_BOC_BYTES + 1))).toEqual({ error: 'unknown: encoded boc size limit exceeded' });
    // A jetton transfer whose custom payload is a tree of MAX_BODY_CELLS distinct cells.
    let level = Array.from({ length: MAX_BODY_CELLS }, (_, i) => beginCell().storeUint(i, 32).endCell());
    while (level.length > 1) {
      const up: Cell[] = [];
      for (let i = 0; i < level.length; i += 4) {
        const node = beginCell();
        for (const c of level.slice(i, i + 4)) node.storeRef(c);
        up.push(node.endCell());
      }
      level = up;
    }
    const body = beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 64).storeCoins(1).storeAddress(null).storeAddress(null).storeMaybeRef(level[0]).storeCoins(0).storeBit(false).endCell();
    expect(bodyJson(body.toBoc())).toEqual({ error: 'unknown: decode limit - boc cell expansion limit exceeded' });
    // The same cells behind an unknown opcode are not loaded at all: that answer costs nothing.
    const unknownOp = beginCell().storeUint(0x12345678, 32).storeRef(level[0]).endCell();
    expect(bodyJson(unknownOp.toBoc())).toEqual({ error: 'unknown: no parser succeeded' });
  });

  it('stops decoding bodies that share a budget once they have loaded that many cells', () => {
    const small = beginCell().storeUint(0xd53276db, 32).storeUint(9, 64).endCell().toBoc();
    const garbage = beginCell().storeUint(0x12345678, 32).endCell().toBoc();
    const budget = decodeBudget(3);
    expect([small, garbage, small, garbage, small, small].map((b) => bodyJson(b, budget))).toEqual([
      { '@type': 'excess', query_id: '9' },
      { error: 'unknown: no parser succeeded' },
      { '@type': 'excess', query_id: '9' },
      { error: 'unknown: no parser succeeded' },
      { '@type': 'excess', query_id: '9' },
      { error: 'unknown: decode limit - request cell budget exceeded' },
    ]);
  });

  it('stops nested payloads that expand past the cell budget', () => {
    // A highload v3 request whose messages carry, as bodies, one shared wallet v5 extension request
    // with 1000 extended actions: a few KB of BoC that would print over 5000 cells.
    const dest = Address.parse(`0:${'11'.repeat(32)}`);
    let actions = beginCell().storeUint(0x02, 8).storeAddress(dest).endCell();
    for (let i = 1; i < 1000; i++) actions = beginCell().storeUint(0x02, 8).storeAddress(dest).storeRef(actions).endCell();
    const inner = beginCell().storeUint(0x6578746e, 32).storeUint(5, 64).storeBit(false).storeBit(true).storeSlice(actions.beginParse()).endCell();
    const message = (body: Cell) =>
      beginCell()
        .store(storeMessageRelaxed({ info: { type: 'internal', ihrDisabled: true, bounce: false, bounced: false, dest, value: { coins: 1n }, ihrFee: 0n, forwardFee: 0n, createdLt: 0n, createdAt: 0 }, body }))
        .endCell();
    let list = beginCell().endCell();
    for (let i = 0; i < 5; i++) list = beginCell().storeRef(list).storeUint(0x0ec3c86d, 32).storeUint(3, 8).storeRef(message(inner)).endCell();
    const bomb = beginCell().storeUint(0xae42e5a4, 32).storeUint(7, 64).storeRef(list).endCell();
    expect(bomb.toBoc().length).toBeLessThan(64 * 1024);
    expect(bodyJson(bomb.toBoc())).toEqual({ error: 'unknown: decode limit - boc cell expansion limit exceeded' });
    // One of them is within the budget.
    const one = obj(bodyJson(inner.toBoc()));
    expect(one).toMatchObject({ '@type': 'w5_extension_action_request', query_id: '5', request: { '@type': 'w5_actions_request', out_actions: { '@type': 'nothing_from_maybe' } } });
    expect(JSON.stringify(one).match(/"add_extension"/g)).toHaveLength(1000);
  });
});

/** A BoC with two root cells (standard layout, no index, no CRC), written by hand: @ton/core serializes one root. */
function twoRootBoc(roots: Cell[]): Buffer {
  const cells = roots.map((c) => {
    const bits = c.bits.length;
    const data = Buffer.alloc(Math.ceil(bits / 8));
    c.beginParse().loadBits(bits).subbuffer(0, bits - (bits % 8))?.copy(data);
    return Buffer.concat([Buffer.from([0, Math.ceil(bits / 8) + Math.floor(bits / 8)]), data]);
  });
  const body = Buffer.concat(cells);
  return Buffer.concat([Buffer.from([0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 2, 2, 0, body.length, 0, 1]), body]);
}
