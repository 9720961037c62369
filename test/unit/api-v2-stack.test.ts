import { createRequire } from 'node:module';
import { Address, beginCell, Cell, external, storeMessage, type TupleItem, TupleReader } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { type Liteserver, liteError, LiteClientError } from '../../services/api/src/chain/liteserver.js';
import { errorEnvelope, okEnvelope } from '../../services/api/src/v2/envelope.js';
import { ChainError } from '../../services/api/src/chain/chain-error.js';
import { getMethodId, runGetMethod } from '../../services/api/src/chain/get-method.js';
import * as kinds from '../../services/api/src/v2/kinds.js';
import { bodyValues, parseValues } from '../../services/api/src/v2/method.js';
import { normalizedHash, sendExternal } from '../../services/api/src/chain/send.js';
import { readStack, v2StackEntry, v3StackEntry } from '../../services/api/src/chain/stack.js';
import { optional, required } from '../../services/api/src/http/params.js';

// Oracles: @ton/core (tuples, cells, addresses) and tonweb's own parser of toncenter's stack format.
type BN = { toString(base?: number): string };
const HttpProviderUtils = (createRequire(import.meta.url)('tonweb/src/providers/HttpProviderUtils.js') as { default: { parseResponse(r: unknown): unknown } }).default;
const tonwebParse = (stack: unknown[]) => HttpProviderUtils.parseResponse({ exit_code: 0, stack });

const cell = beginCell().storeUint(0xdeadbeef, 32).storeRef(beginCell().storeUint(7, 3).endCell()).endCell();
const b64 = cell.toBoc().toString('base64');

/** The stack readers are chain's (shared by v2 and v3): they throw its ChainError, mapped to the same status by both. */
function chainError(f: () => unknown): ChainError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ChainError);
    return err as ChainError;
  }
  throw new Error('expected a ChainError');
}

