/**
 * Makes test/fixtures/localnet/account-states/: one account state per status (active, frozen,
 * uninit, nonexist), made by real transactions on the local TON network (packages/localnet, the
 * @ton/sandbox emulator) and read over its emulated liteserver with the unmodified ton-lite-client,
 * as the fetcher reads them. The same chain seed and time give the same bytes.
 * How to run it: test/fixtures/localnet/SOURCES.md.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Address, beginCell, type Cell, contractAddress, external, internal, type MessageRelaxed, SendMode, storeMessage, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { type BlockIdExt, type Chain, createChain, type TxRecord } from '@tonstream/localnet';
import { connect, serve } from '@tonstream/localnet-service/dist/test-support/harness.js';
import type { LiteClient } from 'ton-lite-client';

/**
 * A round is 30 days of chain time: storage fees only reach the freeze limit (0.1 TON due on the
 * basechain, config param 21) after months, even for the large state below.
 */
const ROUND_S = 30 * 86_400;
const CHAIN = { seed: 'tonstream-fixtures:account-states', now: 1_700_000_000, roundMs: ROUND_S * 1000, shards: 2 };

/**
 * TVM code `c4 PUSH; NEWC; STREF; ENDC; c4 POP`: every message wraps the data in a new cell. The
 * state then differs from the StateInit that gave the address, which is what keeps a frozen account
 * frozen: one whose frozen state hash equals its address is stored as uninit instead.
 */
const WRAP_DATA_CODE = beginCell().storeBuffer(Buffer.from('ED44C8CCC9ED54', 'hex')).endCell();
/** Cells of the hoarder's data: 1,000 cells of 1,016 bits cost about 23 nanoton a second. */
const HOARDER_CELLS = 1000;

type Made = { status: 'active' | 'frozen' | 'uninit' | 'nonexist'; address: Address; what: string };

async function main(): Promise<void> {
  const outDir = resolve(process.argv[2] ?? 'test/fixtures/localnet');
  const chain = await createChain(CHAIN);
  const keys = keyPairFromSeed(createHash('sha256').update('tonstream-fixtures:wallet').digest());
  const wallet = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  const hoarder = { code: WRAP_DATA_CODE, data: dataTree(HOARDER_CELLS, { next: 0 }) };
  const nobody = contractAddress(0, { code: WRAP_DATA_CODE, data: beginCell().storeUint(1, 8).endCell() });
  const newcomer = contractAddress(0, { code: WRAP_DATA_CODE, data: beginCell().storeUint(2, 8).endCell() });
  const transfer = walletTransfer(chain, wallet, keys.secretKey);

  await chain.fund(wallet.address, toNano(1000));
  await transfer(0, [
    internal({ to: contractAddress(0, hoarder), value: toNano('0.05'), bounce: false, init: hoarder }),
    internal({ to: nobody, value: toNano('0.5'), bounce: true }),
    internal({ to: newcomer, value: toNano('0.5'), bounce: false }),
  ]);
  const blocks = await produceRounds(chain, 3);
  // Three rounds (90 days) after its deploy the hoarder owes more than the freeze limit.
  await transfer(1, [internal({ to: contractAddress(0, hoarder), value: toNano('0.01'), bounce: true })]);
  blocks.push(...(await produceRounds(chain, 3)));

  const made: Made[] = [
    { status: 'active', address: wallet.address, what: 'wallet v4r2 funded with 1000 TON; its first external deployed it and sent the three transfers that made the frozen, uninit and nonexist accounts below; a second external sent the 0.01 TON that froze the frozen one, whose bounce is its last transaction' },
    { status: 'frozen', address: contractAddress(0, hoarder), what: `deployed with ${HOARDER_CELLS} data cells and 0.05 TON; 90 days later a bounceable 0.01 TON message found it owing more than the freeze limit` },
    { status: 'uninit', address: newcomer, what: 'never deployed; received a non-bounceable 0.5 TON transfer' },
    { status: 'nonexist', address: nobody, what: 'never deployed; received a bounceable 0.5 TON transfer, which bounced back, so no account was created' },
  ];
  await writeFixtures(outDir, chain, made, blocks.flatMap((b) => b.transactions));
}

