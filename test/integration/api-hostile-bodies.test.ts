import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Address, beginCell, Cell, contractAddress, external, internal, loadMessage, loadTransaction, parseTuple, SendMode, serializeTuple, storeCommonMessageInfo, storeMessage, toNano } from '@ton/core';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { writeBoc } from '@tonstream/block';
import { readGlobalConfig } from '@tonstream/liteserver-emulator';
import { createStore } from '@tonstream/store';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V2_METHODS } from '../../services/api/src/v2/index.js';
import { V3_ENDPOINTS } from '../../services/api/src/v3/index.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

/**
 * Hostile POST bodies (issue 23): cell DAGs that unfold into 2^40 nodes, BoCs of 150,000 cells, stacks
 * TVM cannot hold, 10 MB and gzip-bomb bodies, JSON nested a million deep. The API runs as its own
 * process over the local network's liteserver, so a request that holds its event loop shows as this
 * client's timeout, not as a hung test. Every answer must be a 4xx (or the 200 a harmless request
 * earns) and the server must go on serving. Oracles: the chain (the liteserver, the transaction the
 * chain makes for a sent message) and @ton/core.
 */
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
/**
 * Per request. A walk of 2^40 nodes never answers, so this only needs to be well above what an honest
 * answer takes on a busy machine (each answer's time is logged at the end; on a quiet one all are
 * well under a second).
 */
