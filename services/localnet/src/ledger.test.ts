import { decodeBlock } from '@tonstream/block';
import { createChain, createTraffic } from '@tonstream/localnet';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address } from '@ton/core';
import { PREFUNDED_BALANCE, PREFUNDED_WALLETS } from '@tonstream/localnet';
import { catchUpLedger, createAccountLedger, type LedgerAccount, ledgerRound } from './ledger.js';

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
    expect(await catchUpLedger(path, chain)).toBe(3);
    expect(await catchUpLedger(path, chain)).toBe(0);
    const rounds = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { mc_seqno: number; blocks: unknown[] });
    expect(rounds.map((r) => r.mc_seqno)).toEqual([1, 2, 3]);
    expect(rounds.every((r) => r.blocks.length === 3)).toBe(true);
  });

  it('with accounts: the first line lists every account, later lines what the round changed, each as the chain answers getAccountState', async () => {
    const chain = await createChain({ seed: 'ledger-accounts', roundMs: 1000, shards: 2 });
    const traffic = await createTraffic(chain, { seed: 'ledger-accounts', ratePerRound: 6 });
    const ledger = createAccountLedger(chain);
    const path = join(mkdtempSync(join(tmpdir(), 'ledger-')), 'ledger.jsonl');
    await catchUpLedger(path, chain, ledger);
    const first = JSON.parse(readFileSync(path, 'utf8')) as { accounts: LedgerAccount[] };
    for (const w of PREFUNDED_WALLETS) expect(first.accounts.find((a) => a.address === w.address.toUpperCase())).toMatchObject({ status: 'active', balance: PREFUNDED_BALANCE.toString(), last_trans_lt: '0' });
    const folded = new Map(first.accounts.map((a) => [a.address, a]));
    for (let round = 0; round < 4; round++) {
      const r = await traffic.step();
      const line = ledgerRound(r, 1, await ledger.changed(r));
      const touched = new Set([...r.shards, r.mc].flatMap((b) => b.transactions.map((t) => t.account.toUpperCase())));
      // Every account a transaction touched is listed (its lt moved), unless it is none before and after (a bounce from an unused address).
      for (const account of touched) {
        const exists = (await chain.getAccountState(Address.parseRaw(account))).status !== 'nonexist';
        expect(line.accounts!.some((a) => a.address === account), account).toBe(exists || folded.has(account));
      }
      for (const a of line.accounts!) folded.set(a.address, a);
    }
    // The fold equals the chain's own answers at the head.
    for (const [address, a] of folded) {
      const st = await chain.getAccountState(Address.parseRaw(address));
      expect({ status: st.status, balance: st.balance.toString(), lt: st.lastTxLt.toString() }, address).toEqual({ status: a.status, balance: a.balance, lt: a.last_trans_lt });
    }
    expect(folded.size).toBeGreaterThan(PREFUNDED_WALLETS.length + 2);
  }, 120_000);
});
