/**
 * One block: download (hashes verified), decode, and the states of the accounts it touched, each
 * checked against the account state hash its last transaction in the block ends with.
 */
import { beginCell, blockRecords, loadBlock, parseBoc } from '@tonstream/block';
import type { RawAccountState } from '@tonstream/bus';
import { describeId, type LiteApi, MASTERCHAIN, VerifyError } from './lite-api.js';
import { GoneEverywhereError } from '@tonstream/lite-client';
import type { FullBlockId } from './shard-walk.js';

/** A touched account and where to check its state: the state hash after its last transaction. */
export type TouchedAccount = { account: string; last_trans_lt: string; last_trans_hash: string; state_hash_after: string };

export type LoadedBlock = {
  id: FullBlockId;
  boc: Uint8Array;
  genUtime: number;
  prevRefs: FullBlockId[];
  accounts: TouchedAccount[];
  /** Masterchain blocks: the shard tops of ShardHashes; [] for shard blocks. */
  tops: FullBlockId[];
  /** Transactions in the block. */
  txCount: number;
};

const idOf = (r: { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string }): FullBlockId => ({
  workchain: r.workchain,
  shard: r.shard,
  seqno: r.seqno,
  root_hash: r.root_hash,
  file_hash: r.file_hash,
});

/** Downloads and decodes a block; keeps only what the fetcher needs of the records. */
export async function loadVerifiedBlock(lite: LiteApi, id: FullBlockId): Promise<LoadedBlock> {
  const { boc, cells } = await lite.getBlock(id);
  const records = blockRecords(loadBlock(cells), boc, { rootHash: id.root_hash, fileHash: id.file_hash });
  const b = records.block;
  if (b.workchain !== id.workchain || b.shard !== id.shard || b.seqno !== id.seqno) {
    throw new VerifyError(`block requested as ${describeId(id)} says it is ${describeId(b)}`);
  }
  const stateAfter = new Map(records.transactions.map((t) => [t.hash, t.account_state_hash_after]));
  return {
    id,
    boc,
    genUtime: Number(b.gen_utime),
    prevRefs: b.prev_refs.map(idOf),
    accounts: records.accounts.map((a) => ({
      account: a.account,
      last_trans_lt: a.last_trans_lt,
      last_trans_hash: a.last_trans_hash,
      state_hash_after: stateAfter.get(a.last_trans_hash) ?? '',
    })),
    tops: b.workchain === MASTERCHAIN ? records.shards.map(idOf) : [],
    txCount: records.transactions.length,
  };
}

/**
 * Hash of `account_none$0 = Account` (a cell of one 0 bit): the state hash of an address without an
 * account. A liteserver answers such an address with an empty state.
 */
export const EMPTY_ACCOUNT_HASH = Buffer.from(beginCell().storeBit(0).endCell().hash()).toString('base64');

/**
 * The `Account` BoC must hash to the state hash the block's last transaction of that account left;
 * an empty answer stands for account_none, so it passes only when the account has none after the block.
 */
export function verifyAccountState(block: FullBlockId, a: TouchedAccount, state: Uint8Array): void {
  const empty = state.length === 0;
  const hash = empty ? EMPTY_ACCOUNT_HASH : rootHash(state);
  if (hash !== a.state_hash_after) {
    const got = empty ? 'no state (account_none)' : `state hash ${hash}`;
    throw new VerifyError(`account ${a.account} at ${describeId(block)}: ${got}, but tx ${a.last_trans_hash} left state hash ${a.state_hash_after}`);
  }
}

function rootHash(boc: Uint8Array): string {
  const cells = parseBoc(boc);
  return Buffer.from(cells.hash(cells.roots[0])).toString('base64');
}

/**
 * getAccountState answers that mean "this liteserver has no state for that block", as opposed to
 * "not yet" (retried) or a failure (retried). One server saying so proves nothing: the pool asks
 * every configured server, and only when all of them say so is the state published as missing
 * (see `isGone` in @tonstream/lite-client). The strings, from what the servers really answer:
 * - `state already gc'd`: upstream ton-blockchain/ton validator/db/rootdb.cpp RootDb::get_block_state,
 *   the block's state was stored and then garbage-collected. The liteserver passes it on as
 *   "cannot load state for <block id> : state already gc'd" (validator/impl/liteserver.cpp,
 *   LiteQuery::request_block_state).
 * - `state not in db`: same function, the state was never stored on this server (e.g. a node that
 *   started from a later persistent state). Same prefix.
 * - `account states are kept for the last N rounds; round R is older`: our local network
 *   (packages/localnet/src/chain.ts), passed through as liteServer.error 651 by
 *   services/localnet/src/tl.ts translateError.
 * Deliberately not matched: "block ... is not applied" and "block ... is not in db" / "block
 * handle not in db" (the server has not got the block yet: a lagging server, and the fetcher has
 * just downloaded that block from one of them), "lt not in db" (a transaction lookup), timeouts.
 */
export const STATE_GONE = /state already gc'd|state not in db|account states are kept for the last \d+ rounds/;

/** The pool's `isGone`: only getAccountState answers, only the strings of STATE_GONE. */
export function isStateGoneAnswer(error: Error, method: string): boolean {
  return method === 'getAccountState' && STATE_GONE.test(error.message);
}

/** Every configured liteserver answered that it has no such state. */
export function isStateGone(err: unknown): boolean {
  return err instanceof GoneEverywhereError;
}

/**
 * States of the accounts the block touched, in the block's account order; `missing` lists the
 * accounts whose state no configured liteserver has (see STATE_GONE). Other errors throw.
 */
export async function loadAccountStates(lite: LiteApi, block: LoadedBlock): Promise<{ states: RawAccountState[]; missing: string[] }> {
  const missing: string[] = [];
  const loaded = await Promise.all(
    block.accounts.map(async (a) => {
      try {
        const boc = await lite.getAccountState(block.id, a.account, (state) => verifyAccountState(block.id, a, state));
        return { account: a.account, boc, last_trans_lt: a.last_trans_lt, last_trans_hash: a.last_trans_hash };
      } catch (err) {
        if (!isStateGone(err)) throw err;
        missing.push(a.account);
        return undefined;
      }
    }),
  );
  return { states: loaded.filter((s) => s !== undefined), missing };
}
