import { type Chain, type RoundResult } from '@tonstream/localnet';
/**
 * The chain's own record of what it produced, one JSON line per round: every block with its
 * transactions and their messages. End-to-end tests compare the index against it. Message hashes are
 * read with @ton/core from the transaction cells, independently of tonstream's decoder.
 */
export type LedgerTransaction = {
    hash: string;
    account: string;
    lt: string;
    in_msg: string | null;
    out_msgs: string[];
};
export type LedgerBlock = {
    workchain: number;
    shard: string;
    seqno: number;
    root_hash: string;
    file_hash: string;
    transactions: LedgerTransaction[];
};
export type LedgerRound = {
    mc_seqno: number;
    gen_utime: number;
    produced_at_ms: number;
    blocks: LedgerBlock[];
};
export declare function ledgerRound(r: Pick<RoundResult, 'mc' | 'shards'>, producedAtMs: number): LedgerRound;
/**
 * Appends the rounds the chain holds but the ledger lacks (the key block a new chain starts with,
 * rounds before the ledger was switched on), so the ledger covers the chain from its first kept round.
 */
export declare function catchUpLedger(path: string, chain: Chain): number;
export declare function appendLedger(path: string, r: RoundResult): void;
//# sourceMappingURL=ledger.d.ts.map