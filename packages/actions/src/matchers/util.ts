import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import { Address } from '@ton/core';
import type { BodyOf, MessageLayout } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ContractInterfaces } from '../input.js';
import type { MatchContext } from '../matcher.js';

/** An address in toncenter's raw upper-case form; null for addr_none / external addresses. */
export function raw(address: unknown): string | null {
  return address instanceof Address ? `${address.workChain}:${address.hash.toString('hex').toUpperCase()}` : null;
}

/** A cell as toncenter stores payloads: base64 BoC with CRC32C, no index. */
export function payloadBoc(cell: Cell | null | undefined): string | null {
  return cell ? cell.toBoc({ idx: false, crc32: true }).toString('base64') : null;
}

export function str(v: bigint | number | null | undefined): string | null {
  return v === null || v === undefined ? null : v.toString();
}

/** Reads the block's (first) message body with a layout; null when it does not fit. */
export function readAs<L extends MessageLayout>(block: Block, layout: L): BodyOf<L> | null {
  try {
    return layout.read(block.node.body().beginParse()) as BodyOf<L>;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

export function interfaces(ctx: MatchContext, address: string | null | undefined): ContractInterfaces | undefined {
  return address ? ctx.lookup(address) : undefined;
}

export function jettonWallet(ctx: MatchContext, address: string | null | undefined) {
  return interfaces(ctx, address)?.JettonWallet;
}

export function nftItem(ctx: MatchContext, address: string | null | undefined) {
  return interfaces(ctx, address)?.NftItem;
}

/** Every block of the composite (itself and nested children) of a type, depth first. */
export function findBlocks(blocks: Block[], test: (b: Block) => boolean): Block[] {
  const out: Block[] = [];
  const visit = (b: Block) => {
    if (test(b)) out.push(b);
    b.children.forEach(visit);
  };
  blocks.forEach(visit);
  return out;
}

export function findOp(blocks: Block[], opcode: number): Block | undefined {
  return findBlocks(blocks, (b) => b.type === 'call_contract' && b.opcode === opcode)[0];
}

export function aborted(block: Block | undefined): boolean {
  return block?.node.tx.description.aborted === true;
}
