import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import { loadMessageRelaxed } from '@ton/core';
import type { MessageRecord } from '@tonstream/records';
import { initialBlock } from './basic-blocks.js';
import { Block, bfs } from './block.js';
import type { ClassifierTrace, InterfaceLookup } from './input.js';
import { tryMatch } from './matcher.js';
import { fallbackJettonTransferMatcher } from './matchers/jettons.js';
import { liftDeployments } from './post-process.js';
import { EventNode, buildTree } from './tree.js';

const OP_W5_EXTERNAL = 0x7369676e;
const OP_SEND_MSG = 0x0ec3c86d;

/** The messages a wallet external asked to send: wallet v5 r1 out list, or v3 / v4 (mode + ref pairs). */
export function intendedMessages(body: Cell): Cell[] {
  const s = body.beginParse();
  if (s.remainingBits >= 32 && s.preloadUint(32) === OP_W5_EXTERNAL) {
    s.skip(32 + 32 * 3);
    if (!s.loadBit()) return [];
    const out: Cell[] = [];
    // OutList: each cell holds `prev:^OutList action`; the deepest action runs first.
    for (let cell = s.loadRef(); cell.refs.length > 0; ) {
      const cs = cell.beginParse();
      const prev = cs.loadRef();
      if (cs.remainingBits >= 40 && cs.loadUint(32) === OP_SEND_MSG) {
        cs.skip(8);
        out.unshift(cs.loadRef());
      }
      cell = prev;
    }
    return out;
  }
  // v3: signature, subwallet, valid_until, seqno, then (mode, ^msg)*; v4 adds an 8-bit op first.
  const rest = s.remainingBits - 512 - 96;
  const refs = s.remainingRefs;
  if (rest === 8 * refs + 8 || rest === 8 * refs) return [...body.refs];
  return [];
}

/**
 * toncenter's path for a trace no matcher classified: when it is a lone wallet external that sent
 * nothing, each message the wallet meant to send becomes a failed "ghost" node, and only the
 * fallback jetton transfer is matched on them.
 */
export function unknownTraceBlocks(trace: ClassifierTrace, lookup: InterfaceLookup): Block[] {
  const root = buildTree(trace.transactions);
  if (root.children.length > 0 || root.kind !== 'in' || root.source !== null) return [];
  let messages: Cell[];
  try {
    messages = intendedMessages(root.body());
  } catch (err) {
    rethrowBugs(err);
    return [];
  }
  messages.forEach((cell, index) => {
    let msg;
    try {
      msg = loadMessageRelaxed(cell.beginParse());
    } catch (err) {
      rethrowBugs(err);
      return;
    }
    if (msg.info.type !== 'internal') return;
    const hash = Buffer.from(cell.hash().toString('base64') + String(index), 'utf8').toString('base64');
    const body = msg.body;
    const opcode = body.bits.length >= 32 ? body.beginParse().preloadUint(32) : null;
    const record: MessageRecord = {
      hash,
      source: root.account,
      destination: `${msg.info.dest.workChain}:${msg.info.dest.hash.toString('hex').toUpperCase()}`,
      value: msg.info.value.coins.toString(),
      value_extra_currencies: {},
      fwd_fee: msg.info.forwardFee.toString(),
      ihr_fee: msg.info.ihrFee.toString(),
      import_fee: '0',
      created_lt: root.tx.lt,
      created_at: String(root.tx.now),
      opcode: opcode === null ? null : `0x${opcode.toString(16).padStart(8, '0')}`,
      ihr_disabled: msg.info.ihrDisabled,
      bounce: msg.info.bounce,
      bounced: msg.info.bounced,
      message_content: { hash: body.hash().toString('base64'), body: body.toBoc().toString('base64') },
      init_state: null,
    };
    root.addChild(new EventNode('ghost', root.tx, record, hash));
  });
  if (root.children.length === 0) return [];
  const top = new Block('root', []);
  top.connect(initialBlock(root));
  const ctx = { lookup, trace };
  for (const block of bfs(top)) if (block.parent === null && block !== top) tryMatch(fallbackJettonTransferMatcher, block, ctx, true);
  return liftDeployments([...bfs(top)].filter((b) => b.parent === null));
}

