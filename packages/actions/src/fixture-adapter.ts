import type { ComputePhaseRecord, MessageContent, MessageRecord, TransactionRecord } from '@tonstream/records';
import type { ClassifierTrace, ContractInterfaces, InterfaceLookup } from './input.js';

/*
 * The golden fixtures' trace format (toncenter's test dumps as JSON, see
 * fixtures/mainnet/traces/README.md) turned into the classifier's input: tonstream records plus an
 * interface lookup over the dump's `interfaces`.
 */

type FixtureMessage = {
  msg_hash: string;
  direction: 'in' | 'out';
  source: string | null;
  destination: string | null;
  value: string | null;
  fwd_fee: string | null;
  ihr_fee: string | null;
  import_fee: string | null;
  created_lt: string | null;
  created_at: number | null;
  opcode: number | null;
  ihr_disabled: boolean | null;
  bounce: boolean | null;
  bounced: boolean | null;
  body_hash: string | null;
  value_extra_currencies: Record<string, string> | null;
  message_content?: MessageContent | null;
  init_state?: MessageContent | null;
};

type FixtureTransaction = {
  account: string;
  hash: string;
  lt: string;
  now: number;
  block_seqno: number;
  mc_block_seqno: number | null;
  prev_trans_hash: string;
  prev_trans_lt: string;
  orig_status: string;
  end_status: string;
  total_fees: string;
  account_state_hash_before: string;
  account_state_hash_after: string;
  descr: TransactionRecord['description']['type'];
  aborted: boolean | null;
  destroyed: boolean | null;
  credit_first: boolean | null;
  is_tock: boolean | null;
  installed: boolean | null;
  compute_mode: number | null;
  compute_exit_code: number | null;
  compute_exit_arg: number | null;
  messages: FixtureMessage[];
};

export type FixtureTrace = {
  trace: { trace_id: string; external_hash: string | null; mc_seqno_end: number; end_lt: string; end_utime: number };
  transactions: FixtureTransaction[];
  message_contents?: MessageContent[];
  interfaces: Record<string, ContractInterfaces>;
};

export function opcodeText(opcode: number | null): string | null {
  return opcode === null ? null : `0x${(opcode >>> 0).toString(16).padStart(8, '0')}`;
}

function toMessage(m: FixtureMessage, contents: Map<string, MessageContent>): MessageRecord {
  const content = m.message_content ?? (m.body_hash ? contents.get(m.body_hash) : undefined);
  if (!content) throw new Error(`fixture message ${m.msg_hash} has no body`);
  return {
    hash: m.msg_hash,
    source: m.source,
    destination: m.destination,
    value: m.value,
    value_extra_currencies: m.value_extra_currencies ?? {},
    fwd_fee: m.fwd_fee,
    ihr_fee: m.ihr_fee,
    import_fee: m.import_fee,
    created_lt: m.created_lt,
    created_at: m.created_at === null ? null : String(m.created_at),
    opcode: opcodeText(m.opcode),
    ihr_disabled: m.ihr_disabled,
    bounce: m.bounce,
    bounced: m.bounced,
    message_content: content,
    init_state: m.init_state ?? null,
  };
}

/**
 * The dumps keep only the compute phase's mode and exit code/arg; the gas and VM fields they lack
 * are zero here (nothing in the classifier reads them). No exit code = the phase was skipped.
 */
function computePhase(t: FixtureTransaction): ComputePhaseRecord | undefined {
  if (t.compute_exit_code === null) return undefined;
  return {
    skipped: false,
    success: t.compute_exit_code === 0 || t.compute_exit_code === 1,
    msg_state_used: false,
    account_activated: false,
    gas_fees: '0',
    gas_used: '0',
    gas_limit: '0',
    gas_credit: null,
    mode: t.compute_mode ?? 0,
    exit_code: t.compute_exit_code,
    exit_arg: t.compute_exit_arg,
    vm_steps: 0,
    vm_init_state_hash: '',
    vm_final_state_hash: '',
  };
}

function toTransaction(t: FixtureTransaction, contents: Map<string, MessageContent>): TransactionRecord {
  const inMsg = t.messages.find((m) => m.direction === 'in');
  const outMsgs = t.messages.filter((m) => m.direction === 'out');
  outMsgs.sort((a, b) => (BigInt(a.created_lt ?? 0) < BigInt(b.created_lt ?? 0) ? -1 : 1));
  return {
    account: t.account,
    hash: t.hash,
    lt: t.lt,
    now: t.now,
    mc_block_seqno: t.mc_block_seqno,
    prev_trans_hash: t.prev_trans_hash,
    prev_trans_lt: t.prev_trans_lt,
    orig_status: t.orig_status,
    end_status: t.end_status,
    total_fees: t.total_fees,
    total_fees_extra_currencies: {},
    account_state_hash_before: t.account_state_hash_before,
    account_state_hash_after: t.account_state_hash_after,
    description: {
      type: t.descr,
      aborted: t.aborted ?? undefined,
      destroyed: t.destroyed ?? undefined,
      credit_first: t.credit_first ?? undefined,
      is_tock: t.is_tock ?? undefined,
      installed: t.installed ?? undefined,
      compute_ph: computePhase(t),
    },
    block_ref: { workchain: Number(t.account.split(':')[0]), shard: '', seqno: t.block_seqno },
    in_msg: inMsg ? toMessage(inMsg, contents) : null,
    out_msgs: outMsgs.map((m) => toMessage(m, contents)),
  };
}

/** A fixture trace as the classifier's input and its interface lookup. */
export function fromFixtureTrace(fixture: FixtureTrace): { trace: ClassifierTrace; lookup: InterfaceLookup } {
  const contents = new Map((fixture.message_contents ?? []).map((c) => [c.hash, c]));
  const t = fixture.trace;
  const trace: ClassifierTrace = {
    trace_id: t.trace_id,
    external_hash: t.external_hash,
    external_hash_norm: null,
    end_lt: t.end_lt,
    end_utime: t.end_utime,
    mc_seqno_end: t.mc_seqno_end,
    transactions: fixture.transactions.map((tx) => toTransaction(tx, contents)),
  };
  const interfaces = fixture.interfaces;
  return { trace, lookup: (address) => interfaces[address] };
}
