import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLedger } from '../support/ledger.js';

describe('readLedger', () => {
  it('reads whole rounds only: a round being appended (no newline yet) waits for a later read', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tonstream-ledger-')), 'ledger.jsonl');
    expect(readLedger(path)).toEqual([]);
    const round = (mc_seqno: number) => JSON.stringify({ mc_seqno, gen_utime: mc_seqno, produced_at_ms: mc_seqno, blocks: [] });
    appendFileSync(path, `${round(1)}\n${round(2)}\n${round(3).slice(0, 20)}`);
    expect(readLedger(path).map((r) => r.mc_seqno)).toEqual([1, 2]);
    appendFileSync(path, `${round(3).slice(20)}\n`);
    expect(readLedger(path).map((r) => r.mc_seqno)).toEqual([1, 2, 3]);
  });
});
