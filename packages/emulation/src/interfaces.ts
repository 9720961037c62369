import { recoverWith } from '@tonstream/errors';
import { Cell, getMethodId, loadShardAccount, parseTuple, TupleReader } from '@ton/core';
import type { IExecutor } from '@ton/sandbox';
import type { TransactionRecord } from '@tonstream/records';

/** What is known about a contract after the trace, by kind (the names @tonstream/actions' lookup uses). */
export type DetectedInterfaces = {
  JettonWallet?: { address: string; owner: string; jetton: string; balance: string };
};

/** TEP-74 messages a Jetton wallet receives: transfer, internal_transfer, burn. */
const JETTON_WALLET_OPS = new Set(['0x0f8a7ea5', '0x178d4519', '0x595f07bc']);
const GET_WALLET_DATA = getMethodId('get_wallet_data');
const GET_METHOD_GAS = 1_000_000n;

export type InterfaceProbe = {
  executor: Pick<IExecutor, 'runGetMethod'>;
  config: string;
  now: number;
  /** Library dictionary for the account's code, when it needs one. */
  libs: (shardAccount: string) => Promise<Cell | null>;
};

const rawOf = (a: { workChain: number; hash: Buffer }) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;

/**
 * Interfaces of the trace's accounts on their states after the trace, as toncenter's emulator detects
 * them (docs/traces-and-actions.md §5.2), so the classifier can name Jetton transfers. Only accounts that
 * received a Jetton wallet message are probed: `get_wallet_data` must answer (balance, owner, jetton).
 */
export async function detectInterfaces(transactions: readonly TransactionRecord[], finalStates: ReadonlyMap<string, string>, probe: InterfaceProbe): Promise<Record<string, DetectedInterfaces>> {
  const out: Record<string, DetectedInterfaces> = {};
  const candidates = new Set(transactions.filter((t) => t.in_msg?.opcode && JETTON_WALLET_OPS.has(t.in_msg.opcode)).map((t) => t.account));
  for (const account of candidates) {
    const state = finalStates.get(account);
    if (!state) continue;
    const wallet = await jettonWalletData(account, state, probe).catch(recoverWith(undefined));
    if (wallet) out[account] = { JettonWallet: wallet };
  }
  return out;
}

async function jettonWalletData(account: string, shardAccount: string, probe: InterfaceProbe): Promise<DetectedInterfaces['JettonWallet']> {
  const sa = loadShardAccount(Cell.fromBase64(shardAccount).beginParse());
  const acc = sa.account;
  if (!acc || acc.storage.state.type !== 'active' || !acc.storage.state.state.code || !acc.storage.state.state.data) return undefined;
  const res = await probe.executor.runGetMethod({
    code: acc.storage.state.state.code,
    data: acc.storage.state.state.data,
    methodId: GET_WALLET_DATA,
    stack: [],
    config: probe.config,
    verbosity: 'short',
    libs: (await probe.libs(shardAccount)) ?? undefined,
    address: acc.addr,
    unixTime: probe.now,
    balance: acc.storage.balance.coins,
    randomSeed: Buffer.alloc(32),
    gasLimit: GET_METHOD_GAS,
    debugEnabled: false,
  });
  if (!res.output.success || res.output.vm_exit_code !== 0) return undefined;
  const r = new TupleReader(parseTuple(Cell.fromBase64(res.output.stack)));
  const balance = r.readBigNumber();
  const owner = r.readAddress();
  const jetton = r.readAddress();
  return { address: account, owner: rawOf(owner), jetton: rawOf(jetton), balance: balance.toString() };
}
