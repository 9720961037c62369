import { Cell, Dictionary, loadMessage } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { parseBoc } from '../boc/parse-boc.js';
import { fixtureBlocks, readFixture, sourcesRootHashes } from '../test-support/fixtures.js';
import { loadBlock } from '../tlb/block.js';
import { decodeBlock } from './normalize-block.js';

const ORACLES: Record<string, string> = {
  'wc0_8000000000000000_30816553.boc': 'tongo_block-1.expected.json',
  'wc0_8000000000000000_40484416.boc': 'tongo_block-2.expected.json',
  'wc0_8000000000000000_40484438.boc': 'tongo_block-3.expected.json',
  'wc0_0d83800000000000_4168601_after_merge_empty.boc': 'tongo_block-4.expected.json',
  'mc_-1_8000000000000000_17734191.boc': 'tongo_block-5.expected.json',
};

type OracleTx = { Lt: number; PrevTransHash: string; PrevTransLt: number; Now: number; OutMsgCnt: number; OrigStatus: string; EndStatus: string };
type Oracle = {
  Accounts: Record<string, { Transactions: Record<string, OracleTx> }>;
  TxHashes: string[] | null;
  ValueFlow: Record<string, { Grams: string; Other: Record<string, string> } | null>;
  InMsgDescrLength: number;
  OutMsgDescrLength: number;
};

const blocks = fixtureBlocks();
const rootHashes = sourcesRootHashes();

describe('decodeBlock() on every mainnet fixture block', () => {
  it('finds all 12 fixture blocks and their listed root hashes', () => {
    expect(blocks).toHaveLength(12);
    expect(rootHashes.size).toBe(12);
  });

  for (const { name, bytes } of blocks) {
    it(`${name}: root hash equals SOURCES.md`, () => {
      const rec = decodeBlock(bytes);
      expect(Buffer.from(rec.block.root_hash, 'base64').toString('hex')).toBe(rootHashes.get(name));
      // Trusting a known root hash must give identical records.
      const trusted = decodeBlock(bytes, { rootHash: rootHashes.get(name)! });
      expect(trusted).toEqual(rec);
    });
  }
});

describe('decodeBlock() against the tongo oracles', () => {
  for (const [file, oracleFile] of Object.entries(ORACLES)) {
    it(`${file} matches ${oracleFile}`, () => {
      const oracle: Oracle = JSON.parse(readFixture(`oracles/${oracleFile}`).toString('utf8'));
      const bytes = blocks.find((b) => b.name === file)!.bytes;
      const block = loadBlock(parseBoc(bytes));
      const rec = decodeBlock(bytes);

      const hashes = rec.transactions.map((t) => Buffer.from(t.hash, 'base64').toString('hex')).sort();
      expect(hashes).toEqual(oracle.TxHashes ?? []);

      const accounts: Record<string, Record<string, OracleTx>> = {};
      for (const ab of block.extra.accountBlocks) {
        accounts[ab.accountAddr] = {};
        for (const tx of ab.transactions) {
          accounts[ab.accountAddr][tx.lt.toString()] = {
            Lt: Number(tx.lt),
            PrevTransHash: tx.prevTransHash,
            PrevTransLt: Number(tx.prevTransLt),
            Now: tx.now,
            OutMsgCnt: tx.outMsgCnt,
            OrigStatus: tx.origStatus,
            EndStatus: tx.endStatus,
          };
        }
      }
      const expected: Record<string, Record<string, OracleTx>> = {};
      for (const [addr, a] of Object.entries(oracle.Accounts)) {
        expected[addr] = {};
        for (const [lt, t] of Object.entries(a.Transactions)) {
          const { Lt, PrevTransHash, PrevTransLt, Now, OutMsgCnt, OrigStatus, EndStatus } = t;
          expected[addr][lt] = { Lt, PrevTransHash, PrevTransLt, Now, OutMsgCnt, OrigStatus, EndStatus };
        }
      }
      expect(accounts).toEqual(expected);

      const vf = rec.block.value_flow;
      const ours: Record<string, { Grams: string; Other: Record<string, string> } | null> = {
        FromPrevBlk: vf.from_prev_blk, ToNextBlk: vf.to_next_blk, Imported: vf.imported, Exported: vf.exported,
        FeesCollected: vf.fees_collected, Burned: vf.burned, FeesImported: vf.fees_imported, Recovered: vf.recovered,
        Created: vf.created, Minted: vf.minted,
      } as never;
      for (const [k, v] of Object.entries(oracle.ValueFlow)) {
        const mine = (ours as Record<string, { grams: string; other: Record<string, string> } | null>)[k];
        expect(mine === null ? null : { Grams: mine.grams, Other: mine.other }, k).toEqual(v);
      }
      expect(rec.block.in_msg_descr_length).toBe(oracle.InMsgDescrLength);
      expect(rec.block.out_msg_descr_length).toBe(oracle.OutMsgDescrLength);
    });
  }
});

