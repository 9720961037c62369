import { loadShardHashes, parseBoc, Slice } from '@tonstream/block';
import { optional, required } from '../http/params.js';
import { blockIdExt, masterchainBlock, MC_SHARD, resolveBlock } from '../chain/block-ids.js';
import { blocksHeader, readHeaderProof } from '../chain/block-header.js';
import { V2Error } from './envelope.js';
import * as kinds from './kinds.js';
import { defineMethod } from './method.js';

/** Block methods (docs/toncenter-v2.md §2.2), answered by the liteserver. */

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const blockParams = {
  workchain: required(kinds.workchain, 'Workchain of the block.'),
  shard: required(kinds.shard, 'Shard id, signed decimal int64.'),
  seqno: required(kinds.seqno, 'Block seqno.'),
};

export const getMasterchainInfo = defineMethod({
  name: 'getMasterchainInfo',
  summary: 'The newest masterchain block, the state root hash and the zero state',
  source: 'liteserver',
  params: {},
  async handle({ lite }) {
    const info = await lite.masterchainInfo();
    const init = { kind: 'tonNode.blockIdExt' as const, workchain: info.init.workchain, shard: BigInt.asIntN(64, MC_SHARD).toString(), seqno: 0, rootHash: info.init.rootHash, fileHash: info.init.fileHash };
    return { '@type': 'blocks.masterchainInfo', last: blockIdExt(info.last), state_root_hash: b64(info.stateRootHash), init: blockIdExt(init) };
  },
});

export const getConsensusBlock = defineMethod({
  name: 'getConsensusBlock',
  summary: 'The newest masterchain seqno the liteserver has and its time',
  source: 'liteserver',
  params: {},
  async handle({ lite }) {
    const info = await lite.masterchainInfo();
    return { '@type': 'ext.blocks.consensusBlock', consensus_block: info.last.seqno, timestamp: info.lastUtime };
  },
});

export const lookupBlock = defineMethod({
  name: 'lookupBlock',
  summary: 'A block id by seqno, logical time or unix time',
  source: 'liteserver',
  params: {
    workchain: required(kinds.workchain, 'Workchain.'),
    shard: required(kinds.shard, 'Shard id, signed decimal int64.'),
    seqno: optional(kinds.seqno, 'Block seqno.'),
    lt: optional(kinds.uint64, 'A logical time inside the block.'),
    unixtime: optional(kinds.nonNegative, 'A unix time: the first block generated at or after it.'),
  },
  async handle({ params: p, lite }) {
    const given = [p.seqno, p.lt, p.unixtime].filter((v) => v !== undefined).length;
    if (given !== 1) throw new V2Error(422, 'exactly one of seqno, lt, unixtime should be specified');
    const by = p.seqno !== undefined ? { seqno: p.seqno } : p.lt !== undefined ? { lt: p.lt } : { utime: p.unixtime! };
    return blockIdExt((await lite.lookupBlock(p.workchain, p.shard, by)).id);
  },
});

export const shards = defineMethod({
  name: 'shards',
  aliases: ['getShards'],
  summary: 'The shard blocks of a masterchain block (its ShardHashes)',
  source: 'liteserver',
  params: { seqno: required(kinds.seqno, 'Masterchain seqno.') },
  async handle({ params, lite }) {
    const mc = await masterchainBlock(lite, params.seqno);
    const info = await lite.allShards(mc);
    const cells = parseBoc(info.data);
    const descrs = loadShardHashes(new Slice(cells, cells.roots[0], 'ShardHashes'));
    return {
      '@type': 'blocks.shards',
      shards: descrs.map((d) =>
        blockIdExt({ kind: 'tonNode.blockIdExt', workchain: d.workchain, shard: BigInt.asIntN(64, d.shard).toString(), seqno: d.seqno, rootHash: Buffer.from(d.rootHash, 'hex'), fileHash: Buffer.from(d.fileHash, 'hex') }),
      ),
    };
  },
});

export const getBlockHeader = defineMethod({
  name: 'getBlockHeader',
  summary: 'A block header: flags, lts, time, parents',
  source: 'liteserver',
  params: { ...blockParams, root_hash: optional(kinds.hash, 'Root hash to check.'), file_hash: optional(kinds.hash, 'File hash to check.') },
  async handle({ params: p, lite }) {
    const id = await resolveBlock(lite, p.workchain, p.shard, p.seqno, p.root_hash, p.file_hash);
    const header = await lite.blockHeader(id);
    return blocksHeader(header.id, readHeaderProof(header.headerProof));
  },
});

