import { rethrowBugs } from '@tonstream/errors';
import { ExternalAddress } from '@ton/core';
import {
  cocoonClientProxyRequest, cocoonExtClientGrantRefund, cocoonExtClientTopUp, cocoonExtProxyCharge, cocoonExtProxyPayoutRequest,
  cocoonLastPayoutPayload, cocoonOwnerClientChangeSecretHash, cocoonOwnerClientIncreaseStake, cocoonOwnerClientRegister,
  cocoonOwnerClientRequestRefund, cocoonOwnerClientWithdraw, cocoonOwnerWalletSendMessage, cocoonPayout, cocoonPayoutPayload,
  cocoonRegisterProxy, cocoonReturnExcessesBack, cocoonTokensPayload, cocoonUnregisterProxy, cocoonWorkerProxyRequest,
} from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { composite, op } from '../matcher.js';
import { findOp, raw, readAs } from './util.js';

/*
 * Cocoon: each owner / proxy / worker request starts a chain of internal cocoon messages (client <->
 * proxy requests, payouts, excesses back); the action is the request with everything it caused.
 */

const INTERNAL_OPS = [cocoonClientProxyRequest.opcode, cocoonWorkerProxyRequest.opcode, cocoonPayout.opcode, cocoonReturnExcessesBack.opcode];

/** Any cocoon-internal message below the request, recursively. */
const internalChain: Matcher = op(INTERNAL_OPS, { optional: true });
internalChain.child = internalChain;

/** An address as toncenter prints `expected_address`: raw, or `len;hex` for an external one. */
function expectedAddress(a: unknown): string | null {
  if (a instanceof ExternalAddress) return `${a.bits};${a.value.toString(16)}`;
  return raw(a);
}

/**
 * toncenter reads the charge / grant-refund payload (op, query id, tokens used, expected address)
 * straight from the signed message's own bits, so its tokens and address come from where the
 * excess address and signature sit; read the same way to serve the same values.
 */