describe('decodeBlock() structure', () => {
  it('reads both parents of an after_merge block with the child shard ids', () => {
    const rec = decodeBlock(blocks.find((b) => b.name.includes('13516764'))!.bytes);
    expect(rec.block.after_merge).toBe(true);
    expect(rec.block.prev_blocks).toEqual([
      { workchain: 0, shard: 'A000000000000000', seqno: 13516763 },
      { workchain: 0, shard: 'E000000000000000', seqno: 13516699 },
    ]);
    expect(Buffer.from(rec.block.prev_refs[0].root_hash, 'base64').toString('hex')).toMatch(/^617f643f/);
    expect(Buffer.from(rec.block.prev_refs[1].file_hash, 'base64').toString('hex')).toMatch(/^8dcab647/);
    expect(rec.transactions).toHaveLength(449);
  });

  it('reads a 16-bit shard prefix', () => {
    const rec = decodeBlock(blocks.find((b) => b.name.includes('4168601'))!.bytes);
    expect(rec.block.shard).toBe('0D83800000000000');
    expect(rec.block.tx_count).toBe(0);
  });

  it('reads the 4 shards and the config of a key block', () => {
    const bytes = blocks.find((b) => b.name.includes('keyblock'))!.bytes;
    const rec = decodeBlock(bytes);
    expect(rec.block.key_block).toBe(true);
    expect(rec.shards.map((s) => `${s.shard}:${s.seqno}`)).toEqual([
      '2000000000000000:52077744',
      '6000000000000000:52097945',
      'A000000000000000:51731388',
      'E000000000000000:51757085',
    ]);
    const block = loadBlock(parseBoc(bytes));
    expect(block.extra.custom?.config?.params.size).toBe(35);
    expect(block.extra.custom?.config?.configAddr).toBe('5'.repeat(64));
  });

  it('sorts out messages by created_lt and gives masterchain blocks their own mc seqno', () => {
    const rec = decodeBlock(blocks.find((b) => b.name.includes('30816553'))!.bytes, { mcSeqno: 25310199 });
    expect(rec.block.mc_block_seqno).toBe(25310199);
    for (const tx of rec.transactions) {
      const lts = tx.out_msgs.map((m) => BigInt(m.created_lt!));
      expect(lts).toEqual([...lts].sort((a, b) => (a < b ? -1 : 1)));
    }
    const mc = decodeBlock(blocks.find((b) => b.name.includes('17734191'))!.bytes);
    expect(mc.block.mc_block_seqno).toBe(17734191);
    expect(mc.shards.map((s) => s.seqno)).toEqual([22738548]);
  });

  it('lists each touched account once with its last transaction', () => {
    const rec = decodeBlock(blocks.find((b) => b.name.includes('71398501'))!.bytes);
    expect(rec.accounts).toHaveLength(234);
    expect(new Set(rec.accounts.map((a) => a.account)).size).toBe(234);
    for (const a of rec.accounts) {
      const txs = rec.transactions.filter((t) => t.account === a.account);
      expect(txs).toHaveLength(a.tx_count);
      expect(a.last_trans_lt).toBe(txs[txs.length - 1].lt);
    }
    expect(rec.messages.length).toBe(rec.transactions.reduce((n, t) => n + (t.in_msg ? 1 : 0) + t.out_msgs.length, 0));
  });
});

describe('decodeBlock() masterchain_block_ref, as toncenter v3 fills it', () => {
  const SHARD_BLOCK = 'wc0_8000000000000000_30816553.boc';
  const MC_BLOCK = 'mc_-1_8000000000000000_17734191.boc';
  const mcRef = (seqno: number) => ({ workchain: -1, shard: '8000000000000000', seqno });
  const bytesOf = (file: string) => blocks.find((b) => b.name === file)!.bytes;

  it('is the masterchain block that committed a shard block (its mc_block_seqno), not its master_ref', () => {
    const masterRef = sourcesMasterRef(SHARD_BLOCK);
    // Any later masterchain block may commit the shard block; the caller says which one.
    const committedBy = 25310199;
    expect(committedBy).not.toBe(masterRef);
    const rec = decodeBlock(bytesOf(SHARD_BLOCK), { mcSeqno: committedBy });
    expect(rec.block.mc_block_seqno).toBe(committedBy);
    expect(rec.block.masterchain_block_ref).toEqual(mcRef(committedBy));
    expect(rec.block.master_ref_seqno).toBe(masterRef);
  });

  it('falls back to master_ref when the committing masterchain block is not known', () => {
    const rec = decodeBlock(bytesOf(SHARD_BLOCK));
    expect(rec.block.mc_block_seqno).toBeNull();
    expect(rec.block.masterchain_block_ref).toEqual(mcRef(sourcesMasterRef(SHARD_BLOCK)));
  });

  it('is the block itself for a masterchain block', () => {
    const seqno = sourcesSeqno(MC_BLOCK);
    expect(decodeBlock(bytesOf(MC_BLOCK)).block.masterchain_block_ref).toEqual(mcRef(seqno));
  });
});

