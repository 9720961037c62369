import { factsOf } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { readAccountStates } from '@tonstream/store';
import { type LiteAccountState, balanceOf, readLiteAccountState, stateParts, tonlibState } from '../../chain/account-state.js';
import { runGetMethod } from '../../chain/get-method.js';
import { estimateFee, normalizedHash, sendExternal } from '../../chain/send.js';
import { readStack, v3StackEntry } from '../../chain/stack.js';
import { walletInformation } from '../../chain/wallets.js';
import * as chainKinds from '../../http/chain-kinds.js';
import { HttpError } from '../../http/http-error.js';
import { arr, N, nullable, obj, S } from '../../http/schema-kit.js';
import { defineEndpoint, type Endpoint, type EndpointContext } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import type { JsonSchema, Kind } from '../../http/kinds.js';
import { optional, type Param, withDefault } from '../../http/params.js';

/**
 * v3's legacy v2-compatible endpoints (docs/toncenter-v3.md §2.10) on the chain reads v2 uses too: /addressInformation
 * (/account), /walletInformation (/wallet) from the index by default (`use_v2=true`: the
 * liteserver), and POST /message, /runGetMethod, /estimateFee through the liteserver. As toncenter,
 * a missing required field is 401 naming it.
 */

/** A required parameter whose absence is toncenter's 401 with its own wording. */
function required401<T>(kind: Kind<T>, description: string, missing: string): Param<T> {
  const base = optional(kind, description);
  return {
    ...base,
    required: true,
    read(texts, name) {
      const v = base.read(texts, name);
      if (v === undefined) throw new HttpError(401, missing);
      return v;
    },
  };
}

/** What the liteserver-backed endpoints answer besides the statuses of every endpoint. */
const LITESERVER_ERRORS = {
  401: 'A required field is missing (toncenter answers 401 here, naming the field)',
  404: 'The liteserver does not have the block or state asked for (LITE_SERVER_NOTREADY)',
  501: 'The liteserver does not support the query (LITE_SERVER_NOTIMPLEMENTED)',
  502: 'The liteserver sent an answer that cannot be read',
  533: 'The result stack is nested too deep to answer',
};

const ZERO_HASH = Buffer.alloc(32).toString('base64');
const V2_STATUS = { active: 'active', uninitialized: 'uninit', frozen: 'frozen' } as const;
const addressParams = {
  address: required401(chainKinds.address, 'Account address, raw or user-friendly.', 'address of account is required'),
  use_v2: withDefault(kinds.bool, false, 'Read the state from the liteserver (v2 getAddressInformation) instead of the index; default false.'),
};
type AddressParams = typeof addressParams;

async function indexedState(ctx: EndpointContext<AddressParams>): Promise<AccountStateRecord | undefined> {
  return (await readAccountStates(ctx.store, ctx.scope, [ctx.params.address.raw])).get(ctx.params.address.raw);
}

const liteState = (ctx: EndpointContext<AddressParams>): Promise<LiteAccountState> => readLiteAccountState(ctx.lite, ctx.params.address);

const ADDRESS_INFORMATION = obj(
  { balance: S, code: nullable(S), data: nullable(S), last_transaction_lt: nullable(S), last_transaction_hash: nullable(S), frozen_hash: nullable(S), status: S },
  ['code', 'data', 'last_transaction_lt', 'last_transaction_hash', 'frozen_hash'],
);
const WALLET_INFORMATION = obj(
  { balance: S, wallet_type: S, seqno: N, wallet_id: N, last_transaction_lt: S, last_transaction_hash: S, status: S },
  ['wallet_type', 'seqno', 'wallet_id', 'last_transaction_lt', 'last_transaction_hash'],
);

