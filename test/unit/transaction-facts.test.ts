import { decodeBlock } from '@tonstream/block';
import { type MessageRow, type TransactionRecord, transactionRow } from '@tonstream/records';
import { batchRows, recordBatch } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { fixtureBlocks } from '../../packages/block/src/test-support/fixtures.js';
import { derivesFromBoc, type MessageColumns, messageTransactionKey, readsExtraFlags, storedMessage, storedTransaction, type TransactionColumns, wholeMessages } from '../../packages/store/src/transaction-facts.js';

/** Every fixture block decoded as the decoder publishes it. */
const decoded = fixtureBlocks().map(({ name, bytes }) => {
  const block = decodeBlock(bytes);
  // The pipeline always knows the committing masterchain block (the fetcher's mc_seqno); a shard block alone does not.
  return { name, ...(block.block.mc_block_seqno === null ? decodeBlock(bytes, { mcSeqno: 1 }) : block) };
});

/** A row as ClickHouse returns it in JSON: 64-bit and unsigned columns as text. */
function asRead(row: Record<string, unknown>): TransactionColumns {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v])) as TransactionColumns;
}

describe('transactions stored as their BoC (migration 18)', () => {
  it('stores no record text for a decoded transaction, and the row gives back the record, messages whole', () => {
    let count = 0;
    for (const block of decoded) {
      const { transactions } = batchRows(recordBatch({ transactions: block.transactions, messages: block.messages }));
      block.transactions.forEach((t, i) => {
        const row = transactions[i];
        expect(row.record, `${block.name} ${t.lt}`).toBe('');
        expect(row.boc).toBe(t.boc);
        const back = storedTransaction(asRead(row)) as TransactionRecord;
        expect(back, `${block.name} ${t.lt}`).toEqual(t);
        // The decoder's message rows of this transaction, independently of the store.
        const own = block.messages.filter((m) => m.tx_hash === t.hash);
        expect(wholeMessages(back)?.sort(byKey)).toEqual(own.sort(byKey));
        count++;
      });
    }
    expect(count).toBeGreaterThan(2000);
  });

  it('keeps the record text when the BoC does not give the record: another value, no global version, no masterchain seqno, no BoC', () => {
    const t = decoded.find((b) => b.transactions.length > 0)!.transactions[0];
    const row = transactionRow(t);
    expect(derivesFromBoc(row)).toBe(true);
    expect(derivesFromBoc({ ...row, now: row.now + 1 })).toBe(false);
    expect(derivesFromBoc({ ...row, account: row.account.replace(/.$/, (c) => (c === '0' ? '1' : '0')) })).toBe(false);
    const { global_version: _v, ...older } = row;
    expect(derivesFromBoc(older)).toBe(false);
    expect(derivesFromBoc({ ...row, mc_block_seqno: null })).toBe(false);
    const { boc: _b, ...noBoc } = row;
    expect(derivesFromBoc(noBoc)).toBe(false);
    expect(derivesFromBoc({ ...row, boc: Buffer.from('not a boc').toString('base64') })).toBe(false);

    const [stored] = batchRows(recordBatch({ transactions: [{ ...row, now: row.now + 1 }] })).transactions;
    expect(JSON.parse(stored.record as string)).toEqual({ ...transactionRow(t), now: row.now + 1, boc: undefined });
    expect(storedTransaction(asRead(stored))).toEqual({ ...transactionRow(t), now: row.now + 1 });
  });

  it('stores no record text for a message row, and its transaction\'s BoC gives the record back, fee bits read as the row says', () => {
    let checked = 0;
    for (const block of decoded) {
      const { messages, transactions } = batchRows(recordBatch({ transactions: block.transactions, messages: block.messages }));
      const txRows = new Map(transactions.map((t) => [`${t.account} ${t.lt}`, asRead(t)]));
      block.messages.forEach((m, i) => {
        const row = messages[i];
        expect(row.record).toBe('');
        const columns = asRead(row) as unknown as MessageColumns;
        const key = messageTransactionKey(columns);
        expect(storedMessage(columns, txRows.get(`${key.account} ${key.lt}`)), `${block.name} ${m.hash}`).toEqual(m);
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(4000);
    // Both readings occur among the fixtures (global versions 3 to 13).
    const flags = decoded.flatMap((b) => b.messages.map(readsExtraFlags));
    expect(new Set(flags)).toEqual(new Set([0, 1]));
  });

  it('keeps the record text of a message from a decoder older than extra_flags (its transaction may have no BoC)', () => {
    const m = decoded.find((b) => b.messages.length > 0)!.messages[0];
    const { extra_flags: _f, ...older } = m;
    const [row] = batchRows(recordBatch({ messages: [older] })).messages;
    expect(JSON.parse(row.record as string)).toEqual(older);
    expect(storedMessage(asRead(row) as unknown as MessageColumns, undefined)).toEqual(older);
  });
});

const byKey = (a: MessageRow, b: MessageRow) => (`${a.direction}${a.hash}` < `${b.direction}${b.hash}` ? -1 : 1);
