import { beginCell, storeAccount, type Account, Address } from '@ton/core';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import { InvalidRecordError, parseManifest, parseRecord, type RecordKind, transactionRow } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { fixtureBlocks } from '../../packages/block/src/test-support/fixtures.js';
import { rng } from '../../packages/block/src/test-support/random.js';

/** Real records: every mainnet fixture block through the decoder, plus account states of each status. */
function realRecords(): { kind: RecordKind; json: string }[] {
  const out: { kind: RecordKind; json: string }[] = [];
  for (const { bytes } of fixtureBlocks()) {
    const r = decodeBlock(bytes, { mcSeqno: 1234 });
    out.push({ kind: 'blocks', json: JSON.stringify(r.block) });
    for (const t of r.transactions) out.push({ kind: 'transactions', json: JSON.stringify(transactionRow(t)) });
    for (const m of r.messages) out.push({ kind: 'messages', json: JSON.stringify(m) });
  }
  const ctx = { account: '0:' + 'AB'.repeat(32), lastTransLt: '5', lastTransHash: Buffer.alloc(32, 7).toString('base64'), mcSeqno: 7, genUtime: 100 };
  const account = (state: Account['storage']['state']) =>
    beginCell()
      .storeBit(1)
      .store(storeAccount({ addr: Address.parseRaw(ctx.account), storageStats: { used: { cells: 1n, bits: 9n }, lastPaid: 1, duePayment: null, storageExtra: null }, storage: { lastTransLt: 5n, balance: { coins: 10n }, state } }))
      .endCell()
      .toBoc();
  const code = beginCell().storeUint(0xc0de, 16).endCell();
  for (const boc of [account({ type: 'active', state: { code, data: code } }), account({ type: 'frozen', stateHash: 7n }), account({ type: 'uninit' }), new Uint8Array(0)]) {
    out.push({ kind: 'accountStates', json: JSON.stringify(accountStateRecord(boc, ctx)) });
  }
  return out;
}

/** Paths of every scalar in a JSON value, e.g. ['description', 'compute_ph', 'gas_fees']. */
function leafPaths(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== 'object') return [path];
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
  return entries.flatMap(([k, x]) => leafPaths(x, [...path, k]));
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[path[path.length - 1]] = value;
  return copy;
}

function rejection(kind: RecordKind, json: string): string {
  try {
    parseRecord(kind, json);
  } catch (err) {
    if (err instanceof InvalidRecordError) return err.message;
    throw err;
  }
  return '';
}

const records = realRecords();