function addressInformation(path: string, operationId: string): Endpoint {
  return defineEndpoint({
    path,
    operationId,
    summary: 'Balance, code, data and last transaction of an account (v2-compatible)',
    description: 'From the index (the latest state at or below the watermark); `use_v2=true` reads the liteserver.',
    tag: 'api/v2',
    errors: LITESERVER_ERRORS,
    params: addressParams,
    response: ADDRESS_INFORMATION,
    async handle(ctx) {
      if (ctx.params.use_v2) {
        const s = await liteState(ctx);
        const parts = stateParts(s.account);
        return {
          balance: balanceOf(s.account).toString(),
          code: parts.code || null,
          data: parts.data || null,
          last_transaction_lt: s.lastTx.lt.toString(),
          last_transaction_hash: s.lastTx.hash.toString('base64'),
          frozen_hash: parts.frozenHash || null,
          status: V2_STATUS[tonlibState(s.account)],
        };
      }
      const s = await indexedState(ctx);
      if (!s) return { balance: '0', code: null, data: null, last_transaction_lt: '0', last_transaction_hash: ZERO_HASH, frozen_hash: null, status: 'uninit' };
      // toncenter's index path never fills frozen_hash.
      return { balance: s.balance, code: s.code_boc, data: s.data_boc, last_transaction_lt: s.last_trans_lt, last_transaction_hash: s.last_trans_hash, frozen_hash: null, status: s.status };
    },
  });
}

function walletInformationAt(path: string, operationId: string): Endpoint {
  return defineEndpoint({
    path,
    operationId,
    summary: 'Wallet type, seqno and wallet id of a standard wallet (v2-compatible)',
    description: 'From the index by default; `use_v2=true` reads the liteserver. 409 `not a wallet` for other initialised contracts.',
    tag: 'api/v2',
    errors: { ...LITESERVER_ERRORS, 409: 'The account is an initialised contract that is no wallet (`not a wallet`)' },
    params: addressParams,
    response: WALLET_INFORMATION,
    async handle(ctx) {
      if (ctx.params.use_v2) {
        const s = await liteState(ctx);
        const { type, data } = walletInformation(s);
        const status = V2_STATUS[tonlibState(s.account)];
        if (!type && status !== 'uninit') throw new HttpError(409, 'not a wallet');
        return { balance: balanceOf(s.account).toString(), ...(type ? { wallet_type: type } : {}), ...walletFields(data), last_transaction_lt: s.lastTx.lt.toString(), last_transaction_hash: s.lastTx.hash.toString('base64'), status };
      }
      const s = await indexedState(ctx);
      if (!s) return { balance: '0', last_transaction_lt: '0', last_transaction_hash: ZERO_HASH, status: 'uninit' };
      const wallet = factsOf(s).wallet;
      if (!wallet && s.status !== 'uninit') throw new HttpError(409, 'not a wallet');
      return { balance: s.balance, ...(wallet ? { wallet_type: wallet.type } : {}), ...walletFields(wallet ?? {}), last_transaction_lt: s.last_trans_lt, last_transaction_hash: s.last_trans_hash, status: s.status };
    },
  });
}

const walletFields = (d: { seqno?: number; wallet_id?: number }) => ({ ...(d.seqno !== undefined ? { seqno: d.seqno } : {}), ...(d.wallet_id !== undefined ? { wallet_id: d.wallet_id } : {}) });

export const addressInformationEndpoint = addressInformation('/addressInformation', 'getV2AddressInformation');
export const accountEndpoint = addressInformation('/account', 'getV2Account');
export const walletInformationEndpoint = walletInformationAt('/walletInformation', 'getV2WalletInformation');
export const walletEndpoint = walletInformationAt('/wallet', 'getV2Wallet');

const boc = (description: string, missing: string) => required401(chainKinds.boc, description, missing);

export const messageEndpoint = defineEndpoint({
  path: '/message',
  operationId: 'sendV2Message',
  summary: 'Sends an external message (v2 sendBocReturnHash)',
  tag: 'api/v2',
  errors: { ...LITESERVER_ERRORS, 400: 'The liteserver refused the message (it cannot be applied to the account\'s state)' },
  methods: ['post'],
  params: { boc: boc('The external message, a base64 BoC.', 'boc is required') },
  response: obj({ message_hash: S, message_hash_norm: S }, ['message_hash_norm']),
  async handle(ctx) {
    const m = await sendExternal(ctx.lite, ctx.params.boc);
    return { message_hash: ctx.params.boc.hash().toString('base64'), message_hash_norm: normalizedHash(m).toString('base64') };
  },
});

