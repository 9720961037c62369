import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, Cell, Dictionary, loadAccount, loadMessage } from '@ton/core';
import { decodeBlock } from '@tonstream/block';
import { createChain, ROOT_SHARD, type StoredBlock } from '@tonstream/localnet';
import { recordBatch, saveWatermark, type Store, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, startApi } from './api-server.js';
import { type PythonRun, runPython } from './python.js';
import { COMMITS, MC, writeLocalnetStates, writeMainnetBlocks } from './v3-fixture-data.js';
import { sourcesBlock, sourcesTransactions, tongoOracles } from '../support/mainnet-sources.js';

/**
 * The toncenter Python SDK (PyPI `toncenter`, in the project venv) pointed at tonstream: it calls
 * every endpoint through its own methods and parses every answer into its own models
 * (test/python/toncenter_sdk_check.py). Expected values come from the fixtures' own sources:
 * @ton/core reading the fixture BoCs, SOURCES.md, the tongo oracles and the localnet chain's ledger.
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const FIXTURES = join(import.meta.dirname, '../fixtures');
const SCRIPT = 'test/python/toncenter_sdk_check.py';
const database = `tonstream_sdk_${randomBytes(4).toString('hex')}`;

/** Keys of our answers the SDK's models have no field for: `is_nsfw` / `is_scam` of TokenInfo are toncenter's (docs/toncenter-v3.md §3). */
const UNMODELLED_ALLOWED = ['TokenInfo.is_nsfw', 'TokenInfo.is_scam'];

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const upperRaw = (raw: string) => raw.toUpperCase(); // `wc:hex`: only the hex has letters
const shardHex = (shard: bigint) => shard.toString(16).toUpperCase().padStart(16, '0');
/** The root cell's hash of a fixture block file: the block's root_hash (SOURCES.md conventions). */
const rootHash = (file: string) => Cell.fromBoc(readFileSync(join(FIXTURES, 'mainnet/blocks', file)))[0].hash().toString('base64');
const blockId = (file: string) => {
  const b = sourcesBlock(file);
  return { workchain: b.workchain, shard: b.shard.toUpperCase(), seqno: b.seqno, root_hash: rootHash(file), tx_count: b.transactions };
};

const MC_A_FILES = COMMITS[MC.a];
const MC_C_FILE = COMMITS[MC.c][0];

/** A transactions.json entry with its in and out messages as @ton/core reads them from the entry's BoC. */
type CoreMsg = { hash: string; source: string; destination: string; opcode: string | null; bodyHash: string; createdLt: string; createdAt: string; body: Cell };
function entry(category: string) {
  const e = sourcesTransactions().find((x) => x.category === category) as ReturnType<typeof sourcesTransactions>[number] & { boc_base64: string };
  // Transaction: ... ^[ in_msg:(Maybe ^Message) out_msgs:(HashmapE 15 ^Message) ] ...
  const s = Cell.fromBase64(e.boc_base64).refs[0].beginParse();
  const inCell = s.loadBit() ? s.loadRef() : null;
  const outs = s.loadDict(Dictionary.Keys.Uint(15), { serialize: () => undefined, parse: (x) => x.loadRef() });
  return { ...e, in: inCell && internalMsg(inCell), out: [...outs.values()].map(internalMsg) };
}
function internalMsg(cell: Cell): CoreMsg {
  const m = loadMessage(cell.beginParse());
  // Only internal messages are asked about here.
  if (m.info.type !== 'internal') throw new Error(`not an internal message: ${m.info.type}`);
  const body = m.body.beginParse();
  const opcode = body.remainingBits >= 32 ? `0x${body.loadUint(32).toString(16).padStart(8, '0')}` : null;
  const raw = (a: Address) => a.toRawString().toUpperCase();
  return {
    hash: cell.hash().toString('base64'), source: raw(m.info.src), destination: raw(m.info.dest), opcode,
    bodyHash: m.body.hash().toString('base64'), createdLt: m.info.createdLt.toString(), createdAt: String(m.info.createdAt), body: m.body,
  };
}

