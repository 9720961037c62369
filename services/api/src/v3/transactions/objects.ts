import { beginCell } from '@ton/core';
import { type MessageContent, type MessageRow, type TransactionRow, wireDescription } from '@tonstream/records';
import { opcodeName } from '@tonstream/contracts';
import { accountStateKey, type AccountStateSummary, messageKey } from '@tonstream/store';

/**
 * Records (as the store keeps them) -> v3 objects (docs/toncenter-v3.md §3). Records carry a few
 * pipeline-only fields, so they are reshaped here rather than spliced as stored text.
 */

const content = (c: MessageContent | null) => c && { hash: c.hash, body: c.body, decoded: null };

/** The v3 `Message`: the stored row without its direction and transaction columns. */
export function toV3Message(m: MessageRow) {
  return {
    hash: m.hash,
    source: m.source,
    destination: m.destination,
    value: m.value,
    value_extra_currencies: m.value_extra_currencies,
    fwd_fee: m.fwd_fee,
    ihr_fee: m.ihr_fee,
    extra_flags: m.extra_flags ?? null,
    created_lt: m.created_lt,
    created_at: m.created_at,
    opcode: m.opcode,
    decoded_opcode: m.opcode === null ? null : opcodeName(Number.parseInt(m.opcode, 16)),
    ihr_disabled: m.ihr_disabled,
    bounce: m.bounce,
    bounced: m.bounced,
    import_fee: m.import_fee,
    message_content: content(m.message_content),
    init_state: content(m.init_state),
    ...(m.hash_norm === undefined ? {} : { hash_norm: m.hash_norm }),
  };
}
export type V3Message = ReturnType<typeof toV3Message>;

const byCreatedLt = (a: MessageRow, b: MessageRow) => {
  const x = BigInt(a.created_lt ?? 0);
  const y = BigInt(b.created_lt ?? 0);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The hash of `account_none$0`, the state every non-existent account shares. */
const ACCOUNT_NONE_HASH = beginCell().storeBit(false).endCell().hash().toString('base64');

/**
 * The v3 `AccountState` of a transaction: what the store holds for that state hash, or the hash
 * alone (the other fields null) when it is not stored: the pipeline stores an account's state once
 * per block, so a state between two transactions of one block is known only by its hash. The
 * non-existent state is always the hash alone, as toncenter serves it (its indexer never stores
 * that state, so ton-index-go finds nothing to join).
 */
function toV3AccountState(hash: string, stored: AccountStateSummary | undefined) {
  const state = hash === ACCOUNT_NONE_HASH ? undefined : stored;
  return {
    hash,
    balance: state?.balance ?? null,
    extra_currencies: state?.extra_currencies ?? null,
    account_status: state?.status ?? null,
    frozen_hash: state?.frozen_hash ?? null,
    data_hash: state?.data_hash ?? null,
    code_hash: state?.code_hash ?? null,
  };
}

/**
 * The v3 `Transaction`: the stored row with its messages joined back (`messages` from
 * readTransactionMessages) and its states before and after (`states` from readAccountStatesByHash).
 */
export function toV3Transaction(t: TransactionRow, messages: Map<string, MessageRow>, states: Map<string, AccountStateSummary>) {
  const find = (direction: 'in' | 'out', hash: string) => {
    const m = messages.get(messageKey(t.hash, direction, hash));
    // Under the watermark every message of a transaction is stored: a miss is a store defect, not a 404.
    if (!m) throw new Error(`message ${hash} (${direction}) of transaction ${t.hash} is not stored`);
    return m;
  };
  // token_events: the decoder's derivation for the token tables; global_version and boc: what the record is
  // derived from (boc also v2's `data`). None is part of the v3 object.
  const { account_state_hash_before: before, account_state_hash_after: after, in_msg, out_msgs, token_events: _events, global_version: _version, boc: _boc, ...rest } = t;
  return {
    ...rest,
    description: wireDescription(rest.description),
    in_msg: in_msg && toV3Message(find('in', in_msg.hash)),
    out_msgs: out_msgs.map((m) => find('out', m.hash)).sort(byCreatedLt).map(toV3Message),
    account_state_before: toV3AccountState(before, states.get(accountStateKey(t.account, before))),
    account_state_after: toV3AccountState(after, states.get(accountStateKey(t.account, after))),
    emulated: false,
    finality: 'finalized' as const,
  };
}
export type V3Transaction = ReturnType<typeof toV3Transaction>;