export const getMasterchainBlockSignatures = defineMethod({
  name: 'getMasterchainBlockSignatures',
  summary: 'Validator signatures of a masterchain block',
  source: 'liteserver',
  params: { seqno: required(kinds.seqno, 'Masterchain seqno.') },
  async handle({ params, lite }) {
    const header = await lite.lookupBlock(-1, MC_SHARD, { seqno: params.seqno });
    const target = header.id;
    // The forward link into the block carries its signatures; it starts at the previous key block,
    // whose validator set signed it (liteservers prove forward from key blocks).
    const keySeqno = readHeaderProof(header.headerProof).info.prevKeyBlockSeqno;
    const known = keySeqno > 0 && keySeqno < params.seqno ? await masterchainBlock(lite, keySeqno) : target;
    const proof = await lite.blockProof(known, target);
    const link = proof.steps.find((s) => s.kind === 'liteServer.blockLinkForward' && s.to.seqno === target.seqno);
    if (!link || link.kind !== 'liteServer.blockLinkForward') throw new V2Error(500, `liteserver sent no signatures for masterchain block ${params.seqno}`);
    return {
      '@type': 'blocks.blockSignatures',
      id: blockIdExt(target),
      signatures: link.signatures.signatures.map((s) => ({ '@type': 'blocks.signature', node_id_short: b64(s.nodeIdShort), signature: b64(s.signature) })),
    };
  },
});

export const getShardBlockProof = defineMethod({
  name: 'getShardBlockProof',
  summary: 'Proof that a shard block is committed by a masterchain block (and links back to from_seqno)',
  source: 'liteserver',
  params: { ...blockParams, from_seqno: optional(kinds.nonNegative, 'Masterchain seqno to prove from (links back to it).') },
  async handle({ params: p, lite }) {
    const id = await resolveBlock(lite, p.workchain, p.shard, p.seqno);
    const proof = await lite.shardBlockProof(id);
    const mcId = proof.masterchainId;
    let from = mcId;
    let mcProof: unknown[] = [];
    if (p.from_seqno !== undefined && p.from_seqno !== mcId.seqno) {
      from = await masterchainBlock(lite, p.from_seqno);
      const back = await lite.blockProof(from, mcId);
      mcProof = back.steps.map((s) =>
        s.kind === 'liteServer.blockLinkBack'
          ? { '@type': 'blocks.blockLinkBack', to_key_block: s.toKeyBlock, from: blockIdExt(s.from), to: blockIdExt(s.to), dest_proof: b64(s.destProof), proof: b64(s.proof), state_proof: b64(s.stateProof) }
          : { '@type': 'blocks.blockLinkForward', to_key_block: s.toKeyBlock, from: blockIdExt(s.from), to: blockIdExt(s.to), dest_proof: b64(s.destProof), config_proof: b64(s.configProof) },
      );
    }
    return {
      '@type': 'blocks.shardBlockProof',
      from: blockIdExt(from),
      mc_id: blockIdExt(mcId),
      links: proof.links.map((l) => ({ '@type': 'blocks.shardBlockLink', id: blockIdExt(l.id), proof: b64(l.proof) })),
      mc_proof: mcProof,
    };
  },
});

/** liteServer.getOutMsgQueueSizes as tonlib's `blocks.outMsgQueueSizes` (the C++ server's route; no parameters). */
export const getOutMsgQueueSize = defineMethod({
  name: 'getOutMsgQueueSize',
  summary: 'Outbound message queue size of the masterchain and of each shard (their newest blocks)',
  source: 'liteserver',
  params: {},
  async handle({ lite }) {
    const res = await lite.outMsgQueueSizes();
    return {
      '@type': 'blocks.outMsgQueueSizes',
      shards: res.shards.map((s) => ({ '@type': 'blocks.outMsgQueueSize', id: blockIdExt(s.id), size: s.size })),
      ext_msg_queue_size_limit: res.extMsgQueueSizeLimit,
    };
  },
});
