import { rethrowBugs } from '@tonstream/errors';
import { vestingAddWhiteList, vestingAddWhiteListResponse, vestingSendMessage, vestingSendMessageResponse } from '@tonstream/contracts';
import type { Cell, Slice } from '@ton/core';
import type { ActionMatcher } from '../matcher.js';
import { composite, op } from '../matcher.js';
import { raw, readAs } from './util.js';

/* The vesting wallet (ton-blockchain/vesting-contract): an owner's send_message and whitelist additions. */

export const vestingSendMessageMatcher: ActionMatcher = {
  name: 'vesting_send_message',
  ...op(vestingSendMessage.opcode),
  child: op(vestingSendMessageResponse.opcode),
  build(block, matched) {
    const body = readAs(block, vestingSendMessage);
    if (!body) return null;
    const info = body.message.info as { type: string; dest?: unknown; value?: { grams: bigint } };
    const cell = block.node.body().beginParse();
    cell.skip(32 + 64 + 8);
    const messageBoc = cell.loadRef().toBoc({ idx: false, crc32: false }).toString('base64');
    const details = {
      query_id: body.query_id.toString(),
      message_boc: messageBoc,
      source: block.node.source,
      vesting: block.node.destination,
      destination: raw(info.dest),
      amount: info.value ? info.value.grams.toString() : null,
    };
    return composite('vesting_send_message', [block, ...matched], { details, addresses: [details.source, details.vesting, details.destination] }, block.failed);
  },
};

/** Addresses of a whitelist request: one inline, each further one in a chained ref. */
function whitelistAddresses(cell: Cell): string[] {
  const out: string[] = [];
  let s: Slice | null = cell.beginParse();
  while (s) {
    while (s.remainingBits >= 267) out.push(raw(s.loadAddress()) ?? '');
    s = s.remainingRefs > 0 ? s.loadRef().beginParse() : null;
  }
  return out.filter((a) => a !== '');
}

export const vestingAddWhitelistMatcher: ActionMatcher = {
  name: 'vesting_add_whitelist',
  ...op(vestingAddWhiteList.opcode),
  child: op(vestingAddWhiteListResponse.opcode),
  build(block, matched) {
    const body = readAs(block, vestingAddWhiteList);
    if (!body) return null;
    let accounts: string[];
    try {
      accounts = whitelistAddresses(body.addresses_ref_snake);
    } catch (err) {
      rethrowBugs(err);
      accounts = [];
    }
    const details = { query_id: body.query_id.toString(), accounts_added: accounts, source: block.node.source, vesting: block.node.destination };
    return composite('vesting_add_whitelist', [block, ...matched], { details, addresses: [details.source, details.vesting] }, block.failed);
  },
};

