import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, Cell } from '@ton/core';
import { TonClient } from '@ton/ton';
import { saveWatermark, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, okJson, startApi } from './api-server.js';
import { MC, writeMainnetBlocks } from './v3-fixture-data.js';

/**
 * Issue 11: v2 getTransactions' `data` (the transaction's BoC) comes from the index, so history older
 * than a liteserver keeps still parses in @ton/ton's TonClient. The API here has no liteserver at all:
 * every BoC it serves is the index's. Checked against transactions.json's cells (extracted from the
 * fixture blocks independently of our decoder) and @ton/core's own hashing.
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_v2_bocs_${randomBytes(4).toString('hex')}`;
const FIXTURES = join(import.meta.dirname, '../fixtures/mainnet');

type FixtureTx = { account: string; lt: string; hash_hex: string; boc_base64: string };
const FIXTURE_TXS = (JSON.parse(readFileSync(join(FIXTURES, 'transactions.json'), 'utf8')) as { transactions: FixtureTx[] }).transactions;

type V2Tx = { transaction_id: { lt: string; hash: string }; data: string };

let api: ApiUnderTest;
let store: Store;

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  store = api.store;
  const mcBlocks = await writeMainnetBlocks(store);
  await saveWatermark(store, { mc_seqno: MC.c, gen_utime: Number(mcBlocks[MC.c].gen_utime) });
  await new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache
});

afterAll(() => api.stop());

describe('transaction BoCs in the index', () => {
  it('are the stored fact: once per transaction, the record derived from them (no record text, no second table)', async () => {
    const [counts] = await store.query<{ txs: string; bocs: string; texts: string; apart: string }>(
      `SELECT count() AS txs, countIf(boc != '') AS bocs, countIf(record != '') AS texts,
              (SELECT count() FROM ${store.database}.transaction_bocs) AS apart FROM ${store.database}.transactions`,
    );
    expect(Number(counts.txs)).toBeGreaterThan(2000);
    expect(counts.bocs).toBe(counts.txs);
    expect(counts.texts).toBe('0');
    expect(counts.apart).toBe('0');
  });

  it('v2 getTransactions serves `data` equal to the fixture BoC of each listed transaction', async () => {
    expect(FIXTURE_TXS.length).toBeGreaterThan(0);
    for (const f of FIXTURE_TXS) {
      const hash = Buffer.from(f.hash_hex, 'hex').toString('base64');
      const body = await okJson<{ ok: boolean; result: V2Tx[] }>(api.base, `/api/v2/getTransactions?address=${encodeURIComponent(f.account)}&limit=1&lt=${f.lt}&hash=${encodeURIComponent(hash)}`);
      expect(body.ok).toBe(true);
      const [tx] = body.result;
      expect(tx.transaction_id).toMatchObject({ lt: f.lt, hash });
      expect(tx.data, `${f.account} ${f.lt}`).not.toBe('');
      expect(Cell.fromBase64(tx.data).hash().toString('hex')).toBe(f.hash_hex);
      // Byte for byte: transactions.json holds @ton/core's serialization, the one the liteserver path gives too.
      expect(tx.data).toBe(f.boc_base64);
    }
  });

  it("TonClient's getTransactions parses every page the index serves (no liteserver behind the API)", async () => {
    const client = new TonClient({ endpoint: `${api.base}/api/v2/jsonRPC` });
    const accounts = [...new Set(FIXTURE_TXS.map((f) => f.account))].slice(0, 8);
    let parsed = 0;
    for (const account of accounts) {
      const txs = await client.getTransactions(Address.parse(account), { limit: 20, archival: true });
      expect(txs.length, account).toBeGreaterThan(0);
      for (const t of txs) {
        const listed = FIXTURE_TXS.find((f) => f.account === account && f.lt === t.lt.toString());
        if (listed) expect(t.hash().toString('hex')).toBe(listed.hash_hex);
        expect(t.address.toString(16).padStart(64, '0')).toBe(account.split(':')[1].toLowerCase());
        parsed++;
      }
    }
    expect(parsed).toBeGreaterThanOrEqual(accounts.length);
  });
});
