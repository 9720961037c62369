import { beginCell, Cell, loadTransaction, storeMessage } from '@ton/core';
import { decodeBlock, transactionFromBoc } from '@tonstream/block';
import { type MessageRow, type TransactionRow, transactionRow } from '@tonstream/records';
import type { RecordBatch } from '@tonstream/store';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChainOptions, generateChain, loadTemplates, type Templates } from '../bench/api-bench-chain.js';
import { ROOT } from '../support/processes.js';

const OPTIONS: ChainOptions = { seed: 7, mcBlocks: 30, shardTxPerMc: 30, accounts: 250, zipfExponent: 1, firstMcSeqno: 1_000, firstUtime: 1_750_000_000, mcBlocksPerBatch: 7 };
const ZERO_HASH = Buffer.alloc(32).toString('base64');

/** The message row without what says which transaction it belongs to. */
const messageFact = ({ direction: _d, tx_hash: _h, tx_lt: _l, mc_block_seqno: _s, ...fact }: MessageRow) => fact;

describe('the synthetic chain of the benches: every transaction is the real cell of its rewritten transaction', () => {
  let templates: Templates;
  let batches: RecordBatch[];
  let txs: TransactionRow[];
  let messages: MessageRow[];

  beforeAll(() => {
    templates = loadTemplates();
    batches = [...generateChain(templates, OPTIONS)];
    txs = batches.flatMap((b) => b.transactions.map((t) => t.record));
    messages = batches.flatMap((b) => b.messages.map((m) => m.record));
    // Decoding every fixture block and building a thousand cells can wait long for a core on a loaded machine.
  }, 120_000);

  it('keeps the shape: the transactions asked for, masterchain ones, every account with a state', () => {
    expect(txs).toHaveLength(OPTIONS.mcBlocks * (OPTIONS.shardTxPerMc + 3));
    expect(txs.filter((t) => t.account.startsWith('-1:'))).toHaveLength(OPTIONS.mcBlocks * 3);
    const withState = new Set(batches.flatMap((b) => b.accountStates.map((s) => s.record.account)).filter((a) => a.startsWith('0:')));
    expect(withState.size).toBe(OPTIONS.accounts);
    expect(batches).toHaveLength(Math.ceil(OPTIONS.mcBlocks / OPTIONS.mcBlocksPerBatch));
  });

  // Most of those left out are one block's mass deploy whose messages keep a body and init that would fit inline in references.
  it('leaves out only the fixture transactions that @ton/core does not build again to the same cell', () => {
    let fixtures = 0;
    for (const file of readdirSync(join(ROOT, 'test/fixtures/mainnet/blocks'))) fixtures += decodeBlock(readFileSync(join(ROOT, 'test/fixtures/mainnet/blocks', file))).transactions.length;
    const kept = templates.shardTxs.length + templates.mcTxs.length;
    expect(kept).toBeLessThanOrEqual(fixtures);
    expect(kept).toBeGreaterThan(fixtures * 0.8);
  });

  it("gives each transaction the record transactionFromBoc derives from its own BoC, its messages' rows included", () => {
    const rowsOf = new Map<string, MessageRow[]>();
    for (const m of messages) rowsOf.set(m.tx_hash, [...(rowsOf.get(m.tx_hash) ?? []), m]);
    for (const t of txs) {
      const record = transactionFromBoc(t.boc!, { account: t.account, blockRef: t.block_ref, mcSeqno: t.mc_block_seqno, globalVersion: templates.globalVersion });
      expect(transactionRow(record)).toEqual(t);
      const ids = { tx_hash: t.hash, tx_lt: t.lt, mc_block_seqno: t.mc_block_seqno };
      const expected = [...(record.in_msg ? [{ ...record.in_msg, direction: 'in', ...ids }] : []), ...record.out_msgs.map((m) => ({ ...m, direction: 'out', ...ids }))];
      expect(rowsOf.get(t.hash) ?? []).toEqual(expected);
    }
  });

  it('names each transaction and message by the hash of its cell, as @ton/core reads the BoC', () => {
    for (const t of txs) {
      const cell = Cell.fromBase64(t.boc!);
      expect(cell.hash().toString('base64')).toBe(t.hash);
      const tx = loadTransaction(cell.beginParse());
      expect(`${t.account.split(':')[0]}:${tx.address.toString(16).padStart(64, '0').toUpperCase()}`).toBe(t.account);
      expect([tx.lt.toString(), tx.now, tx.prevTransactionLt.toString()]).toEqual([t.lt, t.now, t.prev_trans_lt]);
      const hashOf = (m: Parameters<typeof storeMessage>[0]) => beginCell().store(storeMessage(m)).endCell().hash().toString('base64');
      expect(tx.inMessage ? hashOf(tx.inMessage) : null).toBe(t.in_msg?.hash ?? null);
      expect(tx.outMessages.values().map(hashOf).sort()).toEqual(t.out_msgs.map((m) => m.hash).sort());
    }
  });

  it("receives a message as the very message its sender sent: one hash, one record but for the transaction's fields", () => {
    const sent = new Map(messages.filter((m) => m.direction === 'out').map((m) => [m.hash, m]));
    const txByHash = new Map(txs.map((t) => [t.hash, t]));
    let received = 0;
    for (const m of messages.filter((r) => r.direction === 'in' && r.source !== null)) {
      const out = sent.get(m.hash);
      if (!out) continue;
      received++;
      expect(messageFact(m)).toEqual(messageFact(out));
      expect(txByHash.get(m.tx_hash)!.account).toBe(out.destination);
      expect(txByHash.get(out.tx_hash)!.account).toBe(out.source);
      expect(BigInt(out.tx_lt)).toBeLessThan(BigInt(m.tx_lt));
    }
    expect(received).toBeGreaterThan(txs.length / 4);
  });

  it("links each account's transactions: prev hash and lt, and state hashes, of the one before", () => {
    const last = new Map<string, TransactionRow>();
    for (const t of [...txs].sort((a, b) => (BigInt(a.lt) < BigInt(b.lt) ? -1 : 1))) {
      const prev = last.get(t.account);
      expect([t.prev_trans_hash, t.prev_trans_lt]).toEqual(prev ? [prev.hash, prev.lt] : [ZERO_HASH, '0']);
      if (prev) expect(t.account_state_hash_before).toBe(prev.account_state_hash_after);
      last.set(t.account, t);
    }
    // A stored state is the account's after its last transaction so far.
    const txByHash = new Map(txs.map((t) => [t.hash, t]));
    for (const s of batches.flatMap((x) => x.accountStates.map((r) => r.record))) {
      const tx = txByHash.get(s.last_trans_hash)!;
      expect([tx.account, tx.lt, tx.account_state_hash_after]).toEqual([s.account, s.last_trans_lt, s.account_state_hash]);
    }
  });

  it('gives no two transactions the same BoC', () => {
    expect(new Set(txs.map((t) => t.boc)).size).toBe(txs.length);
  });

  it('is deterministic: the same options give the same chain (a shorter one, its beginning)', () => {
    const again = [...generateChain(templates, { ...OPTIONS, mcBlocks: 10 })].flatMap((b) => b.transactions.map((t) => t.json));
    expect(again).toEqual(batches.flatMap((b) => b.transactions.map((t) => t.json)).slice(0, 10 * (OPTIONS.shardTxPerMc + 3)));
  });
});
