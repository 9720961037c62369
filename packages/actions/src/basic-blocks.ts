import { Block } from './block.js';
import { readComment } from './text.js';
import type { EventNode } from './tree.js';

const OP_ENCRYPTED_COMMENT = 0x2167da4b;

/** True when the node's transaction turned an uninit/nonexistent account into an active one. */
export function deploys(node: EventNode): boolean {
  return node.kind === 'in' && node.tx.end_status === 'active' && node.tx.orig_status !== 'active' && node.tx.orig_status !== 'frozen';
}

function extraCurrencies(node: EventNode): Record<string, string> {
  return node.msg?.value_extra_currencies ?? {};
}

function attachDeploy(block: Block, node: EventNode): Block {
  if (deploys(node)) {
    const deploy = new Block('contract_deploy', [node]);
    deploy.failed = node.failed;
    block.children.push(deploy);
  }
  return block;
}

/** The block a node starts as: tick_tock, ton_transfer (internal, no opcode / comment) or call_contract. */
export function initialBlock(node: EventNode): Block {
  const opcode = node.opcode;
  let block: Block;
  if (node.kind === 'tick_tock') {
    block = new Block('tick_tock', [node]);
    block.failed = node.failed;
  } else if ((opcode === null || opcode === 0 || opcode === OP_ENCRYPTED_COMMENT) && node.source !== null && node.destination !== null) {
    block = new Block('ton_transfer', [node]);
    block.failed = tonTransferFailed(node);
  } else {
    block = new Block('call_contract', [node]);
    const value = node.value;
    block.failed = node.failed && !(value === 0n && opcode !== null && opcode !== 0 && Object.keys(extraCurrencies(node)).length === 0);
  }
  attachDeploy(block, node);
  for (const child of node.children) block.connect(initialBlock(child));
  return block;
}

function tonTransferFailed(node: EventNode): boolean {
  if (!node.failed) return false;
  if (node.msg?.bounce === true) return true;
  if (node.tx.end_status === 'uninit') return false;
  const compute = node.tx.description.compute_ph;
  if (compute?.skipped && compute.reason === 'no_gas') return false;
  return true;
}

/** details of the basic block types, as /api/v3/actions serves them. */
export function basicDetails(block: Block): Record<string, unknown> {
  const node = block.node;
  const source = node.source;
  const destination = node.destination;
  const value = node.msg?.value ?? null;
  if (block.type === 'ton_transfer') {
    // Without an opcode the body is under 32 bits: no comment, and no BoC to parse.
    const comment = node.opcode === null ? null : readComment(node.body());
    const details: Record<string, unknown> = {
      source,
      destination,
      value,
      comment: comment?.text ?? null,
      encrypted: node.opcode === OP_ENCRYPTED_COMMENT,
    };
    if (Object.keys(extraCurrencies(node)).length > 0) details.value_extra_currencies = extraCurrencies(node);
    return details;
  }
  if (block.type === 'tick_tock') return {};
  const opcode = node.opcode;
  const details: Record<string, unknown> = {};
  if (opcode !== null) details.opcode = `0x${opcode.toString(16).padStart(8, '0')}`;
  if (source !== null) details.source = source;
  if (destination !== null) details.destination = destination;
  if (value !== null) details.value = value;
  if (block.type === 'call_contract' && Object.keys(extraCurrencies(node)).length > 0) details.extra_currencies = extraCurrencies(node);
  return details;
}