/**
 * What /decode must say of a jetton transfer body, per @ton/core's reading of it (TEP-74:
 * transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16) destination:MsgAddress
 * response_destination:MsgAddress ...), in toncenter's decoder's JSON shape (docs/toncenter-v3.md §2.9).
 */
function decodedTransfer(body: Cell) {
  const s = body.beginParse();
  expect(s.loadUint(32)).toBe(0x0f8a7ea5);
  const [queryId, amount, destination, response] = [s.loadUintBig(64), s.loadCoins(), s.loadAddress(), s.loadAddress()];
  const address = (a: Address) => ({ internal_address: { '@type': 'addr_std', workchain_id: String(a.workChain), address: a.hash.toString('hex').toUpperCase() } });
  return { '@type': 'jetton_transfer', query_id: queryId.toString(), amount: { value: amount.toString() }, destination: address(destination), response_destination: address(response) };
}

type FixtureState = { status: string; file: string; account: string; last_trans_lt: string };
const STATES = (JSON.parse(readFileSync(join(FIXTURES, 'localnet/account-states.json'), 'utf8')) as { states: FixtureState[] }).states;
/** Balance and active-state data as @ton/core reads a localnet fixture's `account$1` BoC (nonexist: empty file). */
function coreState(f: FixtureState): { balance: bigint; data: Cell | null } {
  const boc = readFileSync(join(FIXTURES, 'localnet', f.file));
  if (boc.length === 0) return { balance: 0n, data: null };
  const slice = Cell.fromBoc(boc)[0].beginParse();
  expect(slice.loadBit()).toBe(true);
  const account = loadAccount(slice);
  const st = account.storage.state;
  return { balance: account.storage.balance.coins, data: st.type === 'active' ? st.state.data ?? null : null };
}

type Known = Record<string, { args: Record<string, unknown>; expect: Record<string, unknown> }>;
type Result = { ok: true; model: string; items: number; unmodelled: string[] } | { ok: false; error: string };

let api: ApiUnderTest;
let results: Record<string, Result>;
let known: Known;
let python: PythonRun;

/** Two rounds of a localnet chain: masterchain blocks 1 and 2 with the shard blocks each commits. */
async function writeLocalnetChain(store: Store): Promise<{ mc: StoredBlock[]; shardsAt2: StoredBlock[] }> {
  const chain = await createChain({ seed: 'tonstream-test:toncenter-sdk', now: 1_700_000_000, shards: 2 });
  await chain.produceRound();
  const mc: StoredBlock[] = [];
  for (const seqno of [1, 2]) {
    const master = chain.getBlock({ workchain: -1, shard: ROOT_SHARD, seqno })!;
    mc.push(master);
    const decoded = [master, ...chain.shardsAt(seqno)!].map((b) => decodeBlock(b.boc, { mcSeqno: seqno }));
    await writeBatch(store, recordBatch({ blocks: decoded.map((d) => d.block), transactions: decoded.flatMap((d) => d.transactions), messages: decoded.flatMap((d) => d.messages) }));
  }
  return { mc, shardsAt2: chain.shardsAt(2)! };
}

