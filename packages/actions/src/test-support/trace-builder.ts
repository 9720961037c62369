import { createHash } from 'node:crypto';
import type { Builder, Cell } from '@ton/core';
import { Address, beginCell } from '@ton/core';
import type { ClassifierTrace, ContractInterfaces, InterfaceLookup } from '../input.js';
import type { FixtureTrace } from '../fixture-adapter.js';
import { fromFixtureTrace } from '../fixture-adapter.js';

/*
 * Hand-made traces for unit tests, in the golden fixtures' format (toncenter's trace dumps) and read
 * through `fromFixtureTrace`, as the golden traces are: a tree of transactions, each started by one
 * inbound message, with the messages it sends (to the transactions below it, or as logs).
 */

/** One transaction: the account, the message that started it, and what it sent. */
export type TxSpec = {
  account: string;
  body: Cell;
  /** TON value of the inbound message (none for an external). */
  value?: bigint;
  /** Inbound message flags. */
  bounce?: boolean;
  bounced?: boolean;
  aborted?: boolean;
  exitCode?: number;
  origStatus?: string;
  endStatus?: string;
  /** Transactions started by this one's outbound messages, in the order they were sent. */
  children?: TxSpec[];
  /** External-out messages (event logs) of this transaction. */
  logs?: Cell[];
};

type FixtureTx = FixtureTrace['transactions'][number];
type FixtureMsg = FixtureTx['messages'][number];

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

function opcodeOf(body: Cell): number | null {
  return body.bits.length >= 32 ? body.beginParse().preloadInt(32) : null;
}

/**
 * A trace whose root transaction is `root`, started by an external message (a wallet's signed
 * request), with what is known of its contracts. Lts grow depth first, in the order listed.
 */
export function buildTrace(root: TxSpec, interfaces: Record<string, ContractInterfaces> = {}): { trace: ClassifierTrace; lookup: InterfaceLookup } {
  const txs: FixtureTx[] = [];
  let lt = 1_000_000n;
  const now = 1_750_000_000;
  const message = (id: string, source: string | null, destination: string | null, body: Cell, createdLt: bigint, spec: Partial<TxSpec>, direction: 'in' | 'out'): FixtureMsg => {
    const boc = body.toBoc().toString('base64');
    const bodyHash = body.hash().toString('base64');
    return {
      msg_hash: hashOf(`msg:${id}`),
      direction,
      source,
      destination,
      value: source === null ? null : String(spec.value ?? 0n),
      fwd_fee: source === null ? null : '1000',
      ihr_fee: source === null ? null : '0',
      import_fee: source === null ? '0' : null,
      created_lt: source === null ? null : String(createdLt),
      created_at: source === null ? null : now,
      opcode: opcodeOf(body),
      ihr_disabled: source === null ? null : true,
      bounce: source === null ? null : (spec.bounce ?? true),
      bounced: source === null ? null : (spec.bounced ?? false),
      body_hash: bodyHash,
      value_extra_currencies: {},
      message_content: { hash: bodyHash, body: boc },
    };
  };
  const visit = (spec: TxSpec, id: string, inMsg: FixtureMsg): void => {
    lt += 1000n;
    const txLt = lt;
    const hash = hashOf(`tx:${id}`);
    const tx: FixtureTx = {
      account: spec.account,
      hash,
      lt: String(txLt),
      now,
      block_seqno: 1,
      mc_block_seqno: 1,
      prev_trans_hash: hashOf(`prev:${id}`),
      prev_trans_lt: '0',
      orig_status: spec.origStatus ?? 'active',
      end_status: spec.endStatus ?? 'active',
      total_fees: '1000',
      account_state_hash_before: hashOf(`before:${id}`),
      account_state_hash_after: hashOf(`after:${id}`),
      descr: 'ord',
      aborted: spec.aborted ?? false,
      destroyed: false,
      credit_first: false,
      is_tock: null,
      installed: null,
      compute_mode: 0,
      compute_exit_code: spec.exitCode ?? (spec.aborted ? 9 : 0),
      compute_exit_arg: null,
      messages: [{ ...inMsg, direction: 'in' }],
    };
    txs.push(tx);
    let created = txLt;
    const sent: [TxSpec, string, FixtureMsg][] = [];
    (spec.children ?? []).forEach((child, i) => {
      created += 1n;
      const childId = `${id}.${i}`;
      const out = message(childId, spec.account, child.account, child.body, created, child, 'out');
      tx.messages.push(out);
      sent.push([child, childId, out]);
    });
    (spec.logs ?? []).forEach((log, i) => {
      created += 1n;
      tx.messages.push(message(`${id}.log${i}`, spec.account, null, log, created, {}, 'out'));
    });
    for (const [child, childId, out] of sent) visit(child, childId, out);
  };
  const external = message('root', null, root.account, root.body, lt, root, 'in');
  visit(root, 'root', external);
  txs.sort((a, b) => (BigInt(a.lt) < BigInt(b.lt) ? -1 : 1));
  const last = txs[txs.length - 1];
  const fixture: FixtureTrace = {
    trace: { trace_id: txs[0].hash, external_hash: external.msg_hash, mc_seqno_end: 1, end_lt: last.lt, end_utime: now },
    transactions: txs,
    interfaces,
  };
  return fromFixtureTrace(fixture);
}

/** A raw address `0:<64 hex>` made from a short name, for readable tests. */
export function addr(name: string): string {
  return `0:${createHash('sha256').update(name).digest('hex').toUpperCase()}`;
}

/*
 * Message bodies as TEP-74 lays them out, written with @ton/core (not with the layouts the
 * classifier reads them by).
 */

const address = (a: string | null) => (a === null ? null : Address.parse(a));

/** `op query_id:uint64`, then whatever `rest` stores. */
export function opBody(opcode: number, rest: (b: Builder) => Builder = (b) => b): Cell {
  return rest(beginCell().storeUint(opcode, 32).storeUint(7, 64)).endCell();
}

export function jettonTransferBody(amount: bigint, destination: string, response: string | null, forwardAmount = 0n): Cell {
  return opBody(0x0f8a7ea5, (b) => b.storeCoins(amount).storeAddress(address(destination)).storeAddress(address(response)).storeBit(false).storeCoins(forwardAmount).storeBit(false));
}

export function internalTransferBody(amount: bigint, from: string, response: string | null, forwardAmount = 0n): Cell {
  return opBody(0x178d4519, (b) => b.storeCoins(amount).storeAddress(address(from)).storeAddress(address(response)).storeCoins(forwardAmount).storeBit(false));
}

export function notifyBody(amount: bigint, sender: string): Cell {
  return opBody(0x7362d09c, (b) => b.storeCoins(amount).storeAddress(address(sender)).storeBit(false));
}

export function burnBody(amount: bigint, response: string | null): Cell {
  return opBody(0x595f07bc, (b) => b.storeCoins(amount).storeAddress(address(response)).storeBit(false));
}

export function burnNotificationBody(amount: bigint, sender: string, response: string | null): Cell {
  return opBody(0x7bdd97de, (b) => b.storeCoins(amount).storeAddress(address(sender)).storeAddress(address(response)));
}

export const excessesBody = (): Cell => opBody(0xd53276db);

/** A wallet external's body with a 32-bit opcode only (what the classifier leaves unread). */
export const walletExternalBody = (): Cell => beginCell().storeUint(0x7369676e, 32).endCell();
