import { Cell, Dictionary, loadMessage } from '@ton/core';
import { loadTransaction, parseBoc, Slice, transactionRecord } from '@tonstream/block';
import type { BlockId, TransactionRecord } from '@tonstream/records';

/** An emulated transaction as the decoder would record it from a block, and the messages it sent. */
export type DecodedTransaction = {
  record: TransactionRecord;
  /** Out messages as cells, in creation order: what their destinations will receive, hash for hash. */
  outMessages: { cell: Cell; destination: string | null; internal: boolean }[];
};

/**
 * Decodes a transaction BoC the executor returned with @tonstream/block, the decoder's own code, so an
 * emulated record has exactly the fields and forms of an indexed one. `shardBlock` and `mcSeqno` are
 * where it is expected to land; `globalVersion` is the config's (globalVersion()), as a block's would be.
 */
export function decodeEmulatedTransaction(txBoc: Buffer, workchain: number, shardBlock: BlockId, mcSeqno: number, globalVersion?: number): DecodedTransaction {
  const cells = parseBoc(txBoc);
  const tx = loadTransaction(new Slice(cells, cells.roots[0], 'Transaction'));
  const record = transactionRecord(cells, tx, `${workchain}:${tx.accountAddr.toUpperCase()}`, shardBlock, mcSeqno, globalVersion);
  return { record, outMessages: outMessageCells(txBoc) };
}

/** ConfigParam 8, `capabilities#c4 version:uint32 capabilities:uint64 = GlobalVersion`, of a config dictionary BoC (base64). */
export function globalVersion(configBoc: string): number | undefined {
  const params = Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), Cell.fromBase64(configBoc));
  const p8 = params.get(8)?.beginParse();
  return p8 && p8.loadUint(8) === 0xc4 ? p8.loadUint(32) : undefined;
}

/**
 * transaction$0111 ... ^[ in_msg:(Maybe ^(Message Any)) out_msgs:(HashmapE 15 ^(Message Any)) ] ...:
 * the out messages' own cells (re-serializing a parsed message could place the body differently and
 * change its hash).
 */
function outMessageCells(txBoc: Buffer): DecodedTransaction['outMessages'] {
  const root = Cell.fromBoc(txBoc)[0];
  const s = root.refs[0].beginParse();
  s.loadMaybeRef();
  const dict = s.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell());
  return dict.keys().sort((a, b) => a - b).map((k) => {
    const cell = dict.get(k)!;
    const info = loadMessage(cell.beginParse()).info;
    const internal = info.type === 'internal';
    const dest = info.type === 'internal' ? info.dest : null;
    return { cell, destination: dest ? `${dest.workChain}:${dest.hash.toString('hex').toUpperCase()}` : null, internal };
  });
}