function knownValues(localnet: { mc: StoredBlock[]; shardsAt2: StoredBlock[] }): Known {
  const localId = (b: StoredBlock) => ({ workchain: b.id.workchain, shard: shardHex(b.id.shard), seqno: b.id.seqno, root_hash: b64(b.id.rootHash) });
  const transfer = entry('jetton_transfer');
  const burn = entry('jetton_burn');
  const notification = entry('jetton_burn_notification');
  // The burn's out message is the notification's in message (@ton/core reads both BoCs).
  expect(burn.out.map((m) => m.hash)).toContain(notification.in!.hash);
  const mcAOracle = tongoOracles().find((o) => o.block.file === MC_A_FILES[0])!;
  const wallet = STATES.find((s) => s.status === 'active')!;
  const walletData = coreState(wallet).data!.beginParse();
  // wallet v4 r2 data: seqno:uint32 wallet_id:uint32 public_key:bits256 plugins:(HashmapE 256 int1)
  const [walletSeqno, walletId] = [walletData.loadUint(32), walletData.loadUint(32)];
  const byBalance = STATES.map((s) => ({ account: s.account, balance: coreState(s).balance })).sort((a, b) => (a.balance === b.balance ? 0 : a.balance > b.balance ? -1 : 1));
  // Two accounts whose order cannot tie with the third.
  expect(byBalance[1].balance).toBeGreaterThan(byBalance[2].balance);
  const transferBody = transfer.in!.body.toBoc().toString('base64');
  const decoded = { count: 1, items: [{ bodies: [decodedTransfer(transfer.in!.body)] }] };
  return {
    'GET /masterchainInfo': {
      args: {},
      expect: { items: [{ first: localId(localnet.mc[0]), last: { workchain: -1, shard: '8000000000000000', seqno: MC.c, root_hash: rootHash(MC_C_FILE) } }] },
    },
    'GET /blocks': {
      args: { workchain: 0, shard: 'c000000000000000', seqno: 13516764 },
      expect: { count: 1, items: [{ ...blockId(MC_A_FILES[1]), global_id: -239, after_merge: true }] },
    },
    'GET /masterchainBlockShards': { args: { seqno: MC.a }, expect: { count: 3, contains: MC_A_FILES.map(blockId) } },
    'GET /masterchainBlockShardState': { args: { seqno: 2 }, expect: { count: localnet.shardsAt2.length, contains: localnet.shardsAt2.map(localId) } },
    'GET /transactions': {
      args: { hash: transfer.hash_hex },
      expect: { count: 1, items: [{ hash: transfer.hash_base64, lt: transfer.lt, now: transfer.now, account: upperRaw(transfer.account), in_msg: { hash: transfer.in!.hash, opcode: '0x0f8a7ea5' } }] },
    },
    'GET /transactionsByMasterchainBlock': {
      args: { seqno: MC.a, limit: 1000 },
      expect: { count: MC_A_FILES.reduce((n, f) => n + sourcesBlock(f).transactions, 0), contains: mcAOracle.txHashes.map((h) => ({ hash: b64(h) })) },
    },
    'GET /transactionsByMessage': {
      args: { msg_hash: transfer.in!.hash, direction: 'in' },
      expect: { count: 1, items: [{ hash: transfer.hash_base64, in_msg: { hash: transfer.in!.hash } }] },
    },
    'GET /adjacentTransactions': {
      args: { hash: notification.hash_base64, direction: 'in' },
      expect: { count: 1, items: [{ hash: burn.hash_base64, lt: burn.lt }] },
    },
    'GET /messages': {
      args: { msg_hash: [transfer.in!.hash] },
      expect: {
        count: 1,
        items: [{
          hash: transfer.in!.hash, source: transfer.in!.source, destination: transfer.in!.destination, opcode: transfer.in!.opcode,
          created_lt: transfer.in!.createdLt, created_at: transfer.in!.createdAt, in_msg_tx_hash: transfer.hash_base64, message_content: { hash: transfer.in!.bodyHash },
        }],
      },
    },
    'GET /accountStates': {
      args: { address: STATES.map((s) => s.account) },
      expect: { count: STATES.length, contains: STATES.map((s) => ({ address: s.account, status: s.status, balance: coreState(s).balance.toString(), last_transaction_lt: s.last_trans_lt })) },
    },
    'GET /walletStates': {
      args: { address: [wallet.account] },
      expect: { count: 1, items: [{ address: wallet.account, is_wallet: true, wallet_type: 'wallet v4 r2', seqno: walletSeqno, wallet_id: walletId, balance: coreState(wallet).balance.toString() }] },
    },
    'GET /addressBook': {
      args: { address: [wallet.account] },
      // A known wallet's code: non-bounceable (docs/toncenter-v3.md §3 AddressBookRow).
      expect: { count: 1, items: [{ key: wallet.account, user_friendly: Address.parse(wallet.account).toString({ bounceable: false, urlSafe: true }) }] },
    },
    // Only token contracts appear (docs/toncenter-v3.md §2.2) and none is indexed: the SDK must parse `{}`.
    'GET /metadata': { args: { address: [wallet.account] }, expect: { count: 0 } },
    'GET /topAccountsByBalance': { args: { limit: 2 }, expect: { items: byBalance.slice(0, 2).map((x) => ({ account: x.account, balance: x.balance.toString() })) } },
    // The name docs/toncenter-v3.md §2.9 gives for 0x0f8a7ea5.
    'GET /decode': { args: { opcodes: [transfer.in!.opcode!], bodies: [transferBody] }, expect: { count: 1, items: [{ opcodes: ['jetton_transfer'], bodies: decoded.items[0].bodies }] } },
    // Bodies alone: the SDK's DecodeRequest sends `"opcodes": null`, which toncenter takes as absent.
    'POST /decode': { args: { bodies: [transferBody] }, expect: decoded },
  };
}

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  const mcBlocks = await writeMainnetBlocks(api.store);
  // The localnet states were taken at its masterchain block 7 (account-states.json `asked_at`).
  await writeLocalnetStates(api.store, 7);
  await saveWatermark(api.store, { mc_seqno: MC.c, gen_utime: Number(mcBlocks[MC.c].gen_utime) });
  known = knownValues(await writeLocalnetChain(api.store));
  await new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache
  const dir = mkdtempSync(join(tmpdir(), 'tonstream-sdk-'));
  try {
    writeFileSync(join(dir, 'known.json'), JSON.stringify(known));
    python = await runPython([SCRIPT, api.base, join(dir, 'known.json')]);
    const last = python.stdout.trim().split('\n').pop() ?? '';
    if (!last.startsWith('{')) throw new Error(`${SCRIPT} printed no results (exit ${python.code}): ${python.stderr.slice(-2000)}`);
    results = JSON.parse(last) as Record<string, Result>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);

