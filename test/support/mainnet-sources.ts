/**
 * Expected values for tests, read from test/fixtures/mainnet/SOURCES.md and the tongo oracles it maps
 * to blocks: sources independent of this project's decoder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const MAINNET = join(import.meta.dirname, '../fixtures/mainnet');

/** A row of SOURCES.md's blocks table. */
export type SourcesBlock = {
  /** File name in blocks/. */
  file: string;
  workchain: number;
  /** 16 lower-case hex digits, as SOURCES.md writes it. */
  shard: string;
  seqno: number;
  accounts: number;
  transactions: number;
  notes: string;
};

/** What a tongo oracle (oracles/tongo_block-N.expected.json) says about its block. */
export type TongoOracle = {
  oracleFile: string;
  block: SourcesBlock;
  /** Transaction hashes, lower-case hex. */
  txHashes: string[];
  /** Sum of OutMsgCnt over the block's transactions. */
  outMessages: number;
  inMsgDescrLength: number;
  outMsgDescrLength: number;
};

/** A table of SOURCES.md: the rows whose first cell starts with `firstCell`, keyed by the header's column names. */
function table(firstCell: string): Record<string, string>[] {
  const lines = readFileSync(join(MAINNET, 'SOURCES.md'), 'utf8').split('\n');
  const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());
  const first = lines.findIndex((l) => l.startsWith(`| ${firstCell}`));
  if (first < 2) throw new Error(`SOURCES.md has no table of ${firstCell}`);
  const header = cells(lines[first - 2]);
  const rows = [];
  for (let i = first; i < lines.length && lines[i].startsWith('|'); i++) rows.push(Object.fromEntries(cells(lines[i]).map((c, k) => [header[k], c])));
  return rows;
}

export function sourcesBlocks(): SourcesBlock[] {
  return table('blocks/').map((row) => {
    const id = /^\((-?\d+),([0-9a-f]{16}),(\d+)\)$/.exec(row['block id']);
    const counts = /^(\d+)\/(\d+)$/.exec(row['accounts/txs']);
    if (!id || !counts) throw new Error(`SOURCES.md: cannot read the row of ${row.file}`);
    return {
      file: row.file.replace(/^blocks\//, ''),
      workchain: Number(id[1]),
      shard: id[2],
      seqno: Number(id[3]),
      accounts: Number(counts[1]),
      transactions: Number(counts[2]),
      notes: row.notes,
    };
  });
}

export function sourcesBlock(file: string): SourcesBlock {
  const block = sourcesBlocks().find((b) => b.file === file);
  if (!block) throw new Error(`SOURCES.md lists no blocks/${file}`);
  return block;
}

type OracleJson = {
  Accounts: Record<string, { Transactions: Record<string, { OutMsgCnt: number }> }>;
  TxHashes: string[] | null;
  InMsgDescrLength: number;
  OutMsgDescrLength: number;
};

/** The oracles of SOURCES.md's oracles table, each with the block it matches. */
export function tongoOracles(): TongoOracle[] {
  return table('oracles/').map((row) => {
    const json: OracleJson = JSON.parse(readFileSync(join(MAINNET, row.file), 'utf8'));
    const transactions = Object.values(json.Accounts).flatMap((a) => Object.values(a.Transactions));
    return {
      oracleFile: row.file,
      block: sourcesBlock(row['matches block'].replace(/^blocks\//, '')),
      txHashes: json.TxHashes ?? [],
      outMessages: transactions.reduce((n, t) => n + t.OutMsgCnt, 0),
      inMsgDescrLength: json.InMsgDescrLength,
      outMsgDescrLength: json.OutMsgDescrLength,
    };
  });
}

/** Entries of transactions.json: single transactions cut out of the blocks, with their hashes. */
export function sourcesTransactions(): { category: string; block_file: string; account: string; lt: string; now: number; hash_hex: string; hash_base64: string; boc_base64: string }[] {
  return JSON.parse(readFileSync(join(MAINNET, 'transactions.json'), 'utf8')).transactions;
}
