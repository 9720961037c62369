import type { TransactionRecord } from '@tonstream/records';

/**
 * What the classifier needs of one trace: the trace's identity and bounds, and its transactions as
 * tonstream's records carry them (in_msg / out_msgs with bodies). The tree is rebuilt from the
 * messages: a transaction's children are the transactions whose in_msg is one of its out_msgs.
 */
export type ClassifierTrace = {
  trace_id: string;
  external_hash: string | null;
  /** TEP-467 hash of the root external, null when equal to `external_hash` or not external. */
  external_hash_norm: string | null;
  end_lt: string;
  end_utime: number;
  mc_seqno_end: number;
  transactions: TransactionRecord[];
};

/** Contract context by raw address (upper-case `wc:HEX`); the kinds match toncenter's repository. */
export type ContractInterfaces = {
  JettonWallet?: { address: string; owner: string; jetton: string; balance?: string };
  JettonMaster?: { address: string };
  NftItem?: { address: string; index: string | null; collection_address: string | null; owner_address: string | null; content?: unknown };
  NftSale?: { address: string; marketplace_address: string | null; nft_address: string; nft_owner_address: string | null; full_price: string };
  NftAuction?: { address: string; nft_addr: string; nft_owner: string | null; mp_addr: string | null; last_bid: string };
  DedustPool?: { assets: { is_ton: boolean; address: string | null }[] };
  /** Raw contract data a matcher asked for (base64 BoC). */
  data_boc?: { data_boc: string };
  [kind: string]: unknown;
};

/**
 * The interface lookup: what is known about a contract (jetton wallet's master and owner, an NFT's
 * collection, a pool's assets). The caller prefetches it for the trace's accounts; `undefined` means
 * nothing is known, and a matcher then relies on what the trace itself proves.
 */
export type InterfaceLookup = (address: string) => ContractInterfaces | undefined;