afterAll(() => api?.stop());

describe('the toncenter Python SDK against tonstream', () => {
  it('the script covers every endpoint of the issue and exits 0 only when all pass', () => {
    expect(Object.keys(results).sort()).toEqual(Object.keys(known).sort());
    const failed = Object.entries(results).filter(([, r]) => !r.ok);
    expect(python.code, python.stderr).toBe(failed.length === 0 ? 0 : 1);
    for (const [endpoint] of failed) expect(python.stderr).toContain(endpoint);
  });

  const MODELS: Record<string, string> = {
    'GET /masterchainInfo': 'MasterchainInfo',
    'GET /blocks': 'BlocksResponse',
    'GET /masterchainBlockShards': 'BlocksResponse',
    'GET /masterchainBlockShardState': 'BlocksResponse',
    'GET /transactions': 'TransactionsResponse',
    'GET /transactionsByMasterchainBlock': 'TransactionsResponse',
    'GET /transactionsByMessage': 'TransactionsResponse',
    'GET /adjacentTransactions': 'TransactionsResponse',
    'GET /messages': 'MessagesResponse',
    'GET /accountStates': 'AccountStatesResponse',
    'GET /walletStates': 'WalletStatesResponse',
    'GET /addressBook': 'AddressBook',
    'GET /metadata': 'Metadata',
    'GET /topAccountsByBalance': 'list[AccountBalance]',
    'GET /decode': 'DecodeResponse',
    'POST /decode': 'DecodeResponse',
  };
  for (const [endpoint, model] of Object.entries(MODELS)) {
    it(`${endpoint}: parsed into ${model} (also strictly), with the expected values, no misnamed keys`, () => {
      const r = results[endpoint];
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, model });
      if (!r.ok) return;
      const count = known[endpoint].expect.count as number | undefined;
      if (count !== undefined) expect(r.items).toBe(count);
      for (const key of r.unmodelled) expect(UNMODELLED_ALLOWED, `${endpoint} sends ${key}`).toContain(key);
    });
  }
});