function signedPayload(block: Block) {
  try {
    return cocoonTokensPayload.read(block.node.body().beginParse());
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

type Build = (block: Block, matched: Block[]) => { details: Record<string, unknown>; addresses?: (string | null)[] } | null;

function cocoon(type: string, opcodes: number | number[], build: Build, options: Partial<Matcher> = {}): ActionMatcher {
  return {
    name: type,
    ...op(opcodes),
    child: internalChain,
    ...options,
    build(block, matched) {
      const r = build(block, matched);
      if (!r) return null;
      const addresses = r.addresses ?? [r.details.source as string | null, r.details.destination as string | null];
      return composite(type, [block, ...matched], { details: r.details, addresses }, block.failed);
    },
  };
}

const payoutValue = (matched: Block[]) => findOp(matched, cocoonPayout.opcode)?.node.msg?.value ?? null;

export const cocoonMatchers: ActionMatcher[] = [
  cocoon('cocoon_worker_payout', [cocoonPayoutPayload.opcode, cocoonLastPayoutPayload.opcode], (block, matched) => {
    const last = block.opcode === cocoonLastPayoutPayload.opcode;
    const body = last ? readAs(block, cocoonLastPayoutPayload) : readAs(block, cocoonPayoutPayload);
    const request = findOp(matched, cocoonWorkerProxyRequest.opcode);
    const payout = findOp(matched, cocoonPayout.opcode);
    const req = request ? readAs(request, cocoonWorkerProxyRequest) : null;
    if (!body || !req || !payout) return null;
    return {
      details: {
        payout_type: last ? 'last' : 'regular',
        query_id: body.query_id.toString(),
        new_tokens: body.new_tokens.toString(),
        worker_state: req.state,
        worker_tokens: req.tokens.toString(),
        source: block.node.source,
        destination: raw(req.owner_address),
        amount: payout.node.msg?.value ?? null,
      },
      addresses: [block.node.source, block.node.destination, raw(req.owner_address)],
    };
  }),
  cocoon('cocoon_proxy_payout', cocoonExtProxyPayoutRequest.opcode, (block, matched) => {
    const body = readAs(block, cocoonExtProxyPayoutRequest);
    const payout = findOp(matched, cocoonPayout.opcode);
    if (!body || !payout) return null;
    return { details: { query_id: body.query_id.toString(), source: block.node.destination, destination: payout.node.destination } };
  }),
  cocoon('cocoon_proxy_charge', cocoonExtProxyCharge.opcode, (block, matched) => {
    const payload = signedPayload(block);
    const request = findOp(matched, cocoonClientProxyRequest.opcode);
    if (!payload || !request) return null;
    return {
      details: {
        query_id: payload.query_id.toString(),
        new_tokens_used: payload.new_tokens_used.toString(),
        expected_address: expectedAddress(payload.expected_my_address),
        source: block.node.destination,
        destination: request.node.destination,
      },
    };
  }),
  cocoon('cocoon_grant_refund', cocoonExtClientGrantRefund.opcode, (block, matched) => {
    const payload = signedPayload(block);
    const payout = findOp(matched, cocoonPayout.opcode);
    if (!payload || !payout) return null;
    return {
      details: {
        query_id: payload.query_id.toString(),
        new_tokens_used: payload.new_tokens_used.toString(),
        expected_address: expectedAddress(payload.expected_my_address),
        source: block.node.destination,
        destination: payout.node.destination,
        amount: payout.node.msg?.value ?? null,
      },
    };
  }),
  cocoon('cocoon_client_top_up', cocoonExtClientTopUp.opcode, (block) => {
    const body = readAs(block, cocoonExtClientTopUp);
    if (!body) return null;
    return { details: { query_id: body.query_id.toString(), source: block.node.source, destination: block.node.destination, amount: body.top_up_amount.toString() } };
  }),
  cocoon('cocoon_client_register', cocoonOwnerClientRegister.opcode, (block) => {
    const body = readAs(block, cocoonOwnerClientRegister);
    if (!body) return null;
    return { details: { query_id: body.query_id.toString(), nonce: body.nonce.toString(), source: block.node.source, destination: block.node.destination } };
  }),
  cocoon('cocoon_client_change_secret_hash', cocoonOwnerClientChangeSecretHash.opcode, (block) => {
    const body = readAs(block, cocoonOwnerClientChangeSecretHash);
    if (!body) return null;
    return {
      details: { query_id: body.query_id.toString(), new_secret_hash: body.new_secret_hash.toString('hex'), source: block.node.source, destination: block.node.destination },
    };
  }),
  cocoon('cocoon_client_increase_stake', cocoonOwnerClientIncreaseStake.opcode, (block) => {
    const body = readAs(block, cocoonOwnerClientIncreaseStake);
    if (!body) return null;
    return {
      details: { query_id: body.query_id.toString(), new_stake: body.new_stake.toString(), source: block.node.source, destination: block.node.destination, amount: body.new_stake.toString() },
    };
  }),
  cocoon('cocoon_client_withdraw', cocoonOwnerClientWithdraw.opcode, (block, matched) => {
    const body = readAs(block, cocoonOwnerClientWithdraw);
    const amount = payoutValue(matched);
    if (!body) return null;
    return { details: { query_id: body.query_id.toString(), withdraw_amount: amount, source: block.node.source, destination: block.node.destination, amount } };
  }),
  cocoon('cocoon_client_request_refund', cocoonOwnerWalletSendMessage.opcode, (block, matched) => {
    const request = findOp(matched, cocoonOwnerClientRequestRefund.opcode);
    const body = request ? readAs(request, cocoonOwnerClientRequestRefund) : null;
    if (!request || !body) return null;
    return { details: { query_id: body.query_id.toString(), via_wallet: true, source: request.node.source, destination: request.node.destination } };
  }, { child: { ...op(cocoonOwnerClientRequestRefund.opcode), child: internalChain } }),
  cocoon('cocoon_client_request_refund', cocoonOwnerClientRequestRefund.opcode, (block) => {
    const body = readAs(block, cocoonOwnerClientRequestRefund);
    if (!body) return null;
    return { details: { query_id: body.query_id.toString(), via_wallet: false, source: block.node.source, destination: block.node.destination } };
  }),
  cocoon('cocoon_register_proxy', cocoonRegisterProxy.opcode, (block) => {
    const body = readAs(block, cocoonRegisterProxy);
    if (!body) return null;
    return { details: { query_id: body.query_id.toString(), destination: block.node.destination }, addresses: [block.node.source, block.node.destination] };
  }),
  cocoon('cocoon_unregister_proxy', cocoonUnregisterProxy.opcode, (block) => {
    const body = readAs(block, cocoonUnregisterProxy);
    if (!body) return null;
    return { details: { query_id: body.query_id.toString(), seqno: body.seqno, destination: block.node.destination }, addresses: [block.node.source, block.node.destination] };
  }),
];