const CLIENT_TIMEOUT_MS = 10_000;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-hostile-${run}-`));
const database = `tonstream_hostile_${run}`;
const procs: ServiceProcess[] = [];
let base = '';
let engine: LiteSingleEngine;
let lite: LiteClient;

type Answer = { status: number; body: Record<string, unknown> };
/** Every answer, to check at the end that none was a 5xx. */
const seen: { request: string; status: number; ms: number }[] = [];

async function send(path: string, init: RequestInit & { label?: string; timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? CLIENT_TIMEOUT_MS) });
  const text = await res.text();
  const ms = Math.round(performance.now() - started);
  seen.push({ request: `${init.method ?? 'GET'} ${path} ${init.label ?? ''}`, status: res.status, ms });
  let body: Record<string, unknown> = { text };
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Kept as text for the report.
  }
  return { status: res.status, body };
}

const post = (path: string, body: unknown, label?: string) =>
  send(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, label });

/** The error text of a v2 envelope or a v3 answer. */
const errorOf = (a: Answer) => String(a.body.error ?? '');

function expectRefused(a: Answer, status: number, pattern: RegExp): void {
  expect(a.status, JSON.stringify(a.body).slice(0, 300)).toBe(status);
  expect(errorOf(a)).toMatch(pattern);
}

const b64 = (c: Cell) => c.toBoc().toString('base64');

/** `depth` cells each pointing `fanout` times to the next: fanout^depth nodes to any walk without a memo. */
function dag(depth: number, fanout = 2): Cell {
  let c = beginCell().storeUint(0xdead, 16).endCell();
  for (let i = 0; i < depth; i++) {
    const b = beginCell().storeUint(i, 16);
    for (let k = 0; k < fanout; k++) b.storeRef(c);
    c = b.endCell();
  }
  return c;
}

/** A BoC of `count` distinct small cells (a 4-ary tree), written without hashing: ~7 bytes a cell; the root starts with `opcode`. */
function manyCells(count: number, opcode?: number): Buffer {
  const cells = Array.from({ length: count }, (_, i) => {
    const refs = [1, 2, 3, 4].map((k) => 4 * i + k).filter((r) => r < count);
    const data = Buffer.from([...(i === 0 && opcode !== undefined ? [opcode >>> 24, (opcode >> 16) & 0xff, (opcode >> 8) & 0xff, opcode & 0xff] : []), i >> 16, (i >> 8) & 0xff, i & 0xff]);
    return { data, bits: data.length * 8, refs, special: 0, levelMask: 0 };
  });
  return Buffer.from(writeBoc(cells));
}

// The contract deployed for the suite: its code is DROP, so a get-method call leaves its arguments
// (the method id dropped) and any cell sent comes back as the result, as get_nft_content does.
const ECHO = { code: beginCell().storeUint(0x30, 8).endCell(), data: beginCell().endCell() };
const echo = contractAddress(0, ECHO);

/** The prefunded v4 wallet of the local network with its key, and its seqno on the chain. */
async function wallet() {
  const entry = (JSON.parse(readFileSync(join(dir, 'localnet', 'wallets.json'), 'utf8')) as { mnemonic: string; version: string }[]).find((w) => w.version === 'v4r2')!;
  const keys = await mnemonicToPrivateKey(entry.mnemonic.split(' '));
  const contract = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  const last = (await lite.getMasterchainInfo()).last;
  const res = await lite.runMethod(contract.address, 'seqno', serializeTuple([]).toBoc(), last);
  const top = parseTuple(Cell.fromBase64(res.result!))[0];
  return { keys, contract, seqno: top?.type === 'int' ? Number(top.value) : 0 };
}

async function isActive(address: Address): Promise<boolean> {
  const state = await lite.getAccountState(address, (await lite.getMasterchainInfo()).last);
  return state.state?.storage.state.type === 'active';
}

beforeAll(async () => {
  const stateDir = join(dir, 'localnet');
  const globalConfig = join(stateDir, 'global.config.json');
  const start = async (name: string, env: Record<string, string>, args: string[] = []) => {
    const p = startService(name, { CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: `hostile${run}.`, LOG_LEVEL: 'warn', METRICS_PORT: String(await freePort()), ...env }, join(dir, 'logs'), args);
    procs.push(p);
    return p;
  };
  const localnet = await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: stateDir, LOCALNET_ROUND_MS: '400', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `hostile-${run}`, LOG_LEVEL: 'info' }, ['--reset']);
  await localnet.waitFor(/localnet serving/);
  const apiPort = await freePort();
  await start('api', { API_PORT: String(apiPort), API_GLOBAL_CONFIG: globalConfig });
  base = `http://127.0.0.1:${apiPort}`;
  const [ls] = readGlobalConfig(readFileSync(globalConfig, 'utf8'));
  engine = new LiteSingleEngine({ host: `tcp://${ls.host}:${ls.port}`, publicKey: ls.publicKey });
  lite = new LiteClient({ engine });
  const alive = () => {
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
  };
  await eventually('the API on the liteserver', async () => ((await fetch(`${base}/api/v2/getMasterchainInfo`).catch(() => undefined))?.ok ? true : undefined), 60_000, 200, alive);

  // Deploy the echo contract from a prefunded wallet, through the API's sendBoc.
  const w = await wallet();
  const transfer = w.contract.createTransfer({ seqno: w.seqno, secretKey: w.keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: echo, value: toNano('1'), bounce: false, init: ECHO })] });
  const deploy = beginCell().store(storeMessage(external({ to: w.contract.address, body: transfer }))).endCell();
  expect((await post('/api/v2/sendBoc', { boc: b64(deploy) })).status).toBe(200);
  await eventually('the echo contract active on the chain', async () => ((await isActive(echo)) ? true : undefined), 60_000, 300, alive);
  // The first estimateFee loads the TON emulator (WASM, seconds): not what this suite times.
  const warm = await send('/api/v2/estimateFee', { method: 'POST', body: JSON.stringify({ address: echo.toRawString(), body: b64(beginCell().endCell()) }), headers: { 'Content-Type': 'application/json' }, timeoutMs: 60_000, label: 'warm-up' });
  expect(warm.status, JSON.stringify(warm.body)).toBeLessThan(500);
}, 180_000);

afterAll(async () => {
  engine?.close();
  await Promise.all(procs.map((p) => p.stop()));
  const store = createStore({ url: CLICKHOUSE_URL, database });
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
});

