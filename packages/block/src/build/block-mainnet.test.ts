import { describe, expect, it } from 'vitest';
import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { type Block, loadBlock } from '../tlb/block.js';
import { loadMsgAddress } from '../tlb/common.js';
import { keyToHex, walkHashmapAugE } from '../tlb/hashmap.js';
import { readFixture, sourcesRootHashes } from '../test-support/fixtures.js';
import { buildBlock } from './block.js';
import { Builder } from './builder.js';
import { cellFromTable } from './cell-boc.js';
import { storeShardHashes } from './mc-extra.js';
import { type EnvelopeOptions, exportDeqShort, type OutMsgEntry } from './msg-descr.js';
import { deriveMsgDescr } from './msg-routing.js';
import { summarizeTransactions } from './tx-summary.js';

// The strongest check of the builder: rebuild real mainnet blocks from their transactions alone (plus
// header fields and the original Merkle state update) and get the chain's root hash. This exercises
// label choice, augmented extras (ImportFees, CurrencyCollection sums), acc_trans hash updates and the
// InMsg/OutMsg derivation exactly as a validator wrote them.
const roots = sourcesRootHashes();

// Single-shard blocks whose messages were all delivered in the block or are new: every descr entry
// is derivable from the transactions (msg_envelope#4, use_dest_bits 96/96).
const REBUILDABLE = ['wc0_0d83800000000000_4168601_after_merge_empty.boc', 'wc0_8000000000000000_30816553.boc', 'wc0_8000000000000000_40484416.boc', 'wc0_8000000000000000_40484438.boc'];

describe('buildBlock reproduces mainnet blocks', () => {
  for (const name of REBUILDABLE) {
    it(`${name}: same root hash as on chain`, () => {
      const table = parseBoc(readFixture(`blocks/${name}`));
      const block = loadBlock(table);
      const root = table.roots[0];
      const extra = new Slice(table, table.refs[root * 4 + 3]);
      extra.skip(32);
      const built = buildBlock({
        globalId: block.globalId,
        info: block.info,
        valueFlow: { ...block.valueFlow, version: block.valueFlow.burned ? 2 : 1 },
        stateUpdate: cellFromTable(table, table.refs[root * 4 + 2]),
        transactions: block.extra.accountBlocks.flatMap((a) => a.transactions.map((t) => cellFromTable(table, t.cell))),
        routing: { envelope: { version: 4 } },
        randSeed: block.extra.randSeed,
        createdBy: block.extra.createdBy,
      });
      // Part by part first, so a failure names the part that differs.
      const original = cellFromTable(table, root);
      const parts = ['info', 'value_flow', 'state_update', 'extra'];
      parts.forEach((part, i) => expect(built.cell.refs[i].hashHex(), part).toBe(original.refs[i].hashHex()));
      ['in_msg_descr', 'out_msg_descr', 'account_blocks'].forEach((part, i) => expect(built.cell.refs[3].refs[i].hashHex(), part).toBe(original.refs[3].refs[i].hashHex()));
      expect(built.rootHash).toBe(roots.get(name));
    });
  }

  // Multi-shard blocks: envelopes route through intermediate addresses (32/36) and other shards'
  // imports are dequeued with msg_export_deq_short. Those facts are not in the transactions, so the
  // test reads them from the original descrs; everything else (kinds, extras, deq_imm) is derived.
  for (const name of ['wc0_c000000000000000_13516764_after_merge.boc', 'wc0_6000000000000000_52111590.boc', 'wc0_a000000000000000_54302203.boc', 'wc0_a000000000000000_54302208.boc']) {
    it(`${name}: same root hash with routing facts from the original`, () => {
      const table = parseBoc(readFixture(`blocks/${name}`));
      const block = loadBlock(table);
      const root = table.roots[0];
      const { envelopes, deqShort } = originalRouting(block);
      const transactions = block.extra.accountBlocks.flatMap((a) => a.transactions.map((t) => cellFromTable(table, t.cell)));
      const derived = deriveMsgDescr(summarizeTransactions(transactions), block.info.shard, { envelope: (h) => envelopes.get(h)! });
      const built = buildBlock({
        globalId: block.globalId,
        info: block.info,
        valueFlow: { ...block.valueFlow, version: block.valueFlow.burned ? 2 : 1 },
        stateUpdate: cellFromTable(table, table.refs[root * 4 + 2]),
        transactions,
        inMsgs: derived.inMsgs,
        outMsgs: [...derived.outMsgs, ...deqShort],
        randSeed: block.extra.randSeed,
        createdBy: block.extra.createdBy,
      });
      const original = cellFromTable(table, root);
      ['in_msg_descr', 'out_msg_descr', 'account_blocks'].forEach((part, i) => expect(built.cell.refs[3].refs[i].hashHex(), part).toBe(original.refs[3].refs[i].hashHex()));
      expect(built.rootHash).toBe(roots.get(name));
    });
  }

  it('mc_-1_8000000000000000_46991999_keyblock.boc: ShardHashes of 4 shards rebuild to the same cell', () => {
    const table = parseBoc(readFixture('blocks/mc_-1_8000000000000000_46991999_keyblock.boc'));
    const block = loadBlock(table);
    const shards = block.extra.custom!.shardHashes;
    expect(shards).toHaveLength(4);
    const b = new Builder();
    storeShardHashes(b, shards);
    const mcExtra = cellFromTable(table, table.refs[table.refs[table.roots[0] * 4 + 3] * 4 + 3]);
    expect(b.endCell().refs[0].hashHex()).toBe(mcExtra.refs[0].hashHex());
  });
});

