import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { type CurrencyCollection, loadCurrencyCollection } from '../tlb/common.js';
import { walkHashmapE } from '../tlb/hashmap.js';
import { type CommonMsgInfo, loadCommonMsgInfo } from '../tlb/message.js';
import type { Cell } from './cell.js';
import { serializeCells } from './cell-boc.js';
import { BuildError } from './errors.js';

/** What the block builder needs of a message: the cell, its hash and its header. */
export type MsgSummary = { cell: Cell; hash: string; info: CommonMsgInfo };

/** What the block builder needs of a transaction. */
export type TxSummary = {
  cell: Cell;
  hash: string;
  accountAddr: string;
  lt: bigint;
  totalFees: CurrencyCollection;
  stateUpdate: { oldHash: string; newHash: string };
  inMsg?: MsgSummary;
  outMsgs: MsgSummary[];
};

/**
 * Reads transaction cells with the TL-B reader (serialized together once, so the table's indices
 * map back to the given `Cell` objects):
 *   transaction$0111 account_addr:bits256 lt:uint64 prev_trans_hash:bits256 prev_trans_lt:uint64 now:uint32
 *     outmsg_cnt:uint15 orig_status:AccountStatus end_status:AccountStatus
 *     ^[ in_msg:(Maybe ^(Message Any)) out_msgs:(HashmapE 15 ^(Message Any)) ]
 *     total_fees:CurrencyCollection state_update:^(HASH_UPDATE Account) description:^TransactionDescr = Transaction;
 */
export function summarizeTransactions(txs: Cell[]): TxSummary[] {
  if (txs.length === 0) return [];
  const { boc, order, rootIndices } = serializeCells(txs);
  const table = parseBoc(boc);
  const message = (index: number): MsgSummary => {
    const cell = order[index];
    return { cell, hash: cell.hashHex(), info: loadCommonMsgInfo(new Slice(table, index, 'Message')) };
  };
  return rootIndices.map((root, i) => {
    const s = new Slice(table, root, `transactions[${i}]`);
    if (s.loadUint(4) !== 0b0111) s.fail('not a Transaction (tag 0111)');
    const accountAddr = s.loadHash();
    const lt = s.loadUintBig(64);
    s.skip(256 + 64 + 32 + 15 + 2 + 2);
    const msgs = s.loadRefSlice(`${s.path}.messages`);
    const inIndex = msgs.loadMaybeRef();
    const outMsgs: MsgSummary[] = [];
    walkHashmapE(msgs, 15, (_key, v) => outMsgs.push(message(v.loadRef())));
    const totalFees = loadCurrencyCollection(s);
    const su = s.loadRefSlice(`${s.path}.state_update`);
    if (su.loadUint(8) !== 0x72) su.fail('not a HASH_UPDATE (tag 0x72)');
    const stateUpdate = { oldHash: su.loadHash(), newHash: su.loadHash() };
    const inMsg = inIndex === undefined ? undefined : message(inIndex);
    if (inMsg?.info.type === 'external-out') throw new BuildError(`transaction ${txs[i].hashHex()}: inbound message is external-out`);
    return { cell: txs[i], hash: txs[i].hashHex(), accountAddr, lt, totalFees, stateUpdate, inMsg, outMsgs };
  });
}