describe('get-method results that unfold into 2^40 cells', () => {
  it('the echo contract answers a small cell whole: bytes and the object tree (so the 4xx below is about size)', async () => {
    const small = dag(3);
    const r = await post('/api/v2/runGetMethod', { address: echo.toRawString(), method: 'anything', stack: [['tvm.Cell', b64(small)]] });
    expect(r.status).toBe(200);
    const [[type, value]] = (r.body.result as { stack: [string, { bytes: string; object: { refs: unknown[] } }][] }).stack;
    expect(type).toBe('cell');
    expect(Cell.fromBase64(value.bytes).equals(small)).toBe(true);
    const leaves = (o: { refs: unknown[] }): number => (o.refs.length === 0 ? 1 : o.refs.map((x) => leaves(x as { refs: unknown[] })).reduce((a, b) => a + b));
    expect(leaves(value.object)).toBe(8);
  });

  it('runGetMethod (REST and jsonRPC), runGetMethodStd and v3 /runGetMethod answer a 40-level DAG with 422 (its object tree was walked as 2^40 nodes)', async () => {
    const bomb = b64(dag(40));
    const v2 = { address: echo.toRawString(), method: 'anything', stack: [['tvm.Cell', bomb]] };
    expectRefused(await post('/api/v2/runGetMethod', v2), 422, /result stack is too large to answer: .*unfold into over 16384/);
    expectRefused(await post('/api/v2/jsonRPC', { id: 1, jsonrpc: '2.0', method: 'runGetMethod', params: v2 }), 422, /too large/);
    const std = { address: echo.toRawString(), method: 'anything', stack: [{ '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: b64(dag(40, 4)) } }] };
    expectRefused(await post('/api/v2/runGetMethodStd', std), 422, /too large/);
    expectRefused(await post('/api/v3/runGetMethod', { address: echo.toRawString(), method: 'anything', stack: [{ type: 'slice', value: bomb }] }), 422, /too large/);
  });
});

describe('estimateFee of a message carrying a 40-level DAG', () => {
  it('answers at once, with the import fee the chain then charges for it (each distinct cell counted once)', async () => {
    const w = await wallet();
    const dest = new Address(0, Buffer.alloc(32, 0x5a));
    const body = w.contract.createTransfer({ seqno: w.seqno, secretKey: w.keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: dest, value: toNano('0.1'), bounce: false, body: dag(40) })] });
    const est = await post('/api/v2/estimateFee', { address: w.contract.address.toString(), body: b64(body), ignore_chksig: false });
    expect(est.status, JSON.stringify(est.body).slice(0, 300)).toBe(200);
    const fees = (est.body.result as { source_fees: { in_fwd_fee: number; gas_fee: number } }).source_fees;
    const v3 = await post('/api/v3/estimateFee', { address: w.contract.address.toString(), body: b64(body), ignore_chksig: false });
    expect(v3.status).toBe(200);

    const message = beginCell().store(storeMessage(external({ to: w.contract.address, body }))).endCell();
    expect((await post('/api/v2/sendBoc', { boc: b64(message) })).status).toBe(200);
    const tx = await eventually('the transaction of the sent message', async () => {
      const state = await lite.getAccountState(w.contract.address, (await lite.getMasterchainInfo()).last);
      if (!state.lastTx) return undefined;
      const list = await lite.getAccountTransactions(w.contract.address, state.lastTx.lt.toString(), Buffer.from(state.lastTx.hash.toString(16).padStart(64, '0'), 'hex'), 1);
      const found = Cell.fromBoc(list.transactions).map((c) => loadTransaction(c.beginParse())).find((t) => t.inMessage?.body.hash().equals(body.hash()));
      return found;
    }, 60_000, 300);
    const d = tx.description;
    if (d.type !== 'generic' || d.computePhase.type !== 'vm') throw new Error('expected an ordinary transaction');
    // total_fees = import fee + storage + gas + the action phase's fees.
    const importFee = tx.totalFees.coins - (d.storagePhase?.storageFeesCollected ?? 0n) - d.computePhase.gasFees - (d.actionPhase?.totalActionFees ?? 0n);
    expect(BigInt(fees.in_fwd_fee)).toBe(importFee);
    expect(BigInt(fees.gas_fee)).toBe(d.computePhase.gasFees);
  });
});

