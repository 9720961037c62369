import { masterchainInfo, readBlocks } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, MAX_LIMIT, offset, optional, required, sort } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { BlocksResponse, MasterchainInfo } from './schemas.js';
import { toV3Block } from './objects.js';

/** GET /masterchainInfo: `last` is the watermark's block (blocks above it may lack records), `first` the history floor's (below it a backfill may be writing). */
export const masterchainInfoEndpoint = defineEndpoint({
  path: '/masterchainInfo',
  operationId: 'getMasterchainInfo',
  sharedPerWatermark: true,
  summary: 'First and last indexed masterchain blocks',
  tag: 'blocks',
  params: {},
  response: ref(MasterchainInfo),
  notFound: 'masterchain info not found: no masterchain block indexed yet',
  async handle({ watermark, store, scope }) {
    const info = watermark && (await masterchainInfo(store, watermark, scope.floor ?? null, scope.query));
    if (!info) throw new HttpError(404, 'masterchain info not found: no masterchain block indexed yet');
    return { last: toV3Block(info.last), first: toV3Block(info.first) };
  },
});

/** GET /blocks: docs/toncenter-v3.md §2.1. Unlike toncenter, the order is always defined (gen_utime, then block id). */
export const blocksEndpoint = defineEndpoint({
  path: '/blocks',
  operationId: 'getBlocks',
  sharedPerWatermark: true,
  summary: 'Blocks by workchain, shard, seqno, hashes, masterchain seqno, time or lt',
  tag: 'blocks',
  params: {
    workchain: optional(kinds.int32, 'Block workchain.'),
    shard: optional(kinds.shard, 'Block shard id, hex first (8000000000000000), then signed decimal.'),
    seqno: optional(kinds.int32, 'Block seqno.'),
    root_hash: optional(kinds.hash, 'Block root hash.'),
    file_hash: optional(kinds.hash, 'Block file hash.'),
    mc_seqno: optional(kinds.int32, 'Blocks committed by this masterchain block.'),
    start_utime: optional(kinds.utime, 'gen_utime >= start_utime.'),
    end_utime: optional(kinds.utime, 'gen_utime <= end_utime.'),
    start_lt: optional(kinds.uint64, 'start_lt >= start_lt.'),
    end_lt: optional(kinds.uint64, 'start_lt <= end_lt (compared with the block start_lt, as toncenter).'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc', 'Order by gen_utime (ties by workchain, shard, seqno); default desc.'),
  },
  response: ref(BlocksResponse),
  async handle({ params: p, store, scope }) {
    const blocks = await readBlocks(
      store,
      scope,
      {
        workchain: p.workchain, shard: p.shard, seqno: p.seqno, rootHash: p.root_hash, fileHash: p.file_hash, mcSeqno: p.mc_seqno,
        startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt, endLt: p.end_lt,
      },
      { limit: p.limit, offset: p.offset, sort: p.sort, order: 'gen_utime' },
    );
    return { blocks: blocks.map(toV3Block) };
  },
});

/**
 * GET /masterchainBlockShardState: the shard blocks masterchain block `seqno` references in its
 * ShardHashes (the tops of the shards at that block, as v2 /shards). Masterchain blocks indexed
 * before migration 4 have no stored shard state until `npm run reindex` replays them: 404 then.
 */
export const masterchainBlockShardStateEndpoint = defineEndpoint({
  path: '/masterchainBlockShardState',
  operationId: 'getMasterchainBlockShardState',
  sharedPerWatermark: true,
  summary: 'Shard blocks in a masterchain block\'s shard state',
  tag: 'blocks',
  params: {
    seqno: required(kinds.int32, 'Masterchain block seqno.'),
  },
  response: ref(BlocksResponse),
  notFound: 'blocks not found',
  async handle({ params: p, store, scope }) {
    const blocks = await readBlocks(store, scope, { shardStateOf: p.seqno }, { limit: MAX_LIMIT, offset: 0, sort: 'asc', order: 'id' });
    if (blocks.length === 0) throw new HttpError(404, 'blocks not found');
    return { blocks: blocks.map(toV3Block) };
  },
});

/** GET /masterchainBlockShards: every block committed by masterchain block `seqno`, itself included. */
export const masterchainBlockShardsEndpoint = defineEndpoint({
  path: '/masterchainBlockShards',
  operationId: 'getMasterchainBlockShards',
  sharedPerWatermark: true,
  summary: 'Blocks committed by a masterchain block (itself included)',
  tag: 'blocks',
  params: {
    seqno: required(kinds.int32, 'Masterchain block seqno.'),
    limit: limit(),
    offset: offset(),
  },
  response: ref(BlocksResponse),
  notFound: 'blocks not found',
  async handle({ params: p, store, scope }) {
    const blocks = await readBlocks(store, scope, { mcSeqno: p.seqno }, { limit: p.limit, offset: p.offset, sort: 'asc', order: 'id' });
    if (blocks.length === 0) throw new HttpError(404, 'blocks not found');
    return { blocks: blocks.map(toV3Block) };
  },
});

