/**
 * liteServer.getBlockProof: a chain of links from a masterchain block the client trusts to the one it
 * asks about, as upstream builds it (validator/impl/liteserver.cpp construct_proof_chain). The local
 * chain has one key block (the genesis round's, carrying the config and the validator set), so a
 * proof from it is a single forward link: the key block's config (params 28, 34, 35) proves who the
 * validators are, the target's header their list hash and catchain seqno, and the signature set
 * that 2/3 of the weight signed the target's TL ton.blockId.
 *
 * Not served: backward links (from a newer block to an older one, or from a block that is not a key
 * block to the key block before it). They prove the older block through the newer one's state
 * (OldMcBlocksInfo), and the chain keeps no states whose hash its blocks commit to.
 */
import { type Cell, cellToBoc } from '@tonstream/block';
import { ErrorCode, LiteErrorAnswer } from '@tonstream/liteserver-emulator';
import type { Chain, StoredBlock } from '@tonstream/localnet';
import type { liteServer_blockLinkForward, liteServer_partialBlockProof } from 'ton-lite-client/dist/schema.js';
import type { BlockViews } from './block-views.js';
import { keyBlockConfigProof } from './proofs.js';
import { describeBlock, toTlBlockId } from './tl.js';

/** Upstream stops a proof chain after 16 links (and answers it as incomplete). */
export const MAX_PROOF_LINKS = 16;
/** What Config::extract_from_key_block(needValidatorSet) reads: cur_temp_validators (35, absent here), cur_validators (34), the catchain config (28). */
export const VALIDATOR_SET_PARAMS = [28, 34, 35];

export function partialBlockProof(chain: Chain, views: BlockViews, from: StoredBlock, to: StoredBlock): liteServer_partialBlockProof {
  const steps: liteServer_blockLinkForward[] = [];
  let cur = from;
  while (cur.id.seqno !== to.id.seqno && steps.length < MAX_PROOF_LINKS) {
    if (to.id.seqno < cur.id.seqno) throw backward(cur, to);
    if (!cur.keyBlock) {
      const key = chain.config().keyBlock;
      throw backward(cur, key ? { id: key } : undefined);
    }
    steps.push(forwardLink(views, cur, to));
    cur = to;
  }
  return { kind: 'liteServer.partialBlockProof', complete: cur.id.seqno === to.id.seqno, from: toTlBlockId(from.id), to: toTlBlockId(to.id), steps };
}

function forwardLink(views: BlockViews, from: StoredBlock, to: StoredBlock): liteServer_blockLinkForward {
  if (!to.signatures?.length) throw new LiteErrorAnswer(ErrorCode.notready, `block ${describeBlock(to.id)} carries no validator signatures (a chain made before validators existed; start the localnet with --reset)`);
  const header = signerFields(views.cell(to));
  return {
    kind: 'liteServer.blockLinkForward',
    toKeyBlock: to.keyBlock,
    from: toTlBlockId(from.id),
    to: toTlBlockId(to.id),
    destProof: views.headerProof(to),
    configProof: Buffer.from(cellToBoc(keyBlockConfigProof(views.cell(from), VALIDATOR_SET_PARAMS))),
    signatures: {
      kind: 'liteServer.signatureSet',
      validatorSetHash: header.validatorListHashShort | 0,
      catchainSeqno: header.catchainSeqno,
      signatures: to.signatures.map((s) => ({ kind: 'liteServer.signature', nodeIdShort: Buffer.from(s.nodeIdShort, 'hex'), signature: Buffer.from(s.signature) })),
    },
  };
}

/**
 * gen_validator_list_hash_short and gen_catchain_seqno of a block: BlockInfo bits 408 to 471, after
 * fields of fixed width (tag, version, flag bits, flags, seq_no, vert_seq_no, ShardIdent, gen_utime,
 * start_lt, end_lt).
 */
export function signerFields(block: Cell): { validatorListHashShort: number; catchainSeqno: number } {
  const info = Buffer.from(block.refs[0].data);
  return { validatorListHashShort: info.readUInt32BE(51), catchainSeqno: info.readUInt32BE(55) };
}

function backward(cur: StoredBlock, to: { id: StoredBlock['id'] } | undefined): LiteErrorAnswer {
  const target = to ? describeBlock(to.id) : 'the previous key block';
  return new LiteErrorAnswer(ErrorCode.error, `backward proof link from ${describeBlock(cur.id)} to ${target} is not served by the local network (it keeps no masterchain states to prove older blocks with); ask from the key block instead`);
}