describe('a message whose StateInit holds a library dictionary of 2^40 entries in 41 cells', () => {
  /** HashmapE 256 of `forks` levels, each fork's two references the same child: 2^forks entries. */
  function libraries(forks: number): Cell {
    let node = beginCell().storeUint(0b10, 2).storeUint(256 - forks, 8).storeUint(0, 256 - forks).storeBit(1).storeRef(ECHO.code).endCell();
    for (let i = 0; i < forks; i++) node = beginCell().storeUint(0, 2).storeRef(node).storeRef(node).endCell();
    return node;
  }
  /** An external-in message with the StateInit inline or in a reference; no code or data, the library dictionary only. */
  function withLibraries(forks: number, inRef: boolean): Cell {
    const info = beginCell().store(storeCommonMessageInfo({ type: 'external-in', src: null, dest: new Address(0, Buffer.alloc(32, 0x3c)), importFee: 0n }));
    const init = beginCell().storeUint(0, 4).storeBit(1).storeRef(libraries(forks));
    return (inRef ? info.storeUint(0b11, 2).storeRef(init.endCell()) : info.storeUint(0b10, 2).storeBuilder(init)).storeBit(0).endCell();
  }

  it('is what @ton/core enumerates entry by entry (2^3 for 3 forks)', () => {
    expect(loadMessage(withLibraries(3, false).beginParse()).init?.libraries?.size).toBe(8);
    expect(loadMessage(withLibraries(3, true).beginParse()).init?.libraries?.size).toBe(8);
  });

  it('sendBoc, sendBocReturnHash and v3 /message pass it on as sent: the node refuses it (4xx), the API does not read the dictionary', async () => {
    for (const inRef of [false, true]) {
      const boc = b64(withLibraries(40, inRef));
      for (const m of ['sendBoc', 'sendBocReturnHash', 'sendBocReturnHashNoError']) expectRefused(await post(`/api/v2/${m}`, { boc }, 'libraries'), 400, /cannot apply external message/);
      expectRefused(await post('/api/v3/message', { boc }, 'libraries'), 400, /cannot apply external message/);
    }
  });
});

describe('BoCs too large to hash: 150,000 cells in a 1.5 MB body', () => {
  const big = manyCells(150_000).toString('base64');
  const someone = new Address(0, Buffer.alloc(32, 7)).toRawString();

  it('every BoC parameter answers 422 naming it, without @ton/core hashing them', async () => {
    for (const m of ['sendBoc', 'sendBocReturnHash', 'sendBocReturnHashNoError']) expectRefused(await post(`/api/v2/${m}`, { boc: big }, 'big'), 422, /parameter "boc": expected a bag of cells in base64 with one root and at most 8192 cells/);
    for (const field of ['body', 'init_code', 'init_data']) {
      const fields = { address: someone, body: b64(dag(1)), init_code: b64(dag(1)), init_data: b64(dag(1)), [field]: big };
      expectRefused(await post('/api/v2/estimateFee', fields, field), 422, new RegExp(`parameter "${field}"`));
      expectRefused(await post('/api/v2/sendQuery', fields, field), 422, new RegExp(`parameter "${field}"`));
      expectRefused(await post('/api/v3/estimateFee', fields, field), 422, new RegExp(`parameter "${field}"`));
    }
    expectRefused(await post('/api/v3/message', { boc: big }), 422, /parameter "boc"/);
  });

  it('a runGetMethod stack of 25 BoCs of 6,000 cells each is refused once they pass a message\'s 8192 cells', async () => {
    const part = manyCells(6000).toString('base64');
    const r = await post('/api/v2/runGetMethod', { address: echo.toRawString(), method: 'x', stack: Array(25).fill(['tvm.Cell', part]) });
    expectRefused(r, 422, /"stack" at \[1\]: .*6000 cells, over the 2192 left of the 8192 a request reads/);
  });
});

