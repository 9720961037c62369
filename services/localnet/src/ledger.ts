import { appendFileSync } from 'node:fs';
import { Cell, Dictionary, loadShardAccount } from '@ton/core';
import { shardHex, toBase64 } from '@tonstream/block';
import { type Chain, LocalnetError, MASTERCHAIN, ROOT_SHARD, type RoundResult, type StoredBlock } from '@tonstream/localnet';
import { existsSync, readFileSync } from 'node:fs';

/**
 * The chain's own record of what it produced, one JSON line per round: every block with its
 * transactions and their messages. End-to-end tests compare the index against it. Message hashes are
 * read with @ton/core from the transaction cells, independently of tonstream's decoder.
 *
 * With accounts on (LOCALNET_LEDGER_ACCOUNTS), a line also lists the accounts whose state the round
 * changed (by a transaction, or outside one: the prefunded wallets of a new chain, `fund()`), as they
 * are after it, read with @ton/core from the chain's ShardAccount: the first line of a process lists
 * every account, so the accounts at round S are the newest entry of each address in lines up to S.
 */
export type LedgerTransaction = { hash: string; account: string; lt: string; in_msg: string | null; out_msgs: string[] };
export type LedgerBlock = { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string; transactions: LedgerTransaction[] };
/** An account after the round; `nonexist` (balance 0) when it is gone. */
export type LedgerAccount = { address: string; status: 'active' | 'uninit' | 'frozen' | 'nonexist'; balance: string; last_trans_lt: string };
export type LedgerRound = { mc_seqno: number; gen_utime: number; produced_at_ms: number; blocks: LedgerBlock[]; accounts?: LedgerAccount[] };

export function ledgerRound(r: Pick<RoundResult, 'mc' | 'shards'>, producedAtMs: number, accounts?: LedgerAccount[]): LedgerRound {
  return { mc_seqno: r.mc.id.seqno, gen_utime: r.mc.genUtime, produced_at_ms: producedAtMs, blocks: [...r.shards, r.mc].map(ledgerBlock), ...(accounts ? { accounts } : {}) };
}

/** The accounts a round changed, by comparing each round's accounts with the last round's (undefined: the round's states are no longer kept). */
export type AccountLedger = { changed(r: Pick<RoundResult, 'mc' | 'shards'>): Promise<LedgerAccount[] | undefined> };

export function createAccountLedger(chain: Chain): AccountLedger {
  let known = new Map<string, string>();
  return {
    async changed(r) {
      const now = new Map<string, string>();
      const out: LedgerAccount[] = [];
      for (const b of [r.mc, ...r.shards]) {
        let accounts;
        try {
          accounts = await chain.shardAccountsAt(b.id);
        } catch (err) {
          if (err instanceof LocalnetError && err.code === 'not_found') return undefined;
          throw err;
        }
        for (const a of accounts) {
          const address = `${b.id.workchain}:${a.addressHash.toUpperCase()}`;
          const boc = Buffer.from(a.shardAccountBoc).toString('base64');
          now.set(address, boc);
          if (known.get(address) !== boc) out.push(ledgerAccount(address, a.shardAccountBoc));
        }
      }
      for (const address of known.keys()) if (!now.has(address)) out.push({ address, status: 'nonexist', balance: '0', last_trans_lt: '0' });
      known = now;
      return out.sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : 0));
    },
  };
}

function ledgerAccount(address: string, shardAccountBoc: Uint8Array): LedgerAccount {
  const sa = loadShardAccount(Cell.fromBoc(Buffer.from(shardAccountBoc))[0].beginParse());
  const a = sa.account;
  if (!a) return { address, status: 'nonexist', balance: '0', last_trans_lt: sa.lastTransactionLt.toString() };
  const status = a.storage.state.type === 'active' ? 'active' : a.storage.state.type === 'frozen' ? 'frozen' : 'uninit';
  return { address, status, balance: a.storage.balance.coins.toString(), last_trans_lt: sa.lastTransactionLt.toString() };
}

/**
 * Appends the rounds the chain holds but the ledger lacks (the key block a new chain starts with,
 * rounds before the ledger was switched on), so the ledger covers the chain from its first kept round.
 */
export async function catchUpLedger(path: string, chain: Chain, accounts?: AccountLedger): Promise<number> {
  const last = existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).pop() : undefined;
  const from = last ? (JSON.parse(last) as LedgerRound).mc_seqno + 1 : 1;
  let written = 0;
  for (let seqno = from; seqno <= chain.head().seqno; seqno++) {
    const mc = chain.getBlock({ workchain: MASTERCHAIN, shard: ROOT_SHARD, seqno });
    const shards = chain.shardsAt(seqno);
    if (!mc || !shards) continue; // no longer kept
    appendFileSync(path, JSON.stringify(ledgerRound({ mc, shards }, Date.now(), await accounts?.changed({ mc, shards }))) + '\n');
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

export async function appendLedger(path: string, r: RoundResult, accounts?: AccountLedger): Promise<void> {
  appendFileSync(path, JSON.stringify(ledgerRound(r, Date.now(), await accounts?.changed(r))) + '\n');
}