describe('record validation', () => {
  it('accepts every record the decoder makes of real mainnet blocks and of account states of every status', () => {
    const kinds = new Map<string, number>();
    for (const r of records) {
      expect(rejection(r.kind, r.json), r.json.slice(0, 200)).toBe('');
      kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
    }
    expect(Object.fromEntries(kinds)).toMatchObject({ blocks: 12, accountStates: 4 });
    expect(kinds.get('transactions')).toBeGreaterThan(1000);
  });

  it('rejects a record with any single field of the wrong type, naming the field', () => {
    // One record of each kind that has the most fields (the richest transaction description).
    const samples = (['blocks', 'transactions', 'messages', 'accountStates'] as const).map((kind) =>
      records.filter((r) => r.kind === kind).reduce((a, b) => (leafPaths(JSON.parse(b.json)).length > leafPaths(JSON.parse(a.json)).length ? b : a)),
    );
    let checked = 0;
    for (const { kind, json } of samples) {
      const value = JSON.parse(json);
      for (const path of leafPaths(value)) {
        const field = String(path[path.length - 1]);
        const message = rejection(kind, JSON.stringify(setAt(value, path, { not: 'a scalar' })));
        expect(message, `${kind} ${path.join('.')}`).toContain(typeof path[path.length - 1] === 'number' ? `[${field}]` : field);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('rejects missing required fields and values outside what the store columns hold', () => {
    const tx = JSON.parse(records.find((r) => r.kind === 'transactions')!.json);
    const without = (o: object, k: string) => JSON.stringify(Object.fromEntries(Object.entries(o).filter(([x]) => x !== k)));
    expect(rejection('transactions', without(tx, 'in_msg'))).toBe("transactions record.in_msg: expected an object, got nothing (the field is missing)");
    expect(rejection('transactions', JSON.stringify({ ...tx, lt: '18446744073709551616' }))).toMatch(/\.lt: expected a decimal string below 2\^64/);
    expect(rejection('transactions', JSON.stringify({ ...tx, lt: '18446744073709551615' }))).toBe('');
    expect(rejection('transactions', JSON.stringify({ ...tx, lt: '007' }))).toMatch(/\.lt/);
    expect(rejection('transactions', JSON.stringify({ ...tx, now: 2 ** 32 }))).toMatch(/\.now/);
    expect(rejection('transactions', JSON.stringify({ ...tx, account: "0:AB' OR 1=1" }))).toMatch(/\.account/);
    expect(rejection('transactions', JSON.stringify({ ...tx, out_msgs: Array(256).fill({ hash: tx.hash }) }))).toMatch(/\.out_msgs: expected at most 255/);
    expect(rejection('transactions', 'null')).toMatch(/transactions record: expected an object, got null/);
    expect(rejection('transactions', '{"account":')).toMatch(/not JSON/);
    expect(rejection('messages', 'x'.repeat(9 * 1024 * 1024))).toMatch(/over the 8388608-character record limit/);
    const msg = JSON.parse(records.find((r) => r.kind === 'messages')!.json);
    expect(rejection('messages', JSON.stringify({ ...msg, message_content: { ...msg.message_content, body: 'te6c*A==' } }))).toMatch(/\.message_content\.body: expected base64/);
    expect(rejection('messages', JSON.stringify({ ...msg, message_content: { ...msg.message_content, body: 'te6cA' } }))).toMatch(/\.message_content\.body: expected base64/);
    expect(rejection('messages', JSON.stringify({ ...msg, hash: msg.hash.slice(0, 40) + '===' + msg.hash.slice(43) }))).toMatch(/\.hash: expected 32 bytes in base64/);
  });

  it('never throws anything but InvalidRecordError, whatever the input (seeded fuzz)', () => {
    const rand = rng(20261123);
    const randomValue = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.3) return [null, true, 1.5, -1, 2 ** 70, '', 'x\u0000\ud800', '__proto__'][Math.floor(rand() * 8)];
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(depth + 1));
      const keys = ['hash', 'skipped', 'type', 'constructor', '__proto__', 'toString', 'lt', 'out_msgs', 'description'];
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, () => [keys[Math.floor(rand() * keys.length)], randomValue(depth + 1)]));
    };
    const kinds: RecordKind[] = ['blocks', 'transactions', 'messages', 'accountStates'];
    for (let i = 0; i < 3000; i++) {
      const kind = kinds[i % 4];
      // Random values, and real records with one field replaced by a random value or with random bytes flipped.
      const real = records[Math.floor(rand() * records.length)];
      const base = JSON.parse(real.json);
      const paths = leafPaths(base);
      const candidates = [
        JSON.stringify(randomValue(0)),
        JSON.stringify(setAt(base, paths[Math.floor(rand() * paths.length)], randomValue(1))),
        real.json.slice(0, Math.floor(rand() * real.json.length)) + String.fromCharCode(Math.floor(rand() * 0x10000)) + real.json.slice(Math.floor(rand() * real.json.length)),
      ];
      for (const json of candidates) {
        try {
          parseRecord(kind, json);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidRecordError);
        }
      }
    }
  });
});

describe('block manifest header', () => {
  it('reads a manifest and explains what is wrong with a bad one', () => {
    expect(parseManifest('{"transactions":3,"messages":5,"account_states":2,"mc_blocks":4}')).toEqual({ manifest: { transactions: 3, messages: 5, account_states: 2, mc_blocks: 4 } });
    expect(parseManifest(undefined)).toEqual({ problem: 'block meta has no manifest header' });
    expect(parseManifest('{"transactions":-1,"messages":5,"account_states":2}')).toEqual({ problem: expect.stringContaining('.transactions: expected an integer') });
    expect(parseManifest('[')).toEqual({ problem: expect.stringContaining('not JSON') });
  });
});