describe('stacks TVM cannot hold', () => {
  const num = (n: number) => ({ '@type': 'tvm.stackEntryNumber', number: { number: String(n) } });
  const call = (stack: unknown) => post('/api/v2/runGetMethod', { address: echo.toRawString(), method: 'x', stack });

  it('a tuple of 30,000 elements, a list of 20,000, 300 tuples deep, 5,000 entries: 422 naming the stack', async () => {
    expectRefused(await call([['tuple', { elements: Array(30_000).fill(num(1)) }]]), 422, /"stack" at \[0\]: a tuple of 30000 elements/);
    expectRefused(await call([['list', { elements: Array(20_000).fill(num(1)) }]]), 422, /"stack" at \[0\]: nested deeper than 256/);
    let deep: unknown = num(1);
    for (let i = 0; i < 300; i++) deep = { '@type': 'tvm.stackEntryTuple', tuple: { elements: [deep] } };
    expectRefused(await call([['tuple', { elements: [deep] }]]), 422, /nested deeper than 256/);
    expectRefused(await call(Array(5000).fill(['num', 1])), 422, /more than 1024 entries/);
    expectRefused(await post('/api/v2/runGetMethodStd', { address: echo.toRawString(), method: 'x', stack: [{ '@type': 'tvm.stackEntryTuple', tuple: { elements: Array(300).fill(num(1)) } }] }), 422, /a tuple of 300 elements/);
  });

  it('a stack TVM holds still runs: a tuple of 255 and a list of 200 come back as sent', async () => {
    const r = await call([['tuple', { elements: Array(255).fill(num(2)) }], ['list', { elements: Array(200).fill(num(3)) }]]);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const [[tupleType, tuple]] = (r.body.result as { stack: [string, { elements: unknown[] }][] }).stack;
    expect(tupleType).toBe('tuple');
    expect(tuple.elements).toHaveLength(255);
  });
});

describe('bodies too large or too deep to parse', () => {
  const postOnly = [...V2_METHODS.filter((m) => m.http === 'post').map((m) => `/api/v2/${m.name}`), '/api/v2/jsonRPC', ...V3_ENDPOINTS.filter((e) => e.methods?.includes('post')).map((e) => `/api/v3${e.path}`)];
  const tenMegabytes = JSON.stringify({ boc: 'A'.repeat(10 * 1024 * 1024) });

  it('10 MB: 413 at every POST endpoint, with a length, chunked, and as a gzip bomb', async () => {
    expect(postOnly.length).toBeGreaterThan(8);
    const gzipped = gzipSync(tenMegabytes);
    for (const path of postOnly) {
      expectRefused(await post(path, tenMegabytes, '10 MB'), 413, /too large/);
      const chunked = new Blob([tenMegabytes]).stream();
      expectRefused(await send(path, { method: 'POST', body: chunked, duplex: 'half', headers: { 'Content-Type': 'application/json' }, label: 'chunked' } as RequestInit), 413, /too large/);
      expectRefused(await send(path, { method: 'POST', body: gzipped, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, label: 'gzip' }), 413, /too large/);
    }
  });

  it('JSON nested 1,000,000 deep (2 MB): 400 at every POST endpoint, before anything walks it', async () => {
    /** The field of each endpoint that takes a structure or a BoC. */
    const field = (path: string) => (/runGetMethod/.test(path) ? 'stack' : /decode/.test(path) ? 'bodies' : /estimateFee|sendQuery/.test(path) ? 'body' : 'boc');
    const deep = (path: string, inner: string) => `{"address":"${echo.toRawString()}","method":"x","${field(path)}":${inner}}`;
    const million = '['.repeat(999_000) + ']'.repeat(999_000);
    for (const path of postOnly.filter((p) => !p.endsWith('jsonRPC'))) expectRefused(await post(path, deep(path, million), 'deep'), 400, /nested deeper than 1024 levels/);
    expectRefused(await post('/api/v2/jsonRPC', `{"id":1,"jsonrpc":"2.0","method":"sendBoc","params":{"boc":${million}}}`, 'deep rpc'), 400, /nested deeper than 1024/);
    // 1000 levels are JSON the API reads: the stack is then what is refused.
    expectRefused(await post('/api/v2/runGetMethod', deep('runGetMethod', '['.repeat(1000) + ']'.repeat(1000))), 422, /parameter "stack"/);
  });
});

