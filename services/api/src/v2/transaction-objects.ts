import type { MessageRecord, TransactionRow } from '@tonstream/records';
import { messageKey } from '@tonstream/store';
import { Address, beginCell, Cell, Dictionary, loadMessage, loadTransaction, storeStateInit } from '@ton/core';
import { friendlyAddress, parseAddress, rawAddress } from '../chain/address.js';

/**
 * Indexed transactions in v2's shapes (docs/toncenter-v2.md §3.1): `ext.transaction` / `ext.message`
 * (getTransactions, tryLocate*) and `raw.transaction` / `raw.message` (getBlockTransactionsExt).
 * `data` is the raw BoC from the liteserver ("" where it keeps it no more).
 */

export type Shaping = { testnet: boolean; messages: Map<string, MessageRecord>; bocs: Map<string, string> };

function friendly(raw: string | null, testnet: boolean): string {
  if (raw === null) return '';
  const a = parseAddress(raw);
  return a ? friendlyAddress(a, { bounceable: true, testOnly: testnet }) : raw;
}

/** A text comment (op 0 then UTF-8, snake-continued) or undefined. */
function commentText(body: Cell): string | undefined {
  const s = body.beginParse();
  if (s.remainingBits < 32 || s.loadUint(32) !== 0) return undefined;
  try {
    const text = s.loadStringTail();
    return Buffer.from(text, 'utf8').toString('utf8') === text && !text.includes('\uFFFD') ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The first cell's data bytes (padded), tonlib's `message` for raw bodies. */
function firstCellBytes(body: Cell): Buffer {
  const bytes = Buffer.alloc(Math.ceil(body.bits.length / 8));
  for (let i = 0; i < body.bits.length; i++) if (body.bits.at(i)) bytes[i >> 3] |= 0x80 >> (i & 7);
  return bytes;
}

function msgData(m: MessageRecord): { msg_data: Record<string, unknown>; message: string } {
  let body: Cell | undefined;
  try {
    body = Cell.fromBase64(m.message_content.body);
  } catch {
    body = undefined;
  }
  const text = body && !m.init_state ? commentText(body) : undefined;
  if (text !== undefined) return { msg_data: { '@type': 'msg.dataText', text: Buffer.from(text, 'utf8').toString('base64') }, message: text };
  return {
    msg_data: { '@type': 'msg.dataRaw', body: m.message_content.body, init_state: m.init_state?.body ?? '' },
    message: body ? `${firstCellBytes(body).toString('base64')}\n` : '',
  };
}

const extraCurrencies = (ec: Record<string, string>) => Object.entries(ec).map(([id, amount]) => ({ '@type': 'extraCurrency', id: Number(id), amount }));

function message(m: MessageRecord, s: Shaping, raw: boolean) {
  const { msg_data, message } = msgData(m);
  const address = (a: string | null) => (raw ? { '@type': 'accountAddress', account_address: friendly(a, s.testnet) } : friendly(a, s.testnet));
  return {
    '@type': raw ? 'raw.message' : 'ext.message',
    hash: m.hash,
    source: address(m.source),
    destination: address(m.destination),
    value: m.value ?? '0',
    extra_currencies: extraCurrencies(m.value_extra_currencies),
    fwd_fee: m.fwd_fee ?? '0',
    ihr_fee: m.ihr_fee ?? '0',
    created_lt: m.created_lt ?? '0',
    body_hash: m.message_content.hash,
    msg_data,
    ...(raw ? {} : { message }),
  };
}

function messagesOf(t: TransactionRow, s: Shaping): { inMsg?: MessageRecord; outMsgs: MessageRecord[] } {
  const inMsg = t.in_msg ? s.messages.get(messageKey(t.hash, 'in', t.in_msg.hash)) : undefined;
  const outMsgs = t.out_msgs.map((o) => s.messages.get(messageKey(t.hash, 'out', o.hash))).filter((m): m is MessageRecord => m !== undefined);
  return { inMsg, outMsgs };
}

function common(t: TransactionRow, s: Shaping) {
  const storage = BigInt(t.description.storage_ph?.storage_fees_collected ?? '0');
  return {
    address: { '@type': 'accountAddress', account_address: friendly(t.account, s.testnet) },
    utime: t.now,
    data: s.bocs.get(t.hash) ?? '',
    transaction_id: { '@type': 'internal.transactionId', lt: t.lt, hash: t.hash },
    fee: t.total_fees,
    storage_fee: storage.toString(),
    other_fee: (BigInt(t.total_fees) - storage).toString(),
  };
}

/** `ext.transaction` (C++ getTransactions, tryLocate*). */
export function extTransaction(t: TransactionRow, s: Shaping) {
  const { inMsg, outMsgs } = messagesOf(t, s);
  const c = common(t, s);
  return {
    '@type': 'ext.transaction',
    address: c.address,
    account: t.account,
    utime: c.utime,
    data: c.data,
    transaction_id: c.transaction_id,
    fee: c.fee,
    storage_fee: c.storage_fee,
    other_fee: c.other_fee,
    ...(inMsg ? { in_msg: message(inMsg, s, false) } : {}),
    out_msgs: outMsgs.map((m) => message(m, s, false)),
  };
}

/** `raw.transactionExt`: tonlib's raw.transaction plus the raw account (getBlockTransactionsExt). */
export function rawTransactionExt(t: TransactionRow, s: Shaping) {
  const { inMsg, outMsgs } = messagesOf(t, s);
  return {
    '@type': 'raw.transactionExt',
    ...common(t, s),
    account: t.account,
    ...(inMsg ? { in_msg: message(inMsg, s, true) } : {}),
    out_msgs: outMsgs.map((m) => message(m, s, true)),
  };
}

/** `raw.transaction`: tonlib's own shape (getTransactionsStd). */
export function rawTransaction(t: TransactionRow, s: Shaping) {
  const { account: _account, ...rest } = rawTransactionExt(t, s);
  return { ...rest, '@type': 'raw.transaction' };
}

/** A message as the index records it, from the raw message cell (for transactions the index does not hold yet). */
function messageRecordOf(cell: Cell): MessageRecord {
  const m = loadMessage(cell.beginParse());
  const addr = (a: unknown) => (a instanceof Address ? rawAddress({ workchain: a.workChain, hash: a.hash }) : null);
  const i = m.info;
  const internal = i.type === 'internal' ? i : undefined;
  const init = m.init ? beginCell().store(storeStateInit(m.init)).endCell() : null;
  return {
    hash: cell.hash().toString('base64'),
    source: addr(i.src),
    destination: addr(i.dest),
    value: internal ? internal.value.coins.toString() : null,
    value_extra_currencies: Object.fromEntries([...(internal?.value.other ?? new Map<number, bigint>())].map(([k, v]) => [String(k), v.toString()])),
    fwd_fee: internal ? internal.forwardFee.toString() : null,
    ihr_fee: internal ? internal.ihrFee.toString() : null,
    import_fee: i.type === 'external-in' ? i.importFee.toString() : null,
    created_lt: i.type === 'external-in' ? null : i.createdLt.toString(),
    created_at: i.type === 'external-in' ? null : String(i.createdAt),
    opcode: null,
    ihr_disabled: internal ? internal.ihrDisabled : null,
    bounce: internal ? internal.bounce : null,
    bounced: internal ? internal.bounced : null,
    message_content: { hash: m.body.hash().toString('base64'), body: m.body.toBoc().toString('base64') },
    init_state: init ? { hash: init.hash().toString('base64'), body: init.toBoc().toString('base64') } : null,
  };
}

/**
 * `ext.transaction` straight from a transaction BoC of the liteserver: for a transaction a client
 * names (lt + hash) that the index does not hold yet. Messages are read from their own cells, so
 * their hashes are the chain's.
 */
export function extTransactionFromBoc(cell: Cell, workchain: number, testnet: boolean) {
  const tx = loadTransaction(cell.beginParse());
  const account = rawAddress({ workchain, hash: Buffer.from(tx.address.toString(16).padStart(64, '0'), 'hex') });
  // transaction$0111 … ^[in_msg:(Maybe ^Message) out_msgs:(HashmapE 15 ^Message)]: the raw message cells.
  const msgs = cell.refs[0].beginParse();
  const inCell = msgs.loadBit() ? msgs.loadRef() : undefined;
  const outCells = [...msgs.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell()).values()];
  const hash = cell.hash().toString('base64');
  const messages = new Map<string, MessageRecord>();
  const row: TransactionRow = {
    account,
    hash,
    lt: tx.lt.toString(),
    now: tx.now,
    total_fees: tx.totalFees.coins.toString(),
    description: { type: 'ord', storage_ph: tx.description.type === 'generic' && tx.description.storagePhase ? { storage_fees_collected: tx.description.storagePhase.storageFeesCollected.toString(), storage_fees_due: null, status_change: 'unchanged' } : undefined },
    in_msg: null,
    out_msgs: [],
  } as unknown as TransactionRow;
  if (inCell) {
    const m = messageRecordOf(inCell);
    messages.set(messageKey(hash, 'in', m.hash), m);
    row.in_msg = { hash: m.hash };
  }
  for (const c of outCells) {
    const m = messageRecordOf(c);
    messages.set(messageKey(hash, 'out', m.hash), m);
    row.out_msgs.push({ hash: m.hash });
  }
  return extTransaction(row, { testnet, messages, bocs: new Map([[hash, cell.toBoc().toString('base64')]]) });
}