describe('readStack() reads toncenter stack entries', () => {
  it('reads every num form as the same integer', () => {
    const forms = [['num', '4660'], ['num', '0x1234'], ['int', 4660], ['number', '0x1234'], ['integer', '4660']];
    for (const f of forms) expect(readStack([f])).toEqual([{ type: 'int', value: 4660n }]);
    expect(readStack([['num', '-0x10']])).toEqual([{ type: 'int', value: -16n }]);
    expect(readStack([['num', (2n ** 256n - 1n).toString()]])[0]).toEqual({ type: 'int', value: 2n ** 256n - 1n });
  });

  it('reads cells, slices and builders from base64 and from {bytes}', () => {
    const [c, s, b, legacy] = readStack([['tvm.Cell', b64], ['tvm.Slice', b64], ['tvm.Builder', b64], ['slice', { bytes: b64 }]]) as { type: string; cell: Cell }[];
    expect([c.type, s.type, b.type, legacy.type]).toEqual(['cell', 'slice', 'builder', 'slice']);
    for (const x of [c, s, b, legacy]) expect(x.cell.equals(cell)).toBe(true);
  });

  it('reads tuples of tvm.stackEntry objects and lists as nested pairs', () => {
    const num = (n: number) => ({ '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: String(n) } });
    const [tuple] = readStack([['tuple', { '@type': 'tvm.tuple', elements: [num(1), { '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: b64 } }] }]]) as { type: 'tuple'; items: TupleItem[] }[];
    expect(tuple.items[0]).toEqual({ type: 'int', value: 1n });
    expect(tuple.type).toBe('tuple');
    const [list] = readStack([['tvm.List', { elements: [num(1), num(2)] }]]);
    expect(list).toEqual({ type: 'tuple', items: [{ type: 'int', value: 1n }, { type: 'tuple', items: [{ type: 'int', value: 2n }, { type: 'null' }] }] });
  });

  it('refuses bad entries with 422 naming the stack', () => {
    for (const bad of [[['num']], [['num', 'x1']], [['tvm.Cell', '']], [['tvm.Cell', 'AAAA']], [['unknown', 1]], [['tuple', {}]], 'x', [['num', (2n ** 256n).toString()]]]) {
      const err = chainError(() => readStack(bad));
      expect(err.status).toBe(422);
      expect(err.message).toMatch(/"stack"/);
    }
  });
});

describe('v2StackEntry() writes what tonweb reads back', () => {
  it('numbers as hex, cells and slices as cells, tuples as tvm.tuple', () => {
    const items: TupleItem[] = [
      { type: 'int', value: 255n },
      { type: 'int', value: -255n },
      { type: 'cell', cell },
      { type: 'slice', cell },
      { type: 'tuple', items: [{ type: 'int', value: 3n }, { type: 'cell', cell }] },
    ];
    const out = items.map(v2StackEntry);
    expect(out[0]).toEqual(['num', '0xff']);
    expect(out[1]).toEqual(['num', '-0xff']);
    expect(out[3][0]).toBe('cell');
    const parsed = tonwebParse(out) as [BN, BN, { hash(): Promise<Uint8Array> }, unknown, [BN, unknown]];
    expect(parsed[0].toString(10)).toBe('255');
    expect(parsed[1].toString(10)).toBe('-255');
    expect(parsed[4][0].toString(10)).toBe('3');
    expect(Cell.fromBase64((out[2][1] as { bytes: string }).bytes).equals(cell)).toBe(true);
    // tonlib's cell description: the first cell's bits and its refs.
    expect((out[2][1] as { object: unknown }).object).toEqual({ data: { b64: Buffer.from('deadbeef', 'hex').toString('base64'), len: 32 }, refs: [{ data: { b64: Buffer.from([0b11100000]).toString('base64'), len: 3 }, refs: [], special: false }], special: false });
  });

  it('null is an empty tvm.list (TonClient reads it as null)', () => {
    expect(v2StackEntry({ type: 'null' })).toEqual(['list', { '@type': 'tvm.list', elements: [] }]);
  });

  it('round-trips through @ton/core: readStack(v2 output) gives the same items', () => {
    const items: TupleItem[] = [{ type: 'int', value: 42n }, { type: 'cell', cell }];
    const back = readStack(items.map(v2StackEntry).map(([t, v]) => (t === 'cell' ? ['tvm.Cell', (v as { bytes: string }).bytes] : [t, v])));
    const reader = new TupleReader(back);
    expect(reader.readBigNumber()).toBe(42n);
    expect(reader.readCell().equals(cell)).toBe(true);
  });

  it('v3 legacy entries are {type, value}', () => {
    expect(v3StackEntry({ type: 'int', value: -1n })).toEqual({ type: 'num', value: '-0x1' });
    expect(v3StackEntry({ type: 'slice', cell })).toEqual({ type: 'slice', value: b64 });
    expect(v3StackEntry({ type: 'tuple', items: [{ type: 'null' }] })).toEqual({ type: 'tuple', value: [{ type: 'list', value: [] }] });
  });
});

describe('getMethodId()', () => {
  it('is crc16(name) | 0x10000, as the published ids of standard get-methods', () => {
    // Ids as FunC prints them for these well-known methods.
    expect(getMethodId('seqno')).toBe(85143n);
    expect(getMethodId('get_public_key')).toBe(78748n);
    expect(getMethodId('get_jetton_data')).toBe(106029n);
    expect(getMethodId(123n)).toBe(123n);
  });
});

describe('normalizedHash()', () => {
  it('is the hash of the TEP-467 form: src addr_none, import_fee 0, no init, body in a ref', () => {
    const dest = new Address(0, Buffer.alloc(32, 9));
    const body = beginCell().storeUint(1, 8).endCell();
    const sent = external({ to: dest, body, init: { code: body, data: body } });
    const norm = beginCell().storeUint(0b10, 2).storeUint(0, 2).storeAddress(dest).storeCoins(0).storeBit(0).storeBit(1).storeRef(body).endCell();
    expect(normalizedHash(sent).equals(norm.hash())).toBe(true);
    expect(normalizedHash(sent).equals(beginCell().store(storeMessage(sent)).endCell().hash())).toBe(false);
  });
});

describe('v2 parameter kinds and bodies', () => {
  it('shard: signed decimal int64 only, kept unsigned', () => {
    expect(kinds.shard.parse('-9223372036854775808')).toBe(2n ** 63n);
    expect(kinds.shard.parse('6917529027641081856')).toBe(6917529027641081856n);
    expect(kinds.shard.parse('8000000000000000')).toBe(8000000000000000n);
    expect(kinds.shard.parse('9223372036854775808')).toBeUndefined();
    expect(kinds.shard.parse('0x8000000000000000')).toBeUndefined();
  });

  it('address keeps the form given, with the flags @ton/core reads', () => {
    const a = new Address(-1, Buffer.alloc(32, 0xab));
    for (const [text, given] of [[a.toRawString(), 'raw_form'], [a.toString(), 'friendly_bounceable'], [a.toString({ bounceable: false, urlSafe: false }), 'friendly_non_bounceable']] as const) {
      const v = kinds.address.parse(text)!;
      expect(v.givenType).toBe(given);
      expect(v.raw).toBe(`-1:${'AB'.repeat(32)}`);
    }
    expect(kinds.address.parse(a.toString({ testOnly: true }))!.testOnly).toBe(Address.parseFriendly(a.toString({ testOnly: true })).isTestOnly);
  });

  it('address and workchain: only the chain\'s workchains -1 and 0; anyAddress (utils) any int8 workchain', () => {
    const hash = 'ab'.repeat(32);
    for (const wc of [-1, 0]) {
      expect(kinds.address.parse(`${wc}:${hash}`)?.workchain).toBe(wc);
      expect(kinds.workchain.parse(String(wc))).toBe(wc);
    }
    for (const wc of [5, -2, 127, -128]) {
      expect(kinds.address.parse(`${wc}:${hash}`)).toBeUndefined();
      expect(kinds.address.parse(new Address(wc, Buffer.from(hash, 'hex')).toString())).toBeUndefined();
      expect(kinds.workchain.parse(String(wc))).toBeUndefined();
      expect(kinds.anyAddress.parse(`${wc}:${hash}`)?.workchain).toBe(wc);
    }
    expect(kinds.address.accepts).toMatch(/in workchain -1 \(masterchain\) or 0 \(basechain\)/);
  });

  it('bool takes toncenter v2 forms, any case', () => {
    for (const t of ['y', 'YES', 't', 'True', 'on', '1']) expect(kinds.bool.parse(t)).toBe(true);
    for (const f of ['n', 'No', 'f', 'FALSE', 'off', '0']) expect(kinds.bool.parse(f)).toBe(false);
    expect(kinds.bool.parse('maybe')).toBeUndefined();
  });

  it('JSON bodies: numbers and strings alike, null and "" absent, arrays for lists, objects refused', () => {
    const params = { seqno: optional(kinds.seqno, ''), lt: optional(kinds.uint64, ''), address: required(kinds.address, '') };
    const values = bodyValues(params, { seqno: 5, lt: '12', address: '0:' + '1'.repeat(64), extra: 1, init_code: '' });
    expect(parseValues(params, values)).toMatchObject({ seqno: 5, lt: 12n, address: { raw: `0:${'1'.repeat(64)}` } });
    expect(parseValues({ seqno: optional(kinds.seqno, '') }, bodyValues({ seqno: optional(kinds.seqno, '') }, { seqno: null }))).toEqual({ seqno: undefined });
    expect(() => bodyValues(params, ['x'])).toThrow(/params must contain an object/);
    expect(bodyValues(params, [])).toEqual(new Map());
  });
});

describe('envelope and liteserver failures', () => {
  it('ok and error envelopes carry @extra as <unix s>:_:<ms>', () => {
    const started = Date.now() - 12;
    expect(okEnvelope({ a: 1 }, started)).toMatchObject({ ok: true, result: { a: 1 } });
    const e = errorEnvelope(422, 'bad', started);
    expect(e).toMatchObject({ ok: false, error: 'bad', code: 422 });
    expect(e['@extra']).toMatch(/^\d{10}:_:\d+\.\d{3}$/);
  });

  it("maps ton-lite-client's messages to statuses: not kept 404, not implemented 501, timeout 504, closed 503, else 500", () => {
    expect(liteError(new Error('block not found: (0,8000000000000000,5)'), 'x').status).toBe(404);
    expect(liteError(new Error('transaction 0:ab lt 5 hash 00 is not kept'), 'x').status).toBe(404);
    expect(liteError(new Error('cannot compute block with specified transaction: lt not in db'), 'x').status).toBe(404);
    expect(liteError(new Error('liteServer.getState is not implemented by this liteserver'), 'x').status).toBe(501);
    // A function the liteserver predates: upstream's TL parser refuses its constructor.
    expect(liteError(new Error('Unknown constructor found 0x7bc19c36'), 'getOutMsgQueueSizes')).toMatchObject({ status: 501, message: expect.stringMatching(/^LITE_SERVER_NOTIMPLEMENTED: getOutMsgQueueSizes is not supported/) });
    expect(liteError(new Error('Timeout'), 'x').status).toBe(504);
    expect(liteError(new Error('Engine is closed'), 'x').status).toBe(503);
    const other = liteError(new Error('cannot apply external message'), 'sendMessage');
    expect(other.status).toBe(500);
    expect(other.message).toBe('LITE_SERVER_UNKNOWN: cannot apply external message');
  });
});

describe('sendExternal() answers a message the node refuses as the caller\'s mistake', () => {
  const boc = beginCell().store(storeMessage(external({ to: Address.parseRaw(`0:${'11'.repeat(32)}`), body: beginCell().storeUint(7, 32).endCell() }))).endCell();
  const liteserverThrowing = (err: Error) => ({ sendMessage: () => Promise.reject(err) }) as unknown as Liteserver;

  it('400 with the node\'s words for a rejection (toncenter: 500), the liteserver\'s own status when it is unreachable or slow', async () => {
    const rejected = liteError(new Error('cannot apply external message to current state : External message was not accepted'), 'sendMessage');
    await expect(sendExternal(liteserverThrowing(rejected), boc)).rejects.toMatchObject({ name: 'ChainError', status: 400, message: 'LITE_SERVER_UNKNOWN: cannot apply external message to current state : External message was not accepted' });
    for (const status of [503, 504]) {
      await expect(sendExternal(liteserverThrowing(new LiteClientError(status, 'down')), boc)).rejects.toMatchObject({ name: 'LiteClientError', status });
    }
    await expect(sendExternal({ sendMessage: () => Promise.resolve(1) } as unknown as Liteserver, boc)).resolves.toMatchObject({ info: { type: 'external-in' } });
  });
});

describe('hostile stacks and results are bounded (issue 23)', () => {
  /** A DAG of `depth` cells, each pointing `fanout` times to the next: fanout^depth nodes to a walk without a memo. */
  const dag = (depth: number, fanout = 2) => {
    let c = beginCell().storeUint(0xdead, 16).endCell();
    for (let i = 0; i < depth; i++) {
      const b = beginCell().storeUint(i, 16);
      for (let k = 0; k < fanout; k++) b.storeRef(c);
      c = b.endCell();
    }
    return c;
  };
  const cellEntry = (c: Cell) => ['tvm.Cell', c.toBoc().toString('base64')];
  const num = (n: number) => ({ '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: String(n) } });
  const stackError = (stack: unknown) => {
    const err = chainError(() => readStack(stack));
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/parameter "stack"/);
    return err.message;
  };

  it('a tuple takes at most 255 elements, as TVM (a longer one used to reach @ton/core\'s 16-bit length and fail as a 500)', () => {
    expect((readStack([['tuple', { elements: Array(255).fill(num(1)) }]])[0] as { items: unknown[] }).items).toHaveLength(255);
    expect(stackError([['tuple', { elements: Array(70_000).fill(num(1)) }]])).toMatch(/at \[0\]: a tuple of 70000 elements; TVM tuples hold at most 255/);
  });

  it('nesting is bounded as the TVM value nests: tuples in tuples, and list elements one level deeper each', () => {
    let deep: unknown = num(1);
    for (let i = 0; i < 300; i++) deep = { '@type': 'tvm.stackEntryTuple', tuple: { elements: [deep] } };
    expect(stackError([['tuple', { elements: [deep] }]])).toMatch(/nested deeper than 256/);
    expect(stackError([['list', { elements: Array(300).fill(num(1)) }]])).toMatch(/nested deeper than 256/);
    expect(readStack([['list', { elements: Array(200).fill(num(1)) }]])).toHaveLength(1);
  });

  it('a stack holds at most 1024 entries, nested ones included', () => {
    expect(stackError(Array(1025).fill(['num', 1]))).toMatch(/at \[1024\]: more than 1024 entries/);
    expect(stackError(Array(5).fill(['tuple', { elements: Array(250).fill(num(1)) }]))).toMatch(/more than 1024 entries/);
  });

  it('the cells of all BoCs of a stack together are at most a message\'s 8192; a 40-level DAG is 41 cells and passes', () => {
    const chain = (n: number) => {
      let c = beginCell().storeUint(n, 32).endCell();
      for (let i = 0; i < n; i++) c = beginCell().storeUint(i, 32).storeRef(c).endCell();
      return c;
    };
    const big = chain(3000);
    expect(readStack([cellEntry(big), cellEntry(big)])).toHaveLength(2);
    expect(stackError([cellEntry(big), cellEntry(big), cellEntry(big)])).toMatch(/at \[2\]: .*3001 cells, over the 2190 left of the 8192 a request reads/);
    expect(stackError([cellEntry(chain(9000))])).toMatch(/9001 cells, over the 8192 read/);
    expect((readStack([cellEntry(dag(40))])[0] as { cell: Cell }).cell.equals(dag(40))).toBe(true);
  });

  /** A liteserver whose get-methods answer `result` (a VmStack cell). */
  const answering = (result: Cell) =>
    ({
      masterchainInfo: () => Promise.resolve({ last: { workchain: -1, shard: '-9223372036854775808', seqno: 1, rootHash: Buffer.alloc(32), fileHash: Buffer.alloc(32) } }),
      runMethod: () => Promise.resolve({ exitCode: 0, result: result.toBoc() }),
    }) as unknown as Liteserver;
  const account = { workchain: 0, hash: Buffer.alloc(32, 1) };
  /** A VmStack of one value (vm_stack depth:24, then vm_stk_cons: ^rest, the value inline). */
  const stackOf = (value: Cell) => beginCell().storeUint(1, 24).storeRef(Cell.EMPTY).storeSlice(value.beginParse()).endCell();
  /** vm_stk_tuple of two items (head and tail refs, each an item cell). */
  const pair = (a: Cell, b: Cell) => beginCell().storeUint(7, 8).storeUint(2, 16).storeRef(a).storeRef(b).endCell();

  it('a result whose tuples share cells is refused with 422 before @ton/core\'s parseTuple unfolds it', async () => {
    const shared = (depth: number) => {
      let value = beginCell().storeUint(1, 8).storeInt(1, 64).endCell();
      for (let i = 0; i < depth; i++) value = pair(value, value);
      return value;
    };
    // 2^13 - 1 tuples and numbers, and the stack's two cells: within 16384.
    const [fine] = (await runGetMethod(answering(stackOf(shared(12))), account, 'x', [])).stack;
    expect(new TupleReader([fine]).readTuple().readTuple().remaining).toBe(2);
    const value = shared(18);
    await expect(runGetMethod(answering(stackOf(value)), account, 'x', [])).rejects.toMatchObject({ name: 'ChainError', status: 422, message: expect.stringMatching(/result stack is too large to answer: .*unfold into over 16384/) });
  });

  it('a result cell that unfolds into more than 16384 cells is refused with 422 (its `object` would be a tree of 2^18)', async () => {
    const cellValue = (c: Cell) => beginCell().storeUint(3, 8).storeRef(c).endCell();
    const fine = await runGetMethod(answering(stackOf(cellValue(dag(12)))), account, 'x', []);
    expect(v2StackEntry(fine.stack[0])[0]).toBe('cell');
    await expect(runGetMethod(answering(stackOf(cellValue(dag(18)))), account, 'x', [])).rejects.toMatchObject({ status: 422 });
    await expect(runGetMethod(answering(stackOf(cellValue(dag(9, 4)))), account, 'x', [])).rejects.toMatchObject({ status: 422 });
  });

  it('the object of a result cell carries its bits, whole bytes and the tail, at any bit offset', () => {
    const bitsOf = (data: { b64: string; len: number }) => Array.from({ length: data.len }, (_, i) => (Buffer.from(data.b64, 'base64')[i >> 3] >> (7 - (i & 7))) & 1);
    const source = beginCell().storeUint(0xdeadbeefcafe, 48).storeUint(5, 3).endCell();
    // A cell whose bits start 3 bits into their buffer (a substring, not a copy).
    const shifted = new Cell({ bits: source.bits.substring(3, 45) });
    expect(shifted.bits.subbuffer(0, 40)).toBeNull();
    for (const c of [source, shifted, beginCell().storeUint(1, 1).endCell(), Cell.EMPTY]) {
      const [, value] = v2StackEntry({ type: 'cell', cell: beginCell().storeRef(c).endCell() }) as [string, { object: { refs: { data: { b64: string; len: number } }[] } }];
      expect(bitsOf(value.object.refs[0].data)).toEqual(Array.from({ length: c.bits.length }, (_, i) => Number(c.bits.at(i))));
    }
  });

  it('a stack over the 64 KB a liteserver takes is refused before it is sent', async () => {
    const full = (i: number) => beginCell().storeUint(i, 16).storeBuffer(Buffer.alloc(125, i)).endCell();
    const stack = Array.from({ length: 600 }, (_, i) => ['tvm.Cell', full(i).toBoc().toString('base64')]);
    await expect(runGetMethod(answering(stackOf(beginCell().storeUint(0, 8).endCell())), account, 'x', readStack(stack))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/liteservers take less than 65536/) });
  });
});
