import { decodeBlock } from '@tonstream/block';
import { createChain, createTraffic } from '@tonstream/localnet';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catchUpLedger, ledgerRound } from './ledger.js';

describe('ledgerRound()', () => {
  it('records every block, transaction and message, agreeing with the tonstream decoder', async () => {
    const chain = await createChain({ seed: 'ledger-test', roundMs: 1000, shards: 2 });
    const traffic = await createTraffic(chain, { seed: 'ledger-test', ratePerRound: 10 });
    let txs = 0;
    let msgs = 0;
    for (let round = 0; round < 4; round++) {
      const r = await traffic.step();
      const entry = ledgerRound(r, 123);
      expect(entry.mc_seqno).toBe(r.mc.id.seqno);
      expect(entry.blocks.map((b) => b.seqno)).toEqual([...r.shards, r.mc].map((b) => b.id.seqno));
      for (const [k, stored] of [...r.shards, r.mc].entries()) {
        const decoded = decodeBlock(stored.boc);
        const fromLedger = entry.blocks[k].transactions;
        expect(fromLedger.map((t) => t.hash).sort()).toEqual(decoded.transactions.map((t) => t.hash).sort());
        expect(entry.blocks[k].root_hash).toBe(decoded.block.root_hash);
        for (const t of decoded.transactions) {
          const l = fromLedger.find((x) => x.hash === t.hash)!;
          expect(l.in_msg).toBe(t.in_msg?.hash ?? null);
          expect([...l.out_msgs].sort()).toEqual(t.out_msgs.map((m) => m.hash).sort());
          expect(l.account).toBe(t.account);
          msgs += (l.in_msg ? 1 : 0) + l.out_msgs.length;
        }
        txs += fromLedger.length;
      }
    }
    expect(txs).toBeGreaterThan(10);
    expect(msgs).toBeGreaterThan(txs);
  }, 120_000);

  it('catches up with the rounds a chain holds but the ledger lacks, starting with the key block', async () => {
    const chain = await createChain({ seed: 'ledger-catch-up', roundMs: 1000, shards: 2 });
    await chain.produceRound();
    await chain.produceRound();
    const path = join(mkdtempSync(join(tmpdir(), 'ledger-')), 'ledger.jsonl');
    expect(catchUpLedger(path, chain)).toBe(3);
    expect(catchUpLedger(path, chain)).toBe(0);
    const rounds = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { mc_seqno: number; blocks: unknown[] });
    expect(rounds.map((r) => r.mc_seqno)).toEqual([1, 2, 3]);
    expect(rounds.every((r) => r.blocks.length === 3)).toBe(true);
  });
});
