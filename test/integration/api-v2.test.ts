import { createHash, createPublicKey, verify } from 'node:crypto';
import { Address, beginCell, Cell, external, internal, loadShardAccount, loadTransaction, parseTuple, SendMode, serializeTuple, storeMessage, toNano, type TupleItem } from '@ton/core';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { configParseValidatorSet, WalletContractV4 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';
import { type LedgerRound, type LedgerTx } from '../support/ledger.js';
import { rpc, startV2Stack, type V2Stack } from './api-v2-stack.js';
import { raw } from '../support/ledger.js';

/**
 * Every v2 method on the whole stack (localnet -> fetcher -> decoder -> writer -> api): the success
 * shape with values checked against the chain (ton-lite-client on the localnet's liteserver, the
 * localnet's ledger, @ton/core), and the errors (missing parameter, bad address, unknown block,
 * out-of-range count, malformed BoC) as 4xx envelopes. The index starts at the chain's head after
 * UNINDEXED rounds, so older history is the liteserver's only, as on a fresh mainnet deployment.
 * Also v3's legacy endpoints.
 */
const UNINDEXED = 6;
let stack: V2Stack;
let base: string;

beforeAll(async () => {
  stack = await startV2Stack('api-v2', { trafficRate: 6, unindexedRounds: UNINDEXED });
  base = stack.base;
});

afterAll(async () => {
  await stack?.stop();
});

type Envelope = { ok: boolean; result?: unknown; error?: string; code?: number; '@extra'?: string; page?: Record<string, unknown> };

async function get(method: string, query: Record<string, string | number> = {}): Promise<{ status: number; body: Envelope }> {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await fetch(`${base}/api/v2/${method}${q ? `?${q}` : ''}`);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  return { status: res.status, body: (await res.json()) as Envelope };
}

async function post(method: string, body: unknown): Promise<{ status: number; body: Envelope }> {
  const res = await fetch(`${base}/api/v2/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Envelope };
}

/** A 200 envelope's result. */
async function ok<T = Record<string, unknown>>(r: Promise<{ status: number; body: Envelope }>): Promise<T> {
  const { status, body } = await r;
  expect(status, JSON.stringify(body).slice(0, 400)).toBe(200);
  expect(body.ok).toBe(true);
  expect(body['@extra']).toMatch(/^\d+:_:\d+(\.\d+)?$/);
  return body.result as T;
}

/** An error envelope with this status whose message matches. */
async function fails(r: Promise<{ status: number; body: Envelope }>, status: number, message: RegExp): Promise<void> {
  const { status: got, body } = await r;
  expect(got, JSON.stringify(body).slice(0, 300)).toBe(status);
  expect(body).toMatchObject({ ok: false, code: status });
  expect(body.error).toMatch(message);
}

const MC_SHARD = '-9223372036854775808';

async function chainLast() {
  return (await stack.lite.getMasterchainInfo()).last;
}

type GetMethodResult = { exitCode: number; stack: TupleItem[] };

async function chainGet(address: Address, method: string, args: TupleItem[] = []): Promise<GetMethodResult> {
  const res = await stack.lite.runMethod(address, method, serializeTuple(args).toBoc(), await chainLast());
  return { exitCode: res.exitCode, stack: res.result ? parseTuple(Cell.fromBase64(res.result)) : [] };
}

/** The first masterchain seqno the index holds (the fetcher started at the chain's head then). */
async function indexFrom(): Promise<number> {
  return Number((await stack.store.query<{ m: number }>(`SELECT min(mc_block_seqno) AS m FROM ${stack.database}.blocks`))[0].m);
}

function ledgerTxs(): (LedgerTx & { round: LedgerRound; block: LedgerRound['blocks'][number] })[] {
  return stack.ledger().flatMap((round) => round.blocks.flatMap((block) => block.transactions.map((t) => ({ ...t, round, block }))));
}

/** The prefunded v4 wallet `i` with its keys and @ton/ton contract. */
async function v4(i: number) {
  const entry = stack.wallets().filter((w) => w.version === 'v4r2')[i];
  const keys = await mnemonicToPrivateKey(entry.mnemonic.split(' '));
  const contract = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  expect(raw(contract.address)).toBe(entry.address.toUpperCase());
  return { keys, contract, address: contract.address };
}

/** A signed v4 transfer as an external message cell. */
async function signedTransfer(i: number, to: Address, value: bigint, seqno?: number) {
  const w = await v4(i);
  const current = (await chainGet(w.address, 'seqno')).stack[0];
  const s = seqno ?? (current?.type === 'int' ? Number(current.value) : 0);
  const body = w.contract.createTransfer({ seqno: s, secretKey: w.keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to, value, bounce: false })] });
  const message = beginCell().store(storeMessage(external({ to: w.address, body }))).endCell();
  return { ...w, seqno: s, body, message };
}

async function waitSeqno(address: Address, seqno: number) {
  await eventually(`seqno ${seqno} on the chain`, async () => {
    const r = (await chainGet(address, 'seqno')).stack[0];
    return r?.type === 'int' && r.value >= BigInt(seqno) ? true : undefined;
  }, 60_000, 300);
}

describe('transport: GET, POST, jsonRPC, envelope', () => {
  it('serves the same method over GET, POST and jsonRPC, echoing jsonRPC id and jsonrpc', async () => {
    const viaGet = await ok<{ '@type': string; init: { root_hash: string } }>(get('getMasterchainInfo'));
    const viaPost = await ok<{ '@type': string; init: { root_hash: string } }>(post('getMasterchainInfo', {}));
    const r = await rpc(base, 'getMasterchainInfo', {}, 'abc');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, id: 'abc', jsonrpc: '2.0' });
    const chainInit = (await stack.lite.getMasterchainInfo()).init;
    for (const v of [viaGet, viaPost, r.body.result as typeof viaGet]) {
      expect(v['@type']).toBe('blocks.masterchainInfo');
      expect(v.init.root_hash).toBe(chainInit.rootHash.toString('base64'));
    }
  });

  it('answers unknown paths, methods and bad bodies with the envelope, never HTML', async () => {
    await fails(get('noSuchMethod'), 404, /Not Found/);
    const nested = await fetch(`${base}/api/v2/a/b/c`);
    expect(nested.status).toBe(404);
    expect(await nested.json()).toMatchObject({ ok: false, code: 404 });
    const r = await rpc(base, 'noSuchMethod', {}, 9);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ ok: false, code: 404, id: 9, jsonrpc: '2.0' });
    expect((await rpc(base, 'getMasterchainInfo', ['x'])).status).toBe(422);
    const notJson = await fetch(`${base}/api/v2/jsonRPC`, { method: 'POST', body: '{not json' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ ok: false, code: 400 });
    const getRpc = await fetch(`${base}/api/v2/jsonRPC`);
    expect(getRpc.status).toBe(405);
    await fails(get('runGetMethod', { address: '0:00', method: 'seqno' }), 405, /GET/);
    const noMethod = await rpc(base, '', {});
    expect(noMethod.status).toBe(422);
  });

  it('answers browsers: CORS on every answer and the preflight of a JSON POST', async () => {
    const pre = await fetch(`${base}/api/v2/jsonRPC`, { method: 'OPTIONS', headers: { origin: 'https://dapp.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-ton-client-version' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type,x-ton-client-version');
    const res = await fetch(`${base}/api/v2/getConsensusBlock`, { headers: { origin: 'https://dapp.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('accounts', () => {
  it('getAddressInformation, getAddressBalance, getAddressState equal the liteserver', async () => {
    const { address } = await v4(0);
    const last = await chainLast();
    const chain = await stack.lite.getAccountState(address, last);
    for (const form of [raw(address), address.toString(), address.toString({ urlSafe: false, bounceable: false })]) {
      const info = await ok<Record<string, unknown>>(get('getAddressInformation', { address: form }));
      expect(info['@type']).toBe('raw.fullAccountState');
      expect(BigInt(info.balance as string)).toBeGreaterThan(0n);
      expect(info.state).toBe('active');
      const code = chain.state!.storage.state.type === 'active' ? chain.state!.storage.state.state.code! : undefined;
      expect(Cell.fromBase64(info.code as string).hash().equals(code!.hash())).toBe(true);
      expect((info.block_id as { workchain: number }).workchain).toBe(-1);
    }
    const info = await ok<{ balance: string; last_transaction_id: { lt: string; hash: string }; block_id: { seqno: number } }>(get('getAddressInformation', { address: raw(address), seqno: last.seqno }));
    expect(info.block_id.seqno).toBe(last.seqno);
    expect(info.balance).toBe(chain.balance.coins.toString());
    expect(info.last_transaction_id.lt).toBe((chain.lastTx?.lt ?? 0).toString());
    expect(await ok(get('getAddressBalance', { address: raw(address), seqno: last.seqno }))).toBe(chain.balance.coins.toString());
    expect(await ok(get('getAddressState', { address: raw(address) }))).toBe('active');
    const nobody = new Address(0, Buffer.alloc(32, 0x5a));
    expect(await ok(get('getAddressState', { address: raw(nobody) }))).toBe('uninitialized');
    expect(await ok(get('getAddressBalance', { address: raw(nobody) }))).toBe('0');
  });

  it('getWalletInformation and getExtendedAddressInformation read the wallet as its get-methods do', async () => {
    const { address } = await v4(0);
    const seqno = (await chainGet(address, 'seqno')).stack[0] as { value: bigint };
    const subwallet = (await chainGet(address, 'get_subwallet_id')).stack[0] as { value: bigint };
    const w = await ok<Record<string, unknown>>(get('getWalletInformation', { address: raw(address) }));
    expect(w).toMatchObject({ '@type': 'ext.accounts.walletInformation', wallet: true, wallet_type: 'wallet v4 r2', account_state: 'active', seqno: Number(seqno.value), wallet_id: Number(subwallet.value) });
    const e = await ok<Record<string, unknown>>(get('getExtendedAddressInformation', { address: raw(address) }));
    expect(e).toMatchObject({ '@type': 'fullAccountState', address: { account_address: address.toString() }, account_state: { '@type': 'wallet.v4.accountState', wallet_id: subwallet.value.toString(), seqno: Number(seqno.value) }, revision: 2 });
    const nobody = await ok<Record<string, unknown>>(get('getWalletInformation', { address: raw(new Address(0, Buffer.alloc(32, 0x5b))) }));
    expect(nobody).toMatchObject({ wallet: false, account_state: 'uninitialized', balance: '0' });
  });

  it('getShardAccountCell is the ShardAccount the liteserver holds', async () => {
    const { address } = await v4(0);
    const last = await chainLast();
    const cell = await ok<{ '@type': string; bytes: string }>(get('getShardAccountCell', { address: raw(address), seqno: last.seqno }));
    expect(cell['@type']).toBe('tvm.cell');
    const sa = loadShardAccount(Cell.fromBase64(cell.bytes).beginParse());
    const chain = await stack.lite.getAccountState(address, last);
    expect(sa.account?.storage.balance.coins).toBe(chain.balance.coins);
    expect(sa.lastTransactionLt).toBe(chain.lastTx?.lt ?? 0n);
    await fails(get('getShardAccountCell', {}), 422, /"address" is required/);
    await fails(get('getShardAccountCell', { address: 'EQbad' }), 422, /parameter "address"/);
  });

  /**
   * getTokenData and the contract's own get-method on a state that held still around the API's answer:
   * the traffic keeps minting and transferring, so one read before and one after must agree. The API
   * asks the chain at its own newest block, which may be one before the test's: `settled` (the value
   * under test equal on both sides) is asked of a still moment too, so a block between the two views is
   * waited out; an API that never agrees still fails, at the deadline.
   */
  async function heldStill(address: string, method: string, settled: (answer: Record<string, unknown>, chain: GetMethodResult) => boolean = () => true) {
    return eventually(`${method} holding still around one getTokenData`, async () => {
      const before = await chainGet(Address.parseRaw(address), method);
      const answer = await ok<Record<string, unknown>>(get('getTokenData', { address }));
      const after = await chainGet(Address.parseRaw(address), method);
      const same = JSON.stringify(before.stack, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Cell ? v.hash().toString('hex') : v)) ===
        JSON.stringify(after.stack, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Cell ? v.hash().toString('hex') : v));
      return same && settled(answer, after) ? { answer, chain: after } : undefined;
    }, 60_000, 200);
  }

  it('getTokenData reads a Jetton master of the traffic; a wallet is 409', async () => {
    const minter = await eventually('a Jetton master in the index', async () => {
      const rows = await stack.store.query<{ account: string }>(`SELECT account FROM ${stack.database}.account_states_latest WHERE code_hash = 'BXGXbGPsG3VQIwomCdvts24bZO+NAioWs06lcGMYWy8=' LIMIT 1`);
      return rows[0]?.account;
    }, 90_000, 1_000);
    const supply = (chain: GetMethodResult) => (chain.stack[0] as { value: bigint }).value.toString();
    const { answer: data, chain } = await heldStill(minter, 'get_jetton_data', (answer, c) => answer.total_supply === supply(c));
    expect(chain.exitCode).toBe(0);
    expect(data).toMatchObject({ '@type': 'ext.tokens.jettonMasterData', contract_type: 'jetton_master', total_supply: supply(chain) });
    expect(Cell.fromBase64(data.jetton_wallet_code as string).hash().equals((chain.stack[4] as { cell: Cell }).cell.hash())).toBe(true);
    const { address } = await v4(0);
    await fails(get('getTokenData', { address: raw(address) }), 409, /not Jetton or NFT/);
  });

  it('getTokenData reads Jetton wallets and NFT items as their get-methods answer', async () => {
    const byCode = (hash: string, what: string) =>
      eventually(`${what} in the index`, async () => (await stack.store.query<{ account: string }>(`SELECT account FROM ${stack.database}.account_states_latest WHERE code_hash = '${hash}' AND status = 'active' LIMIT 1`))[0]?.account, 120_000, 1_000);
    const friendly = (item: TupleItem) => (item.type === 'slice' ? item.cell.beginParse().loadAddress().toString() : null);
    const wallet = await byCode('p2DWKdU0PnbQRQF9ncIW/IoweoN3gV/rKwpcSQ5zNIY=', 'a Jetton wallet');
    const { answer: walletData, chain: w } = await heldStill(wallet, 'get_wallet_data', (answer, c) => answer.balance === (c.stack[0] as { value: bigint }).value.toString());
    expect(walletData).toMatchObject({
      '@type': 'ext.tokens.jettonWalletData', contract_type: 'jetton_wallet', balance: (w.stack[0] as { value: bigint }).value.toString(), owner: friendly(w.stack[1]), jetton: friendly(w.stack[2]),
    });
    const item = await byCode('uk2XXStmIxwfCgzMpuj/j3ugYQxLdjlYS46YMD3DEow=', 'an NFT item');
    const { answer: itemData, chain: n } = await heldStill(item, 'get_nft_data', (answer, c) => answer.owner_address === (friendly(c.stack[3]) && Address.parse(friendly(c.stack[3])!).toString()));
    const owner = Address.parse(friendly(n.stack[3])!);
    const itemCollection = Address.parse(friendly(n.stack[2])!);
    expect(itemData).toMatchObject({
      '@type': 'ext.tokens.nftItemData', contract_type: 'nft_item', init: true, index: (n.stack[1] as { value: bigint }).value.toString(), collection_address: itemCollection.toString(), owner_address: owner.toString(),
    });
  });

  it('refuses a missing or bad address and a non-positive seqno with 422 naming it', async () => {
    for (const m of ['getAddressInformation', 'getExtendedAddressInformation', 'getWalletInformation', 'getAddressBalance', 'getAddressState', 'getTokenData']) {
      await fails(get(m), 422, /"address" is required/);
      await fails(get(m, { address: 'EQnotanaddress' }), 422, /parameter "address"/);
      await fails(get(m, { address: '0:1234' }), 422, /parameter "address"/);
    }
    await fails(get('getAddressInformation', { address: raw(new Address(0, Buffer.alloc(32))), seqno: 0 }), 422, /parameter "seqno"/);
    await fails(get('getAddressInformation', { address: raw(new Address(0, Buffer.alloc(32))), seqno: 99_999_999 }), 404, /not found/);
  });
});

describe('utils', () => {
  it('detectAddress, packAddress, unpackAddress, detectHash match @ton/core', async () => {
    const a = new Address(0, createHash('sha256').update('detect').digest());
    const d = await ok<Record<string, unknown>>(get('detectAddress', { address: a.toString({ bounceable: false }) }));
    expect(d).toMatchObject({
      '@type': 'ext.utils.detectedAddress',
      raw_form: `0:${a.hash.toString('hex')}`,
      bounceable: { b64url: a.toString(), b64: a.toString({ urlSafe: false }) },
      non_bounceable: { b64url: a.toString({ bounceable: false }) },
      given_type: 'friendly_non_bounceable',
      test_only: false,
    });
    expect(await ok(get('packAddress', { address: a.toRawString() }))).toBe(a.toString());
    expect(await ok(get('unpackAddress', { address: a.toString() }))).toBe(a.toRawString());
    await fails(get('packAddress', { address: a.toString() }), 422, /raw address/);
    await fails(get('unpackAddress', { address: a.toRawString() }), 422, /user-friendly/);
    const h = await ok<Record<string, unknown>>(get('detectHash', { hash: a.hash.toString('hex') }));
    expect(h).toMatchObject({ b64: a.hash.toString('base64'), b64url: a.hash.toString('base64url'), hex: a.hash.toString('hex') });
    await fails(get('detectHash', { hash: 'zz' }), 422, /parameter "hash"/);
    for (const m of ['detectAddress', 'packAddress', 'unpackAddress']) {
      await fails(get(m), 422, /"address" is required/);
      await fails(get(m, { address: `${a.toString().slice(0, 47)}A` }), 422, /parameter "address"/);
    }
    await fails(get('detectHash'), 422, /"hash" is required/);
  });
});

describe('blocks', () => {
  it('lookupBlock by seqno, lt and unixtime finds the ledger block; refuses zero or two criteria', async () => {
    const seqno = await stack.indexedAt(UNINDEXED + 3);
    const round = stack.ledger().find((r) => r.mc_seqno === seqno)!;
    const mc = round.blocks.find((b) => b.workchain === -1)!;
    const bySeqno = await ok<Record<string, unknown>>(get('lookupBlock', { workchain: -1, shard: MC_SHARD, seqno }));
    expect(bySeqno).toMatchObject({ '@type': 'ton.blockIdExt', workchain: -1, shard: MC_SHARD, seqno, root_hash: mc.root_hash, file_hash: mc.file_hash });
    const shardBlock = round.blocks.find((b) => b.workchain === 0 && b.transactions.length > 0) ?? round.blocks.find((b) => b.workchain === 0)!;
    const signed = BigInt.asIntN(64, BigInt(`0x${shardBlock.shard}`)).toString();
    const txLt = shardBlock.transactions[0]?.lt;
    if (txLt) expect(await ok(get('lookupBlock', { workchain: 0, shard: signed, lt: txLt }))).toMatchObject({ seqno: shardBlock.seqno, root_hash: shardBlock.root_hash });
    const byTime = await ok<{ seqno: number }>(get('lookupBlock', { workchain: -1, shard: MC_SHARD, unixtime: round.gen_utime }));
    // Several rounds share a second: the block found is one generated in that second.
    expect(stack.ledger().find((r) => r.mc_seqno === byTime.seqno)?.gen_utime).toBe(round.gen_utime);
    await fails(get('lookupBlock', { workchain: -1, shard: MC_SHARD }), 422, /exactly one of seqno, lt, unixtime/);
    await fails(get('lookupBlock', { workchain: -1, shard: MC_SHARD, seqno, lt: 5 }), 422, /exactly one of/);
    await fails(get('lookupBlock', { workchain: -1, shard: MC_SHARD, seqno: 99_999_999 }), 404, /not found/);
    await fails(get('lookupBlock', { shard: MC_SHARD, seqno }), 422, /"workchain" is required/);
    await fails(get('lookupBlock', { workchain: -1, shard: '8000000000000000x', seqno }), 422, /parameter "shard"/);
  });

  it('shards, getBlockHeader and getConsensusBlock agree with the ledger and the liteserver', async () => {
    const seqno = await stack.indexedAt(UNINDEXED + 3);
    const round = stack.ledger().find((r) => r.mc_seqno === seqno)!;
    for (const name of ['shards', 'getShards']) {
      const s = await ok<{ '@type': string; shards: { root_hash: string }[] }>(get(name, { seqno }));
      expect(s['@type']).toBe('blocks.shards');
      expect(s.shards.map((b) => b.root_hash).sort()).toEqual(round.blocks.filter((b) => b.workchain === 0).map((b) => b.root_hash).sort());
    }
    const shardBlock = round.blocks.find((b) => b.workchain === 0)!;
    const signed = BigInt.asIntN(64, BigInt(`0x${shardBlock.shard}`)).toString();
    const h = await ok<Record<string, unknown>>(get('getBlockHeader', { workchain: 0, shard: signed, seqno: shardBlock.seqno }));
    expect(h).toMatchObject({ '@type': 'blocks.header', id: { workchain: 0, shard: signed, seqno: shardBlock.seqno, root_hash: shardBlock.root_hash }, is_key_block: false });
    const prevRound = stack.ledger().find((r) => r.mc_seqno === seqno - 1)!;
    const prev = prevRound.blocks.find((b) => b.workchain === 0 && b.shard === shardBlock.shard)!;
    expect(h.prev_blocks).toEqual([{ '@type': 'ton.blockIdExt', workchain: 0, shard: signed, seqno: prev.seqno, root_hash: prev.root_hash, file_hash: prev.file_hash }]);
    await fails(get('getBlockHeader', { workchain: 0, shard: signed, seqno: shardBlock.seqno, root_hash: prev.root_hash }), 404, /hashes not found/);
    await fails(get('getBlockHeader', { workchain: 0, shard: signed }), 422, /"seqno" is required/);
    await fails(get('getBlockHeader', { workchain: 0, shard: signed, seqno: 99_999_999 }), 404, /not found/);
    const c = await ok<{ consensus_block: number; timestamp: number }>(get('getConsensusBlock'));
    expect(c.consensus_block).toBeGreaterThanOrEqual(seqno);
    await fails(get('shards', { seqno: -1 }), 422, /parameter "seqno"/);
    await fails(get('shards', { seqno: 99_999_999 }), 404, /not found/);
  });

  it('getMasterchainBlockSignatures: signatures that verify against config param 34', async () => {
    const seqno = await stack.indexedAt(UNINDEXED + 3);
    const sig = await ok<{ id: { root_hash: string; file_hash: string }; signatures: { node_id_short: string; signature: string }[] }>(get('getMasterchainBlockSignatures', { seqno }));
    const mc = stack.ledger().find((r) => r.mc_seqno === seqno)!.blocks.find((b) => b.workchain === -1)!;
    expect(sig.id.root_hash).toBe(mc.root_hash);
    const config = await stack.lite.getConfig(await chainLast());
    const set = configParseValidatorSet(config.config.get(34)!.beginParse())!;
    const keys = new Map<string, Buffer>();
    const le = (id: number) => Buffer.from(new Uint32Array([id]).buffer);
    for (const [, v] of set.list) keys.set(createHash('sha256').update(Buffer.concat([le(0x4813b4c6), v.publicKey])).digest('base64'), v.publicKey);
    const signed = Buffer.concat([le(0xc50b6e70), Buffer.from(sig.id.root_hash, 'base64'), Buffer.from(sig.id.file_hash, 'base64')]);
    expect(sig.signatures.length).toBeGreaterThan(0);
    for (const s of sig.signatures) {
      const pub = keys.get(s.node_id_short);
      expect(pub, `node ${s.node_id_short} is a validator of param 34`).toBeDefined();
      const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub!]), format: 'der', type: 'spki' });
      expect(verify(null, signed, key, Buffer.from(s.signature, 'base64'))).toBe(true);
    }
    await fails(get('getMasterchainBlockSignatures'), 422, /"seqno" is required/);
    await fails(get('getMasterchainBlockSignatures', { seqno: 99_999_999 }), 404, /not found/);
  });

  it('getShardBlockProof links a shard block to the masterchain block that commits it', async () => {
    const seqno = await stack.indexedAt(UNINDEXED + 3);
    const round = stack.ledger().find((r) => r.mc_seqno === seqno)!;
    const shardBlock = round.blocks.find((b) => b.workchain === 0)!;
    const signed = BigInt.asIntN(64, BigInt(`0x${shardBlock.shard}`)).toString();
    const p = await ok<{ '@type': string; mc_id: { seqno: number; root_hash: string }; links: { id: { root_hash: string }; proof: string }[] }>(get('getShardBlockProof', { workchain: 0, shard: signed, seqno: shardBlock.seqno }));
    expect(p['@type']).toBe('blocks.shardBlockProof');
    expect(p.mc_id.seqno).toBe(seqno);
    expect(p.mc_id.root_hash).toBe(round.blocks.find((b) => b.workchain === -1)!.root_hash);
    expect(p.links.map((l) => l.id.root_hash)).toEqual([shardBlock.root_hash]);
    // The link's proof is a Merkle proof of the masterchain block (its hash is the block's root hash).
    const proof = Cell.fromBase64(p.links[0].proof);
    expect(proof.refs[0].hash(0).toString('base64')).toBe(p.mc_id.root_hash);
    await fails(get('getShardBlockProof', { workchain: 0, shard: signed, seqno: 99_999_999 }), 404, /not found/);
    await fails(get('getShardBlockProof', { workchain: 0, shard: signed }), 422, /"seqno" is required/);
    await fails(get('getShardBlockProof', { workchain: 0, shard: 'x', seqno: 1 }), 422, /parameter "shard"/);
  });
});

describe('getOutMsgQueueSize', () => {
  type QueueSizes = { '@type': string; shards: { '@type': string; id: { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string }; size: number }[]; ext_msg_queue_size_limit: number };

  it('lists the newest masterchain and shard blocks, each with the messages it sent that the next round delivers', async () => {
    const sizes = await ok<QueueSizes>(get('getOutMsgQueueSize'));
    expect(sizes['@type']).toBe('blocks.outMsgQueueSizes');
    expect(sizes.ext_msg_queue_size_limit).toBe(8000);
    const n = sizes.shards[0].id.seqno;
    // The chain's ledger: round n's blocks, and what round n + 1 delivered of their messages.
    const ledger = await eventually(`round ${n + 1} in the ledger`, async () => {
      const rounds = stack.ledger();
      return rounds.some((r) => r.mc_seqno === n + 1) ? rounds : undefined;
    }, 30_000, 200);
    const round = ledger.find((r) => r.mc_seqno === n)!;
    const delivered = new Set(ledger.find((r) => r.mc_seqno === n + 1)!.blocks.flatMap((b) => b.transactions.map((t) => t.in_msg)));
    const blocks = [round.blocks.find((b) => b.workchain === -1)!, ...round.blocks.filter((b) => b.workchain === 0)];
    expect(sizes.shards).toEqual(
      blocks.map((b) => ({
        '@type': 'blocks.outMsgQueueSize',
        id: { '@type': 'ton.blockIdExt', workchain: b.workchain, shard: BigInt.asIntN(64, BigInt(`0x${b.shard}`)).toString(), seqno: b.seqno, root_hash: b.root_hash, file_hash: b.file_hash },
        size: b.transactions.flatMap((t) => t.out_msgs).filter((h) => delivered.has(h)).length,
      })),
    );
    const viaRpc = await rpc(base, 'getOutMsgQueueSize', {}, 'q');
    expect(viaRpc.status).toBe(200);
    expect(viaRpc.body).toMatchObject({ ok: true, id: 'q', result: { '@type': 'blocks.outMsgQueueSizes', ext_msg_queue_size_limit: 8000 } });
  });
});

describe('transactions from the index', () => {
  /** An account with transactions both before the index started and after. */
  function busyAccount(indexFrom: number): string {
    const counts = new Map<string, { before: number; after: number }>();
    for (const t of ledgerTxs()) {
      if (t.account.startsWith('-1:')) continue;
      const c = counts.get(t.account) ?? { before: 0, after: 0 };
      if (t.round.mc_seqno < indexFrom) c.before++;
      else c.after++;
      counts.set(t.account, c);
    }
    const best = [...counts].filter(([, c]) => c.before > 0 && c.after >= 3).sort((a, b) => b[1].after - a[1].after)[0];
    expect(best, 'an account with history before and after the index start').toBeDefined();
    return best[0];
  }

  it('getTransactions pages an account newest first like the ledger, with data BoCs of the chain, and says when a page is short', async () => {
    const watermark = await stack.indexedAt(UNINDEXED + 12);
    const from = await indexFrom();
    const account = busyAccount(from);
    // The account's indexed history, newest first, anchored at its newest transaction at or below the watermark.
    const ledger = ledgerTxs().filter((t) => t.account === account && t.round.mc_seqno <= watermark && t.round.mc_seqno >= from).sort((a, b) => (BigInt(b.lt) > BigInt(a.lt) ? 1 : -1));
    const anchor = { address: account, lt: ledger[0].lt, hash: ledger[0].hash };
    const first = await ok<Record<string, unknown>[]>(get('getTransactions', { ...anchor, limit: 2 }));
    expect(first.map((t) => (t.transaction_id as { hash: string }).hash)).toEqual(ledger.slice(0, 2).map((t) => t.hash));
    for (const t of first) {
      expect(t).toMatchObject({ '@type': 'ext.transaction', account, address: { '@type': 'accountAddress' } });
      const tx = loadTransaction(Cell.fromBase64(t.data as string).beginParse());
      expect(tx.hash().toString('base64')).toBe((t.transaction_id as { hash: string }).hash);
      expect(tx.lt.toString()).toBe((t.transaction_id as { lt: string }).lt);
      expect(t.fee).toBe(tx.totalFees.coins.toString());
    }
    // Without a start: the newest indexed transactions, which include the anchor or newer ones.
    const newest = await ok<{ transaction_id: { lt: string } }[]>(get('getTransactions', { address: account, limit: 1 }));
    expect(BigInt(newest[0].transaction_id.lt)).toBeGreaterThanOrEqual(BigInt(ledger[0].lt));
    // The next page from the second one (lt + hex hash, as TonClient sends it), inclusive.
    const second = ledger[1];
    const next = await ok<{ transaction_id: { hash: string } }[]>(get('getTransactions', { address: account, limit: 3, lt: second.lt, hash: Buffer.from(second.hash, 'base64').toString('hex') }));
    expect(next.map((t) => t.transaction_id.hash)).toEqual(ledger.slice(1, 4).map((t) => t.hash));
    const toLt = await ok<{ transaction_id: { hash: string } }[]>(get('getTransactions', { ...anchor, limit: 100, to_lt: ledger[2].lt }));
    expect(toLt.map((t) => t.transaction_id.hash)).toEqual(ledger.slice(0, 2).map((t) => t.hash));
    // Asking for everything: the index holds the history from its start only, and says the page is short.
    const q = new URLSearchParams({ ...anchor, limit: '1000' });
    const all = await fetch(`${base}/api/v2/getTransactions?${q}`).then((r) => r.json() as Promise<Envelope>);
    expect((all.result as { transaction_id: { hash: string } }[]).map((t) => t.transaction_id.hash)).toEqual(ledger.map((t) => t.hash));
    expect(all.page).toMatchObject({ requested: 1000, returned: ledger.length, complete: false });
    const before = ledgerTxs().filter((t) => t.account === account && t.round.mc_seqno < from).sort((a, b) => (BigInt(b.lt) > BigInt(a.lt) ? 1 : -1))[0];
    expect(all.page?.previous_transaction_id).toEqual({ lt: before.lt, hash: before.hash });
    // A page that is full is not marked.
    expect((await get('getTransactions', { ...anchor, limit: 1 })).body.page).toBeUndefined();
  });

  it('a start the index does not hold yet is served by the liteserver, the same as the index serves it later', async () => {
    const dest = new Address(0, Buffer.alloc(32, 0x7c));
    const t = await signedTransfer(0, dest, toNano('0.01'));
    await ok(post('sendBoc', { boc: t.message.toBoc().toString('base64') }));
    await waitSeqno(t.address, t.seqno + 1);
    // The liteserver's last transaction of the wallet, likely above the watermark for a moment.
    const chain = await stack.lite.getAccountState(t.address, await chainLast());
    const start = { address: raw(t.address), lt: chain.lastTx!.lt.toString(), hash: Buffer.from(chain.lastTx!.hash.toString(16).padStart(64, '0'), 'hex').toString('base64'), limit: 2 };
    const early = await ok<Record<string, unknown>[]>(get('getTransactions', start));
    expect((early[0].transaction_id as { hash: string }).hash).toBe(start.hash);
    expect(loadTransaction(Cell.fromBase64(early[0].data as string).beginParse()).inMessage?.body.hash().equals(t.body.hash())).toBe(true);
    // Once indexed, the index answers the same page, field for field.
    const mc = ledgerTxs().find((x) => x.hash === start.hash)!.round.mc_seqno;
    await stack.indexedAt(mc);
    expect(await ok(get('getTransactions', start))).toEqual(early);
    await fails(get('getTransactions', { ...start, hash: Buffer.alloc(32, 1).toString('base64') }), 404, /not found/);
  });

  it('getTransactionsStd answers the same page in tonlib raw.transactions shape', async () => {
    const watermark = await stack.indexedAt(UNINDEXED + 4);
    const from = await indexFrom();
    const tx = ledgerTxs().filter((t) => t.round.mc_seqno >= from && t.round.mc_seqno <= watermark && t.account.startsWith('0:')).pop()!;
    const q = { address: tx.account, lt: tx.lt, hash: tx.hash, limit: 2 };
    const ext = await ok<{ transaction_id: { hash: string } }[]>(get('getTransactions', q));
    const std = await ok<{ '@type': string; transactions: { '@type': string; data: string; transaction_id: { hash: string }; in_msg?: { source: { '@type': string } } }[]; previous_transaction_id: { lt: string; hash: string } }>(get('getTransactionsStd', q));
    expect(std['@type']).toBe('raw.transactions');
    expect(std.transactions.map((t) => t.transaction_id.hash)).toEqual(ext.map((t) => t.transaction_id.hash));
    expect(std.transactions[0]['@type']).toBe('raw.transaction');
    if (std.transactions[0].in_msg) expect(std.transactions[0].in_msg.source['@type']).toBe('accountAddress');
    const oldest = loadTransaction(Cell.fromBase64(std.transactions[std.transactions.length - 1].data).beginParse());
    expect(std.previous_transaction_id).toMatchObject({ lt: oldest.prevTransactionLt.toString(), hash: Buffer.from(oldest.prevTransactionHash.toString(16).padStart(64, '0'), 'hex').toString('base64') });
    await fails(get('getTransactionsStd', { address: tx.account, limit: 0 }), 422, /limit should be positive/);
  });

  it('getTransactions errors: limit range, lt without hash, unknown start, bad address', async () => {
    const a = raw(new Address(0, Buffer.alloc(32, 1)));
    await fails(get('getTransactions', { address: a, limit: 0 }), 422, /limit should be positive/);
    await fails(get('getTransactions', { address: a, limit: 1001 }), 422, /limit should be less or equal 1000/);
    await fails(get('getTransactions', { address: a, lt: 5 }), 422, /lt and hash should be used together/);
    await fails(get('getTransactions', { address: a, lt: 5, hash: Buffer.alloc(32).toString('hex') }), 404, /not found/);
    await fails(get('getTransactions', { address: 'bad' }), 422, /parameter "address"/);
    await fails(get('getTransactions', {}), 422, /"address" is required/);
    await fails(get('getTransactions', { address: a, hash: 'xyz', lt: 3 }), 422, /parameter "hash"/);
    expect(await ok(get('getTransactions', { address: a }))).toEqual([]);
  });

  it('getBlockTransactions(Ext) list the ledger block in account/lt order, with paging; unknown blocks are 404', async () => {
    const watermark = await stack.indexedAt(UNINDEXED + 4);
    const from = await indexFrom();
    const block = ledgerTxs().filter((t) => t.round.mc_seqno <= watermark && t.round.mc_seqno >= from && t.block.workchain === 0).map((t) => t.block).sort((a, b) => b.transactions.length - a.transactions.length)[0];
    const signed = BigInt.asIntN(64, BigInt(`0x${block.shard}`)).toString();
    const want = [...block.transactions].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : BigInt(a.lt) < BigInt(b.lt) ? -1 : 1));
    const q = { workchain: 0, shard: signed, seqno: block.seqno };
    const all = await ok<{ '@type': string; id: { root_hash: string }; incomplete: boolean; transactions: { account: string; lt: string; hash: string; mode: number }[] }>(get('getBlockTransactions', q));
    expect(all['@type']).toBe('blocks.transactions');
    expect(all.id.root_hash).toBe(block.root_hash);
    expect(all.incomplete).toBe(false);
    expect(all.transactions.map((t) => t.hash)).toEqual(want.map((t) => t.hash));
    if (want.length > 1) {
      const page = await ok<{ incomplete: boolean; transactions: { hash: string }[] }>(get('getBlockTransactions', { ...q, count: 1 }));
      expect(page.incomplete).toBe(true);
      const after = await ok<{ transactions: { hash: string }[] }>(get('getBlockTransactions', { ...q, count: 1, after_lt: want[0].lt, after_hash: want[0].account.split(':')[1] }));
      expect([...page.transactions, ...after.transactions].map((t) => t.hash)).toEqual(want.slice(0, 2).map((t) => t.hash));
    }
    const ext = await ok<{ '@type': string; transactions: { '@type': string; data: string; account: string }[] }>(get('getBlockTransactionsExt', q));
    expect(ext['@type']).toBe('blocks.transactionsExt');
    expect(ext.transactions.map((t) => loadTransaction(Cell.fromBase64(t.data).beginParse()).hash().toString('base64'))).toEqual(want.map((t) => t.hash));
    await fails(get('getBlockTransactions', { ...q, count: 0 }), 422, /count should be positive/);
    await fails(get('getBlockTransactions', { ...q, count: 10_001 }), 422, /count should be less or equal 10000/);
    await fails(get('getBlockTransactions', { ...q, after_lt: 5 }), 422, /after_lt and after_hash should be used together/);
    await fails(get('getBlockTransactions', { ...q, seqno: 99_999_999 }), 404, /not found/);
    await fails(get('getBlockTransactions', { ...q, root_hash: Buffer.alloc(32).toString('base64') }), 404, /not found/);
    await fails(get('getBlockTransactionsExt', { workchain: 0, shard: signed }), 422, /"seqno" is required/);
    // A block older than the index start exists on the chain but is not served as indexed.
    await fails(get('getBlockTransactions', { workchain: -1, shard: MC_SHARD, seqno: from - 1 }), 404, /not found in the index/);
  });

  it('tryLocateTx, tryLocateResultTx, tryLocateSourceTx find both ends of an internal message', async () => {
    const watermark = await stack.indexedAt(UNINDEXED + 4);
    const from = await indexFrom();
    const indexed = ledgerTxs().filter((t) => t.round.mc_seqno >= from && t.round.mc_seqno <= watermark);
    const hashes = new Map(indexed.flatMap((t) => t.out_msgs.map((h) => [h, t] as const)));
    const receiver = indexed.find((t) => t.in_msg !== null && hashes.has(t.in_msg))!;
    expect(receiver, 'an indexed internal message with both ends indexed').toBeDefined();
    const sender = hashes.get(receiver.in_msg!)!;
    const list = await ok<{ data: string }[]>(get('getTransactions', { address: receiver.account, lt: receiver.lt, hash: receiver.hash, limit: 1 }));
    const tx = loadTransaction(Cell.fromBase64(list[0].data).beginParse());
    const info = tx.inMessage!.info;
    if (info.type !== 'internal') throw new Error('expected an internal message');
    const q = { source: info.src.toString(), destination: info.dest.toRawString(), created_lt: info.createdLt.toString() };
    for (const m of ['tryLocateTx', 'tryLocateResultTx']) {
      const r = await ok<{ '@type': string; transaction_id: { hash: string } }>(get(m, q));
      expect(r).toMatchObject({ '@type': 'ext.transaction', transaction_id: { hash: receiver.hash } });
    }
    expect(await ok(get('tryLocateSourceTx', q))).toMatchObject({ transaction_id: { hash: sender.hash } });
    await fails(get('tryLocateTx', { ...q, created_lt: '1' }), 404, /transaction not found/);
    await fails(get('tryLocateSourceTx', { source: q.source, destination: q.destination }), 422, /"created_lt" is required/);
    await fails(get('tryLocateResultTx', { ...q, source: 'nope' }), 422, /parameter "source"/);
  });
});

describe('configuration', () => {
  it('getConfigParam and getConfigAll equal the liteserver config', async () => {
    const config = (await stack.lite.getConfig(await chainLast())).config;
    for (const key of ['config_id', 'param']) {
      const r = await ok<{ '@type': string; config: { '@type': string; bytes: string } }>(get('getConfigParam', { [key]: 34 }));
      expect(r['@type']).toBe('configInfo');
      expect(Cell.fromBase64(r.config.bytes).hash().equals(config.get(34)!.hash())).toBe(true);
    }
    const all = await ok<{ config: { bytes: string } }>(get('getConfigAll'));
    expect(Cell.fromBase64(all.config.bytes).hash().equals(beginCell().storeDictDirect(config).endCell().hash())).toBe(true);
    await fails(get('getConfigParam'), 422, /exactly one of config_id, param/);
    await fails(get('getConfigParam', { config_id: 1, param: 1 }), 422, /exactly one of/);
    await fails(get('getConfigParam', { config_id: -1 }), 422, /parameter "config_id"/);
    await fails(get('getConfigParam', { config_id: 34, seqno: 99_999_999 }), 404, /not found/);
    await fails(get('getConfigParam', { config_id: 9999 }), 404, /config param 9999 not found/);
    await fails(get('getConfigAll', { seqno: 0 }), 422, /parameter "seqno"/);
    await fails(get('getConfigAll', { seqno: 99_999_999 }), 404, /not found/);
  });

  it('getLibraries answers smc.libraryResult; refuses a missing or bad hash', async () => {
    const r = await ok<{ '@type': string; result: unknown[] }>(get('getLibraries', { libraries: Buffer.alloc(32, 7).toString('hex') }));
    expect(r).toEqual({ '@type': 'smc.libraryResult', result: [] });
    await fails(get('getLibraries'), 422, /"libraries" is required/);
    await fails(get('getLibraries', { libraries: 'nothash' }), 422, /parameter "libraries"/);
  });
});

describe('runGetMethod', () => {
  it('runs get-methods with num arguments in every form and answers num, list and cell entries', async () => {
    const { address, keys } = await v4(0);
    const seqno = await ok<{ '@type': string; exit_code: number; stack: [string, string][]; block_id: { workchain: number } }>(post('runGetMethod', { address: address.toString(), method: 'seqno', stack: [] }));
    expect(seqno['@type']).toBe('smc.runResult');
    expect(seqno.exit_code).toBe(0);
    expect(BigInt(seqno.stack[0][1])).toBe(((await chainGet(address, 'seqno')).stack[0] as { value: bigint }).value);
    const key = await ok<{ stack: [string, string][] }>(post('runGetMethod', { address: raw(address), method: 'get_public_key', stack: [] }));
    expect(key.stack[0]).toEqual(['num', `0x${BigInt(`0x${keys.publicKey.toString('hex')}`).toString(16)}`]);
    // is_plugin_installed(wc, hash): the same answer for every num form.
    for (const args of [[['num', '0'], ['num', '0x1234']], [['int', 0], ['number', '4660']], [['integer', '-0x0'], ['num', 4660]]]) {
      const r = await ok<{ exit_code: number; stack: [string, string][] }>(post('runGetMethod', { address: raw(address), method: 'is_plugin_installed', stack: args }));
      expect(r.exit_code).toBe(0);
      expect(r.stack).toEqual([['num', '0x0']]);
    }
    const plugins = await ok<{ stack: unknown[] }>(post('runGetMethod', { address: raw(address), method: 'get_plugin_list', stack: [] }));
    expect(plugins.stack).toEqual([['list', { '@type': 'tvm.list', elements: [] }]]);
    const byId = await ok<{ stack: [string, string][] }>(post('runGetMethod', { address: raw(address), method: 85143, stack: [] }));
    expect(byId.stack).toEqual(seqno.stack);
  });

  it("last_transaction_id is the account's last transaction in the ledger as of the block the method ran at", async () => {
    const seqno = await stack.indexedAt(UNINDEXED + 2);
    // The localnet appends a round to its ledger after the liteserver serves it: the index can hold
    // round `seqno` before the ledger does.
    await eventually(`the ledger at round ${seqno}`, async () => ((stack.ledger().at(-1)?.mc_seqno ?? 0) >= seqno ? true : undefined), 30_000, 100);
    // The newest basechain transaction up to round `seqno` in the chain's own ledger (read with @ton/core).
    const upTo = ledgerTxs().filter((t) => t.round.mc_seqno <= seqno && t.block.workchain === 0);
    const tx = upTo.at(-1)!;
    expect(upTo.filter((t) => t.account === tx.account && BigInt(t.lt) > BigInt(tx.lt))).toEqual([]);
    const r = await ok<{ last_transaction_id: unknown; block_id: { seqno: number } }>(post('runGetMethod', { address: tx.account, method: 'seqno', stack: [], seqno }));
    expect(r.block_id.seqno).toBe(seqno);
    // Which transaction the answer names, and where the ledger has it (ci58 failed here without saying).
    const named = ledgerTxs().find((t) => t.hash === (r.last_transaction_id as { hash?: string }).hash);
    const answered = JSON.stringify({ seqno, ledger_last: { lt: tx.lt, round: tx.round.mc_seqno }, answered: r.last_transaction_id, answered_round: named?.round.mc_seqno ?? 'not in the ledger' });
    expect(r.last_transaction_id, answered).toEqual({ '@type': 'internal.transactionId', lt: tx.lt, hash: tx.hash });
    const rpcAnswer = await rpc(base, 'runGetMethod', { address: tx.account, method: 'seqno', stack: [], seqno }, 3);
    // The whole answers in the messages: a flake here (ci26) must say which side moved.
    const seen = JSON.stringify({ seqno, tx: { account: tx.account, lt: tx.lt, round: tx.round.mc_seqno }, post: r, rpc: rpcAnswer.body }).slice(0, 1500);
    expect(rpcAnswer.status, seen).toBe(200);
    const rpcResult = rpcAnswer.body.result as { last_transaction_id: unknown; block_id: { seqno: number } };
    expect(rpcResult.block_id.seqno, seen).toBe(seqno);
    expect(rpcResult.last_transaction_id, seen).toEqual(r.last_transaction_id);
  });

  it('runGetMethodStd takes and answers tvm.stackEntry objects', async () => {
    const { address } = await v4(0);
    const chainSeqno = ((await chainGet(address, 'seqno')).stack[0] as { value: bigint }).value;
    const r = await ok<{ '@type': string; exit_code: number; stack: unknown[] }>(post('runGetMethodStd', { address: raw(address), method: 'seqno', stack: [] }));
    expect(r).toMatchObject({ '@type': 'smc.runResult', exit_code: 0, stack: [{ '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: chainSeqno.toString() } }] });
    const num = (n: string) => ({ '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: n } });
    const args = await ok<{ stack: unknown[] }>(post('runGetMethodStd', { address: raw(address), method: 'is_plugin_installed', stack: [num('0'), num('4660')] }));
    expect(args.stack).toEqual([num('0')]);
    await fails(post('runGetMethodStd', { address: raw(address), method: 'seqno', stack: [['num', '1']] }), 422, /Unsupported stack entry type/);
  });

  it('passes cells and slices to get-methods and reads cells back (Jetton get_wallet_address)', async () => {
    const minter = await eventually('a Jetton master in the index', async () => {
      const rows = await stack.store.query<{ account: string }>(`SELECT account FROM ${stack.database}.account_states_latest WHERE code_hash = 'BXGXbGPsG3VQIwomCdvts24bZO+NAioWs06lcGMYWy8=' LIMIT 1`);
      return rows[0]?.account;
    }, 90_000, 1_000);
    const owner = beginCell().storeAddress(new Address(0, Buffer.alloc(32, 0x42))).endCell();
    const chain = await chainGet(Address.parseRaw(minter), 'get_wallet_address', [{ type: 'slice', cell: owner }]);
    expect(chain.exitCode).toBe(0);
    const want = (chain.stack[0] as { cell: Cell }).cell;
    for (const arg of [['tvm.Slice', owner.toBoc().toString('base64')], ['slice', { bytes: owner.toBoc().toString('base64') }]]) {
      const r = await ok<{ stack: [string, { bytes: string; object: unknown }][] }>(post('runGetMethod', { address: minter, method: 'get_wallet_address', stack: [arg] }));
      expect(r.stack[0][0]).toBe('cell');
      expect(Cell.fromBase64(r.stack[0][1].bytes).hash().equals(want.hash())).toBe(true);
      expect(r.stack[0][1].object).toMatchObject({ data: { len: want.bits.length } });
    }
  });

  it('refuses bad stacks, a missing method and bad addresses with 422', async () => {
    const a = raw((await v4(0)).address);
    await fails(post('runGetMethod', { address: a, method: 'seqno', stack: [['slice_x', 'AA==']] }), 422, /stack.*Unsupported stack entry type/);
    await fails(post('runGetMethod', { address: a, method: 'seqno', stack: [['num']] }), 422, /Expected 2 elements/);
    await fails(post('runGetMethod', { address: a, method: 'seqno', stack: [['num', 'twelve']] }), 422, /Invalid number/);
    await fails(post('runGetMethod', { address: a, method: 'seqno', stack: [['tvm.Cell', '']] }), 422, /Empty tvm.Cell/);
    await fails(post('runGetMethod', { address: a, method: 'seqno', stack: [['tvm.Cell', 'bm90IGEgYm9j']] }), 422, /bag of cells/);
    await fails(post('runGetMethod', { address: a, method: 'seqno', stack: 'x' }), 422, /"stack"/);
    await fails(post('runGetMethod', { address: a }), 422, /"method" is required/);
    await fails(post('runGetMethod', { method: 'seqno' }), 422, /"address" is required/);
    await fails(post('runGetMethod', { address: 'bad', method: 'seqno' }), 422, /parameter "address"/);
    await fails(post('runGetMethod', { address: a, method: 'seqno', seqno: 99_999_999 }), 404, /not found/);
  });
});

describe('sending and fees', () => {
  it('sendBocReturnHash sends a signed transfer; the hash is the chain transaction in_msg', async () => {
    const dest = new Address(0, Buffer.alloc(32, 0x77));
    const t = await signedTransfer(2, dest, toNano('0.3'));
    const r = await ok<{ '@type': string; hash: string; hash_norm: string }>(post('sendBocReturnHash', { boc: t.message.toBoc().toString('base64') }));
    expect(r['@type']).toBe('raw.extMessageInfo');
    expect(r.hash).toBe(t.message.hash().toString('base64'));
    await waitSeqno(t.address, t.seqno + 1);
    const tx = await eventually('the transaction in the ledger', async () => ledgerTxs().find((x) => x.in_msg === r.hash), 30_000, 300);
    expect(tx.account).toBe(raw(t.address));
    // hash_norm: TEP-467, the message with src addr_none, import_fee 0, no init and the body in a ref.
    const norm = beginCell().storeUint(0b10, 2).storeUint(0, 2).storeAddress(t.address).storeCoins(0).storeBit(0).storeBit(1).storeRef(t.body).endCell();
    expect(r.hash_norm).toBe(norm.hash().toString('base64'));
  });

  it('estimateFee emulates the message: gas and storage fees equal the transaction the chain then makes', async () => {
    const dest = new Address(0, Buffer.alloc(32, 0x78));
    const t = await signedTransfer(2, dest, toNano('0.2'));
    const est = await ok<{ '@type': string; source_fees: { '@type': string; in_fwd_fee: number; storage_fee: number; gas_fee: number; fwd_fee: number }; destination_fees: unknown[] }>(
      post('estimateFee', { address: t.address.toString(), body: t.body.toBoc().toString('base64'), ignore_chksig: false }),
    );
    expect(est['@type']).toBe('query.fees');
    expect(est.source_fees['@type']).toBe('fees');
    await ok(post('sendBoc', { boc: t.message.toBoc().toString('base64') }));
    await waitSeqno(t.address, t.seqno + 1);
    const list = await eventually('the fee transaction in getTransactions', async () => {
      const txs = await ok<{ data: string; in_msg?: { source: string } }[]>(get('getTransactions', { address: raw(t.address), limit: 3 }));
      return txs.map((x) => loadTransaction(Cell.fromBase64(x.data).beginParse())).find((x) => x.inMessage?.body.hash().equals(t.body.hash()));
    }, 60_000, 500);
    const d = list.description;
    if (d.type !== 'generic' || d.computePhase.type !== 'vm') throw new Error('expected an ordinary transaction with a VM compute phase');
    expect(BigInt(est.source_fees.gas_fee)).toBe(d.computePhase.gasFees);
    expect(BigInt(est.source_fees.fwd_fee)).toBe(d.actionPhase?.totalFwdFees ?? 0n);
    expect(est.source_fees.in_fwd_fee).toBeGreaterThan(0);
    await fails(post('estimateFee', { address: t.address.toString(), body: 'not base64!' }), 422, /parameter "body"/);
    await fails(post('estimateFee', { body: t.body.toBoc().toString('base64') }), 422, /"address" is required/);
    await fails(post('estimateFee', { address: t.address.toString(), body: t.body.toBoc().toString('base64'), init_code: t.body.toBoc().toString('base64') }), 422, /init_code and init_data/);
  });

  it('sendQuery builds and sends the external message', async () => {
    const dest = new Address(0, Buffer.alloc(32, 0x79));
    const t = await signedTransfer(1, dest, toNano('0.1'));
    expect(await ok(post('sendQuery', { address: raw(t.address), body: t.body.toBoc().toString('base64') }))).toEqual({ '@type': 'ok' });
    await waitSeqno(t.address, t.seqno + 1);
    await fails(post('sendQuery', { address: raw(t.address) }), 422, /"body" is required/);
    await fails(post('sendQuery', { address: raw(t.address), body: 'bm90IGEgYm9j' }), 422, /parameter "body"/);
    await fails(post('sendQuery', { address: 'nope', body: t.body.toBoc().toString('base64') }), 422, /parameter "address"/);
  });

  it('sendBocReturnHashNoError sends and answers the hashes', async () => {
    const t = await signedTransfer(1, new Address(0, Buffer.alloc(32, 0x7b)), toNano('0.1'));
    const r = await ok<{ '@type': string; hash: string }>(post('sendBocReturnHashNoError', { boc: t.message.toBoc().toString('base64') }));
    expect(r).toMatchObject({ '@type': 'raw.extMessageInfo', hash: t.message.hash().toString('base64') });
    await waitSeqno(t.address, t.seqno + 1);
    await fails(post('sendBocReturnHashNoError', { boc: 'bm90IGEgYm9j' }), 422, /parameter "boc"/);
  });

  it('refuses empty, malformed and internal BoCs with 422 naming boc', async () => {
    for (const m of ['sendBoc', 'sendBocReturnHash', 'sendBocReturnHashNoError']) {
      await fails(post(m, {}), 422, /empty boc/);
      await fails(post(m, { boc: '' }), 422, /empty boc/);
      await fails(post(m, { boc: 'bm90IGEgYm9j' }), 422, /parameter "boc"/);
      await fails(post(m, { boc: beginCell().storeUint(1, 8).endCell().toBoc().toString('base64') }), 422, /"boc": not a message/);
      const someone = new Address(0, Buffer.alloc(32, 3));
      const info = { type: 'internal' as const, ihrDisabled: true, bounce: false, bounced: false, src: someone, dest: someone, value: { coins: 1n }, ihrFee: 0n, forwardFee: 0n, createdLt: 0n, createdAt: 0 };
      const internalMsg = beginCell().store(storeMessage({ info, body: Cell.EMPTY })).endCell();
      await fails(post(m, { boc: internalMsg.toBoc().toString('base64') }), 422, /only external-in/);
      await fails(get(m, { boc: 'x' }), 405, /GET/);
    }
  });
});

describe('v3 legacy endpoints on the same code', () => {
  async function v3(path: string, init?: RequestInit) {
    const res = await fetch(`${base}/api/v3${path}`, init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const postV3 = (path: string, body: unknown) => v3(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('addressInformation and account: the indexed state, or the liteserver with use_v2', async () => {
    const { address } = await v4(0);
    const indexed = (await stack.store.query<{ record: string }>(`SELECT record FROM ${stack.database}.account_states_latest FINAL WHERE account = '${raw(address)}'`))[0];
    for (const path of ['/addressInformation', '/account']) {
      const r = await v3(`${path}?address=${address.toString()}`);
      expect(r.status).toBe(200);
      if (indexed) expect(r.body.status).toBe('active');
      const chain = await stack.lite.getAccountState(address, await chainLast());
      const live = await v3(`${path}?address=${raw(address)}&use_v2=true`);
      expect(live.body).toMatchObject({ status: 'active', balance: chain.balance.coins.toString() });
      expect(await v3(path)).toEqual({ status: 401, body: { error: 'address of account is required' } });
      expect((await v3(`${path}?address=bad`)).status).toBe(422);
    }
    const nobody = await v3(`/addressInformation?address=${raw(new Address(0, Buffer.alloc(32, 0x66)))}`);
    expect(nobody.body).toMatchObject({ balance: '0', status: 'uninit', last_transaction_lt: '0', code: null });
  });

  it('walletInformation and wallet: type, seqno, wallet id; 409 for a contract that is no wallet', async () => {
    const { address } = await v4(0);
    const seqno = ((await chainGet(address, 'seqno')).stack[0] as { value: bigint }).value;
    for (const path of ['/walletInformation', '/wallet']) {
      const r = await v3(`${path}?address=${raw(address)}&use_v2=true`);
      expect(r.body).toMatchObject({ wallet_type: 'wallet v4 r2', seqno: Number(seqno), wallet_id: 698983191, status: 'active' });
      expect((await v3(path)).status).toBe(401);
    }
    const minter = (await stack.store.query<{ account: string }>(`SELECT account FROM ${stack.database}.account_states_latest WHERE code_hash = 'BXGXbGPsG3VQIwomCdvts24bZO+NAioWs06lcGMYWy8=' LIMIT 1`))[0]?.account;
    expect(minter).toBeDefined();
    expect(await v3(`/walletInformation?address=${minter}`)).toEqual({ status: 409, body: { error: 'not a wallet' } });
  });

  it('runGetMethod, message and estimateFee', async () => {
    const { address } = await v4(0);
    const r = await postV3('/runGetMethod', { address: raw(address), method: 'is_plugin_installed', stack: [{ type: 'num', value: '0' }, { type: 'num', value: '0x10' }] });
    expect(r).toEqual({ status: 200, body: { gas_used: 0, exit_code: 0, stack: [{ type: 'num', value: '0x0' }] } });
    const list = await postV3('/runGetMethod', { address: raw(address), method: 'get_plugin_list', stack: [] });
    expect(list.body.stack).toEqual([{ type: 'list', value: [] }]);
    expect((await postV3('/runGetMethod', { method: 'seqno', stack: [] })).status).toBe(401);
    expect((await postV3('/runGetMethod', { address: raw(address), method: 'seqno', stack: [{ type: 'tuple', value: [] }] })).status).toBe(422);

    const dest = new Address(0, Buffer.alloc(32, 0x7a));
    const t = await signedTransfer(1, dest, toNano('0.05'));
    const fee = await postV3('/estimateFee', { address: raw(t.address), body: t.body.toBoc().toString('base64'), ignore_chksig: true });
    expect(fee.status).toBe(200);
    expect((fee.body.source_fees as { gas_fee: number }).gas_fee).toBeGreaterThan(0);
    expect((await postV3('/estimateFee', { address: raw(t.address) })).status).toBe(401);
    const sent = await postV3('/message', { boc: t.message.toBoc().toString('base64') });
    expect(sent).toMatchObject({ status: 200, body: { message_hash: t.message.hash().toString('base64') } });
    await waitSeqno(t.address, t.seqno + 1);
    expect(await postV3('/message', {})).toEqual({ status: 401, body: { error: 'boc is required' } });
    expect((await postV3('/message', { boc: 'bm90IGEgYm9j' })).status).toBe(422);
  });
});