/** A tree of `cells` distinct cells (a counter in each), at most 4 refs per cell, so it stays shallow. */
function dataTree(cells: number, counter: { next: number }): Cell {
  const b = beginCell().storeUint(counter.next++, 32).storeBuffer(Buffer.alloc(123, 0xa5));
  let rest = cells - 1;
  const perRef = Math.ceil(rest / 4);
  while (rest > 0) {
    const n = Math.min(perRef, rest);
    b.storeRef(dataTree(n, counter));
    rest -= n;
  }
  return b.endCell();
}

/** Signs a wallet external for the next round; the first one (seqno 0) deploys the wallet. */
function walletTransfer(chain: Chain, wallet: WalletContractV4, secretKey: Buffer) {
  return async (seqno: number, messages: MessageRelaxed[]) => {
    // Valid until the round after the next: rounds are 30 days apart.
    const timeout = chain.getBlock(chain.head())!.genUtime + 2 * ROUND_S;
    const body = wallet.createTransfer({ seqno, secretKey, messages, sendMode: SendMode.PAY_GAS_SEPARATELY, timeout });
    const message = external({ to: wallet.address, init: seqno === 0 ? wallet.init : undefined, body });
    chain.submitExternal(beginCell().store(storeMessage(message)).endCell().toBoc());
  };
}

async function produceRounds(chain: Chain, rounds: number) {
  const blocks = [];
  for (let i = 0; i < rounds; i++) {
    const r = await chain.produceRound();
    if (r.rejected.length > 0) throw new Error(`round ${r.mc.id.seqno} rejected ${JSON.stringify(r.rejected)}`);
    blocks.push(...r.shards, r.mc);
  }
  return blocks;
}

/** Asks the liteserver for each state at the head and writes the `state` bytes it answers, plus an index. */
async function writeFixtures(outDir: string, chain: Chain, made: Made[], transactions: TxRecord[]): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'localnet-fixtures-'));
  const served = await serve(chain, tmp);
  const { client, engine } = await connect(served.configPath);
  try {
    const head = (await client.getMasterchainInfo()).last;
    await mkdir(join(outDir, 'account-states'), { recursive: true });
    const states = [];
    for (const m of made) {
      const answer = await client.getAccountStateRaw(m.address, head);
      const status = answer.state === null ? 'nonexist' : answer.state.storage.state.type;
      if (status !== m.status) throw new Error(`${m.address.toRawString()} is ${status}, not ${m.status}`);
      const last = lastTransaction(transactions, m.address);
      if (answer.lastTx && (answer.lastTx.lt !== last.lt || answer.lastTx.hash.toString(16).padStart(64, '0') !== last.hash)) {
        throw new Error(`the state proof's last transaction of ${m.address.toRawString()} is not the chain's`);
      }
      const file = `account-states/${m.status}.boc`;
      await writeFile(join(outDir, file), answer.raw);
      states.push({ status: m.status, file, account: rawUpper(m.address), what: m.what, last_trans_lt: last.lt.toString(), last_trans_hash_hex: last.hash, last_trans_block: blockId(last.block) });
    }
    const index = { made_by: 'test/support/make-localnet-account-states.ts', chain: CHAIN, asked_at: tlBlockId(head), states };
    await writeFile(join(outDir, 'account-states.json'), JSON.stringify(index, null, 2) + '\n');
  } finally {
    engine.close();
    await served.close();
    await rm(tmp, { recursive: true, force: true });
  }
}

function lastTransaction(transactions: TxRecord[], address: Address): TxRecord {
  const own = transactions.filter((t) => t.workchain === address.workChain && t.addressHash === address.hash.toString('hex'));
  if (own.length === 0) throw new Error(`no transaction of ${address.toRawString()}`);
  return own.reduce((a, b) => (b.lt > a.lt ? b : a));
}

const rawUpper = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
const blockId = (b: BlockIdExt) => ({ workchain: b.workchain, shard: b.shard.toString(16).padStart(16, '0'), seqno: b.seqno, root_hash: b.rootHash, file_hash: b.fileHash });
const tlBlockId = (b: Awaited<ReturnType<LiteClient['getMasterchainInfo']>>['last']) => ({
  workchain: b.workchain,
  shard: BigInt.asUintN(64, BigInt(b.shard)).toString(16).padStart(16, '0'),
  seqno: b.seqno,
  root_hash: b.rootHash.toString('hex'),
  file_hash: b.fileHash.toString('hex'),
});

await main();