/** Envelope fields per message hash and the deq_short records, read from a block's own descrs. */
function originalRouting(block: Block): { envelopes: Map<string, EnvelopeOptions>; deqShort: OutMsgEntry[] } {
  const table = block.cells;
  const extra = new Slice(table, table.refs[block.cell * 4 + 3]);
  const envelopes = new Map<string, EnvelopeOptions>();
  const readEnvelope = (hash: string, s: Slice) => {
    const version = s.loadUint(4) as 4 | 5;
    const use = () => (s.loadBit() ? s.fail('only interm_addr_regular expected') : s.loadUint(7));
    const opts: EnvelopeOptions = { version, curAddr: use(), nextAddr: use() };
    s.loadCoins();
    s.loadRef();
    if (version === 5) {
      if (s.loadBit()) opts.emittedLt = s.loadUintBig(64);
      if (s.loadBit()) {
        s.loadUint(4);
        opts.metadata = { depth: s.loadUint(32), initiatorAddr: loadMsgAddress(s), initiatorLt: s.loadUintBig(64) };
      }
    }
    envelopes.set(hash, opts);
  };
  const skipCc = (s: Slice) => {
    s.loadCoins();
    if (s.loadBit()) s.loadRef();
  };
  walkHashmapAugE(
    extra.loadRefSlice('in'),
    256,
    (key, v) => {
      if (v.loadUint(3) !== 0) readEnvelope(keyToHex(key), v.loadRefSlice('env'));
    },
    (s) => {
      s.loadCoins();
      skipCc(s);
    },
  );
  const deqShort: OutMsgEntry[] = [];
  walkHashmapAugE(
    extra.loadRefSlice('out'),
    256,
    (key, v) => {
      const tag = v.loadUint(3);
      if (tag === 0b110 && v.loadBit()) {
        deqShort.push(exportDeqShort({ msgHash: keyToHex(key), msgEnvHash: v.loadHash(), nextWorkchain: v.loadInt(32), nextAddrPfx: v.loadUintBig(64), importBlockLt: v.loadUintBig(64) }));
      } else if (tag !== 0) {
        readEnvelope(keyToHex(key), v.loadRefSlice('env'));
      }
    },
    skipCc,
  );
  return { envelopes, deqShort };
}