/** The blocks table row of `file` in SOURCES.md. */
function sourcesRow(file: string): string {
  const row = readFixture('SOURCES.md').toString('utf8').split('\n').find((l) => l.startsWith(`| blocks/${file} |`));
  if (!row) throw new Error(`SOURCES.md lists no blocks/${file}`);
  return row;
}

/** The seqno of the block id `(workchain,shard,seqno)` SOURCES.md gives for `file`. */
function sourcesSeqno(file: string): number {
  const id = /\| \((-?\d+),([0-9a-f]{16}),(\d+)\) \|/.exec(sourcesRow(file));
  if (!id) throw new Error(`no block id for ${file} in SOURCES.md`);
  return Number(id[3]);
}

/** The master_ref SOURCES.md notes for a shard block ("master_ref mc N"). */
function sourcesMasterRef(file: string): number {
  const ref = /master_ref mc (\d+)/.exec(sourcesRow(file));
  if (!ref) throw new Error(`SOURCES.md notes no master_ref for ${file}`);
  return Number(ref[1]);
}

/**
 * gen_software's version read with @ton/core from the block header, the decoder's own parser aside:
 * block#11ef55aa global_id:int32 info:^BlockInfo ...; block_info#9bc7a987 version:uint32, 8 flag bits,
 * flags:(## 8) seqno:# vert_seqno:# shard:ShardIdent (shard_ident$00 shard_pfx_bits:(#<= 60)
 * workchain_id:int32 shard_prefix:uint64) gen_utime:uint32 start_lt:uint64 end_lt:uint64 and four
 * uint32, then gen_software:flags . 0?GlobalVersion (capabilities#c4 version:uint32 ...).
 */
function headerGlobalVersion(bytes: Buffer): number | undefined {
  const info = Cell.fromBoc(bytes)[0].refs[0].beginParse();
  info.skip(32 + 32 + 8);
  const flags = info.loadUint(8);
  info.skip(32 + 32 + 2 + 6 + 32 + 64 + 32 + 64 + 64 + 4 * 32);
  if ((flags & 1) === 0) return undefined;
  expect(info.loadUint(8)).toBe(0xc4);
  return info.loadUint(32);
}

describe('decodeBlock() message fees: ihr_fee before global version 12, extra_flags from it on (as toncenter reads them)', () => {
  const versions = blocks.map(({ name, bytes }) => ({ name, bytes, version: headerGlobalVersion(Buffer.from(bytes)) }));

  it('the fixtures hold blocks of both eras', () => {
    expect(versions.some((b) => (b.version ?? 0) >= 12)).toBe(true);
    expect(versions.some((b) => (b.version ?? 0) < 12)).toBe(true);
  });

  for (const { name, bytes, version } of versions) {
    it(`${name} (global version ${version ?? 'none'})`, () => {
      const rec = decodeBlock(bytes);
      // Every message cell of the block's transactions (^[ in_msg:(Maybe ^Message) out_msgs:(HashmapE 15 ^Message) ]), read by @ton/core.
      const byHash = new Map<string, ReturnType<typeof loadMessage>>();
      for (const t of rec.transactions) {
        const io = Cell.fromBase64(t.boc).refs[0].beginParse();
        const cells = [io.loadMaybeRef(), ...io.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell()).values()];
        for (const c of cells) if (c) byHash.set(c.hash().toString('base64'), loadMessage(c.beginParse()));
      }
      const messages = rec.transactions.flatMap((t) => [t.in_msg, ...t.out_msgs]).filter((m) => m !== null);
      expect(new Set(messages.map((m) => m.hash))).toEqual(new Set(byHash.keys()));
      for (const m of messages) {
        const info = byHash.get(m.hash)!.info;
        if (info.type !== 'internal') {
          expect([m.ihr_fee, m.extra_flags]).toEqual([null, null]);
        } else if ((version ?? 0) >= 12) {
          expect([m.ihr_fee, m.extra_flags]).toEqual(['0', info.ihrFee.toString()]);
        } else {
          expect([m.ihr_fee, m.extra_flags]).toEqual([info.ihrFee.toString(), null]);
        }
      }
    });
  }
});

describe('decodeBlock() BoCs are canonical: @ton/core serializes each one back to the same bytes', () => {
  for (const { name, bytes } of blocks) {
    it(name, () => {
      const rec = decodeBlock(bytes);
      const bocs = rec.transactions.flatMap((t) => [
        t.boc,
        ...[t.in_msg, ...t.out_msgs].flatMap((m) => (m ? [m.message_content.body, ...(m.init_state ? [m.init_state.body] : [])] : [])),
      ]);
      for (const boc of bocs) expect(Cell.fromBase64(boc).toBoc().toString('base64')).toBe(boc);
    });
  }
});
