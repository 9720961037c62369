import { beginCell, Cell, loadTransaction } from '@ton/core';
import { BocError, TlbError } from '../boc/errors.js';
import { parseBoc } from '../boc/parse-boc.js';
import { loadBlock } from '../tlb/block.js';
import { describe, expect, it } from 'vitest';
import { fixtureBlocks, fixtureTransactions, readFixture } from '../test-support/fixtures.js';
import { decodeBlock, transactionFromBoc } from './normalize-block.js';

describe('transaction records carry the transaction cell as a BoC (v2 getTransactions `data`)', () => {
  it('equals the cell of transactions.json (extracted independently) for every listed transaction', () => {
    const fixtures = fixtureTransactions();
    expect(fixtures.length).toBeGreaterThan(0);
    const byFile = new Map<string, ReturnType<typeof decodeBlock>['transactions']>();
    for (const f of fixtures) {
      if (!byFile.has(f.block_file)) byFile.set(f.block_file, decodeBlock(readFixture(f.block_file)).transactions);
      const record = byFile.get(f.block_file)!.find((t) => t.lt === f.lt && t.account === f.account.toUpperCase())!;
      expect(record, `${f.account} ${f.lt}`).toBeDefined();
      const ours = Cell.fromBase64(record.boc!);
      expect(ours.hash().toString('hex')).toBe(f.hash_hex);
      expect(ours.equals(Cell.fromBase64(f.boc_base64))).toBe(true);
    }
  });

  it('parses with @ton/core for every transaction of every fixture block, hash and lt as the record says', () => {
    let count = 0;
    for (const { name, bytes } of fixtureBlocks()) {
      for (const t of decodeBlock(bytes).transactions) {
        const [cell, ...more] = Cell.fromBoc(Buffer.from(t.boc!, 'base64'));
        expect(more, name).toHaveLength(0);
        expect(cell.hash().toString('base64'), `${name} ${t.lt}`).toBe(t.hash);
        expect(loadTransaction(cell.beginParse()).lt.toString()).toBe(t.lt);
        count++;
      }
    }
    expect(count).toBeGreaterThan(2000);
  });
});

describe('transactionFromBoc: the record again from the BoC and its block context', () => {
  it('gives the record decodeBlock gave, messages included, for every transaction of every fixture block', () => {
    let count = 0;
    for (const { name, bytes } of fixtureBlocks()) {
      const decoded = decodeBlock(bytes);
      const globalVersion = loadBlock(parseBoc(bytes)).info.genSoftware?.version ?? null;
      for (const t of decoded.transactions) {
        expect(t.global_version).toBe(globalVersion);
        const again = transactionFromBoc(t.boc!, { account: t.account, blockRef: t.block_ref, mcSeqno: t.mc_block_seqno, globalVersion });
        expect(again, `${name} ${t.lt}`).toEqual(t);
        // With its hash known (a stored row's key), the same record: the BoC given is the BoC it would write.
        expect(transactionFromBoc(t.boc!, { account: t.account, blockRef: t.block_ref, mcSeqno: t.mc_block_seqno, globalVersion, hash: t.hash }), `${name} ${t.lt}`).toEqual(t);
        count++;
      }
    }
    expect(count).toBeGreaterThan(2000);
  });

  it('refuses what is not a transaction BoC with the block package\'s own errors', () => {
    const context = { account: '0:00', blockRef: { workchain: 0, shard: '8000000000000000', seqno: 1 }, mcSeqno: 1 };
    expect(() => transactionFromBoc(Buffer.from('not a boc').toString('base64'), context)).toThrow(BocError);
    expect(() => transactionFromBoc(beginCell().storeUint(5, 8).endCell().toBoc().toString('base64'), context)).toThrow(TlbError);
  });
});
