import { appendFileSync } from 'node:fs';
import { Cell, Dictionary } from '@ton/core';
import { shardHex, toBase64 } from '@tonstream/block';
import { type Chain, MASTERCHAIN, ROOT_SHARD, type RoundResult, type StoredBlock } from '@tonstream/localnet';
import { existsSync, readFileSync } from 'node:fs';

/**
 * The chain's own record of what it produced, one JSON line per round: every block with its
 * transactions and their messages. End-to-end tests compare the index against it. Message hashes are
 * read with @ton/core from the transaction cells, independently of tonstream's decoder.
 */
export type LedgerTransaction = { hash: string; account: string; lt: string; in_msg: string | null; out_msgs: string[] };
export type LedgerBlock = { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string; transactions: LedgerTransaction[] };
export type LedgerRound = { mc_seqno: number; gen_utime: number; produced_at_ms: number; blocks: LedgerBlock[] };

export function ledgerRound(r: Pick<RoundResult, 'mc' | 'shards'>, producedAtMs: number): LedgerRound {
  return { mc_seqno: r.mc.id.seqno, gen_utime: r.mc.genUtime, produced_at_ms: producedAtMs, blocks: [...r.shards, r.mc].map(ledgerBlock) };
}

/**
 * Appends the rounds the chain holds but the ledger lacks (the key block a new chain starts with,
 * rounds before the ledger was switched on), so the ledger covers the chain from its first kept round.
 */
export function catchUpLedger(path: string, chain: Chain): number {
  const last = existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).pop() : undefined;
  const from = last ? (JSON.parse(last) as LedgerRound).mc_seqno + 1 : 1;
  let written = 0;
  for (let seqno = from; seqno <= chain.head().seqno; seqno++) {
    const mc = chain.getBlock({ workchain: MASTERCHAIN, shard: ROOT_SHARD, seqno });
    const shards = chain.shardsAt(seqno);
    if (!mc || !shards) continue; // no longer kept
    appendFileSync(path, JSON.stringify(ledgerRound({ mc, shards }, Date.now())) + '\n');
    written++;
  }
  return written;
}

function ledgerBlock(b: StoredBlock): LedgerBlock {
  return {
    workchain: b.id.workchain,
    shard: shardHex(b.id.shard),
    seqno: b.id.seqno,
    root_hash: toBase64(b.id.rootHash),
    file_hash: toBase64(b.id.fileHash),
    transactions: b.transactions.map((t) => {
      const { inMsg, outMsgs } = messageHashes(Cell.fromBoc(Buffer.from(t.boc))[0]);
      return { hash: toBase64(t.hash), account: t.account.toUpperCase(), lt: t.lt.toString(), in_msg: inMsg, out_msgs: outMsgs };
    }),
  };
}

/** transaction$0111 … ^[ in_msg:(Maybe ^(Message Any)) out_msgs:(HashmapE 15 ^(Message Any)) ] … */
function messageHashes(tx: Cell): { inMsg: string | null; outMsgs: string[] } {
  const msgs = tx.refs[0].beginParse();
  const inMsg = msgs.loadBit() ? msgs.loadRef().hash().toString('base64') : null;
  const out = msgs.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell());
  return { inMsg, outMsgs: [...out.values()].map((c) => c.hash().toString('base64')) };
}

export function appendLedger(path: string, r: RoundResult): void {
  appendFileSync(path, JSON.stringify(ledgerRound(r, Date.now())) + '\n');
}