/** A legacy stack entry `{type, value}`; value a string (num also a JSON number). */
const stackEntry: Kind<{ type: string; value: unknown }> = {
  accepts: 'a stack entry {"type": "num"|"cell"|"slice", "value": …}',
  schema: { type: 'object', properties: { type: { type: 'string', enum: ['num', 'cell', 'slice'] }, value: { type: 'string' } }, required: ['type', 'value'] },
  parse(text) {
    try {
      const e = JSON.parse(text) as { type?: unknown; value?: unknown };
      return typeof e === 'object' && e !== null && typeof e.type === 'string' && 'value' in e ? { type: e.type, value: e.value } : undefined;
    } catch {
      return undefined;
    }
  },
};

const LEGACY_TYPES: Record<string, string> = { num: 'num', cell: 'tvm.Cell', slice: 'tvm.Slice' };

const STACK_ENTRY_OUT = obj({ type: S, value: {} }, ['value']);

export const runGetMethodEndpoint = defineEndpoint({
  path: '/runGetMethod',
  operationId: 'runV2GetMethod',
  summary: 'Runs a get-method on the liteserver (stack as {type, value})',
  description: 'Output `num` values are hex (`0x…`, `-0x…`); cells and slices base64 BoCs; tuples and lists arrays of entries. `gas_used` is 0: the liteserver does not report it.',
  tag: 'api/v2',
  errors: LITESERVER_ERRORS,
  methods: ['post'],
  params: {
    address: required401(chainKinds.address, 'Contract address.', 'address is required'),
    method: required401(chainKinds.methodName, 'Get-method name (or numeric id).', 'method is required'),
    stack: { ...optional(stackEntry, 'Arguments in order.'), array: true, maxItems: 256, read: (texts: string[], name: string) => texts.map((t, i) => { const v = stackEntry.parse(t); if (!v) throw new HttpError(422, `invalid value for field "${name}" at index ${i}: expected ${stackEntry.accepts}`); return v; }) } as Param<{ type: string; value: unknown }[]>,
  },
  response: obj({ gas_used: N, exit_code: N, stack: arr(STACK_ENTRY_OUT) }),
  async handle(ctx) {
    const p = ctx.params;
    const pairs = p.stack.map((e, i) => {
      const type = LEGACY_TYPES[e.type];
      if (!type) throw new HttpError(422, `invalid value for field "stack" at index ${i}: unsupported stack parameter type ${JSON.stringify(e.type).slice(0, 40)} (num, cell, slice)`);
      return [type, e.value];
    });
    const stack = readStack(pairs);
    const run = await runGetMethod(ctx.lite, p.address, p.method, stack);
    return { gas_used: 0, exit_code: run.exitCode, stack: run.stack.map((s) => v3StackEntry(s)) };
  },
});

const FEES: JsonSchema = { type: 'object', properties: { in_fwd_fee: { type: 'integer' }, storage_fee: { type: 'integer' }, gas_fee: { type: 'integer' }, fwd_fee: { type: 'integer' } } };

export const estimateFeeEndpoint = defineEndpoint({
  path: '/estimateFee',
  operationId: 'estimateV2Fee',
  summary: 'Fees of an external message, by emulating it on the account',
  description: 'As toncenter, `ignore_chksig` defaults to false here (v2: true).',
  tag: 'api/v2',
  errors: LITESERVER_ERRORS,
  methods: ['post'],
  params: {
    address: required401(chainKinds.address, 'Destination account.', 'address is required'),
    body: required401(chainKinds.boc, 'Message body, a base64 BoC.', 'body is required'),
    init_code: optional(chainKinds.boc, 'StateInit code, a base64 BoC.'),
    init_data: optional(chainKinds.boc, 'StateInit data, a base64 BoC.'),
    ignore_chksig: withDefault(kinds.bool, false, 'Skip the signature check; default false (as toncenter v3).'),
  },
  response: obj({ source_fees: FEES, destination_fees: arr(FEES) }),
  async handle(ctx) {
    const p = ctx.params;
    const fees = await estimateFee(ctx.lite, p, p.ignore_chksig);
    const { '@type': _type, ...source_fees } = fees;
    return { source_fees, destination_fees: [] };
  },
});

export const LEGACY_ENDPOINTS: readonly Endpoint[] = [addressInformationEndpoint, accountEndpoint, walletInformationEndpoint, walletEndpoint, messageEndpoint, runGetMethodEndpoint, estimateFeeEndpoint];