describe('/decode with bodies that hold DAGs', () => {
  it('answers each body in its place; bodies past the request\'s 8192 cells are answered as over the budget', async () => {
    // A jetton transfer whose forward payload is a 40-level DAG, and a body that is one.
    const transfer = beginCell().storeUint(0x0f8a7ea5, 32).storeUint(0, 64).storeCoins(1).storeAddress(echo).storeAddress(echo).storeBit(0).storeCoins(0).storeBit(1).storeRef(dag(40)).endCell();
    const bodies = [b64(transfer), b64(dag(40, 4)), ...Array(20).fill(manyCells(8000, 0x0f8a7ea5).toString('base64'))];
    const r = await post('/api/v3/decode', { bodies });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const decoded = r.body.bodies as Record<string, unknown>[];
    expect(decoded).toHaveLength(bodies.length);
    expect(decoded[0]).toMatchObject({ '@type': 'jetton_transfer' });
    // The transfer's 42 cells and the first 8000-cell body fit in 8192; the next one does not.
    expect(decoded.slice(2, 4)).toEqual([{ error: 'unknown: no parser succeeded' }, { error: 'unknown: decode limit - request cell budget exceeded' }]);
  });
});

describe('a workchain the chain does not have', () => {
  it('answers 422 naming the parameter over REST and jsonRPC alike, not the liteserver\'s 500', async () => {
    const nowhere = `5:${'ab'.repeat(32)}`;
    const calls: [method: string, params: Record<string, unknown>, name: string][] = [
      ['getAddressInformation', { address: nowhere }, 'address'],
      ['runGetMethod', { address: nowhere, method: 'seqno', stack: [] }, 'address'],
      ['lookupBlock', { workchain: 5, shard: '-9223372036854775808', seqno: 1 }, 'workchain'],
      ['getBlockHeader', { workchain: 5, shard: '-9223372036854775808', seqno: 1 }, 'workchain'],
    ];
    for (const [method, params, name] of calls) {
      const refused = new RegExp(`parameter "${name}": expected .*(?:in workchain|a workchain:) -1 \\(masterchain\\) or 0 \\(basechain\\)`);
      expectRefused(await post('/api/v2/jsonRPC', { id: 1, jsonrpc: '2.0', method, params }, 'workchain 5'), 422, refused);
      expectRefused(await post(`/api/v2/${method}`, params, 'workchain 5'), 422, refused);
      if (method !== 'runGetMethod') expectRefused(await send(`/api/v2/${method}?${new URLSearchParams(params as Record<string, string>)}`), 422, refused);
    }
    expectRefused(await post('/api/v3/runGetMethod', { address: nowhere, method: 'seqno', stack: [] }), 422, /parameter "address"/);
    // Reformatting an address needs no chain: detectAddress takes any workchain.
    expect((await send(`/api/v2/detectAddress?address=${nowhere}`)).status).toBe(200);
  });
});

describe('after all of it', () => {
  it('no answer was a 5xx and the API still serves', async () => {
    expect(seen.length).toBeGreaterThan(50);
    expect(seen.filter((s) => s.status >= 500)).toEqual([]);
    const info = await send('/api/v2/getMasterchainInfo');
    expect(info.status).toBe(200);
    expect((info.body.result as { last: { workchain: number } }).last.workchain).toBe(-1);
    const slowest = seen.filter((s) => !s.request.endsWith('warm-up')).reduce((a, b) => (b.ms > a.ms ? b : a));
    console.log(`hostile bodies: ${seen.length} requests, slowest ${slowest.ms} ms (${slowest.request.slice(0, 80)})`);
  });
});
