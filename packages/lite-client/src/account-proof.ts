import { rethrowBugs } from '@tonstream/errors';
import { Cell, loadShardStateUnsplit } from '@ton/core';

/**
 * The account's last transaction as its ShardAccount in a getAccountState / runSmcMethod state proof
 * holds it (the proof's second root is the shard state); undefined when the proof does not have it.
 */
export function lastTransactionOf(proof: Uint8Array, accountHash: Uint8Array): { lt: bigint; hash: Buffer } | undefined {
  try {
    const roots = Cell.fromBoc(Buffer.from(proof));
    const stateCell = roots[1]?.refs[0];
    if (!stateCell) return undefined;
    const state = loadShardStateUnsplit(stateCell.beginParse());
    const entry = state.accounts?.get(BigInt(`0x${Buffer.from(accountHash).toString('hex')}`));
    if (!entry) return undefined;
    return { lt: entry.shardAccount.lastTransactionLt, hash: Buffer.from(entry.shardAccount.lastTransactionHash.toString(16).padStart(64, '0'), 'hex') };
  } catch (err) {
    rethrowBugs(err);
    return undefined;
  }
}
