import { crc32 } from 'node:zlib';
import { Codecs, Functions } from 'ton-lite-client/dist/schema.js';
import { describe, expect, it } from 'vitest';
import { BLOCK_TRANSACTIONS_EXT_ID, LIST_BLOCK_TRANSACTIONS_EXT_ID, decodeListArgs } from './list-block-transactions-ext.js';
import { GET_OUT_MSG_QUEUE_SIZES_ID, OUT_MSG_QUEUE_SIZES_ID, getOutMsgQueueSizes } from './out-msg-queue-sizes.js';
import { ID, ResultTypeError, encodeResult, functionById, functionNames } from './schema.js';
import { MC_SHARD, blockIdExt } from './test-support/fixtures.js';
import { BOOL_TRUE, TlReader, TlWriter } from './tl-buffer.js';

const tlId = (line: string) => crc32(line) | 0;

describe('schema tables', () => {
  it('maps every ton-lite-client function plus listBlockTransactionsExt and getOutMsgQueueSizes by constructor id', () => {
    const names = functionNames();
    expect(names).toHaveLength(23 + 2);
    expect(names).toContain('liteServer.getBlock');
    expect(names).toContain('liteServer.listBlockTransactionsExt');
    expect(names).not.toContain('liteServer.query');
    expect(functionById(0x89b5e62e | 0)?.name).toBe('liteServer.getMasterchainInfo');
    expect(functionById(0x6377cf0d)?.name).toBe('liteServer.getBlock');
    expect(functionById(LIST_BLOCK_TRANSACTIONS_EXT_ID)?.name).toBe('liteServer.listBlockTransactionsExt');
    expect(functionById(GET_OUT_MSG_QUEUE_SIZES_ID)?.name).toBe('liteServer.getOutMsgQueueSizes');
  });

  it('derives the result constructors each function admits', () => {
    expect([...functionById(0x6377cf0d)!.resultKinds]).toEqual(['liteServer.blockData']);
    expect([...functionById(0x89b5e62e | 0)!.resultKinds]).toEqual(['liteServer.masterchainInfo']);
  });

  it('uses the crc32 ids of the upstream TL lines (same method gives ton-lite-client ids)', () => {
    const args = 'id:tonNode.blockIdExt mode:# count:# after:mode.7?liteServer.transactionId3 reverse_order:mode.6?true want_proof:mode.5?true';
    expect(tlId(`liteServer.listBlockTransactions ${args} = liteServer.BlockTransactions`)).toBe(-1375942694);
    expect(tlId(`liteServer.listBlockTransactionsExt ${args} = liteServer.BlockTransactionsExt`)).toBe(LIST_BLOCK_TRANSACTIONS_EXT_ID);
    expect(tlId('liteServer.blockTransactionsExt id:tonNode.blockIdExt req_count:# incomplete:Bool transactions:bytes proof:bytes = liteServer.BlockTransactionsExt')).toBe(
      BLOCK_TRANSACTIONS_EXT_ID,
    );
    // A vector's parentheses are dropped before hashing, as ton-lite-client's transactionList id shows.
    const list = new TlWriter();
    Codecs.liteServer_TransactionList.encode({ kind: 'liteServer.transactionList', ids: [], transactions: Buffer.alloc(0) }, list as never);
    expect(tlId('liteServer.transactionList ids:vector tonNode.blockIdExt transactions:bytes = liteServer.TransactionList')).toBe(list.build().readInt32LE(0));
    expect(tlId('liteServer.getOutMsgQueueSizes mode:# wc:mode.0?int shard:mode.0?long = liteServer.OutMsgQueueSizes')).toBe(GET_OUT_MSG_QUEUE_SIZES_ID);
    expect(tlId('liteServer.outMsgQueueSizes shards:vector liteServer.outMsgQueueSize ext_msg_queue_size_limit:int = liteServer.OutMsgQueueSizes')).toBe(OUT_MSG_QUEUE_SIZES_ID);
    expect(tlId('tcp.ping random_id:long = tcp.Pong')).toBe(ID.tcpPing);
    expect(tlId('tcp.pong random_id:long = tcp.Pong')).toBe(ID.tcpPong);
  });

  it('lays out getOutMsgQueueSizes as lite_api.tl does: wc and shard only with mode bit 0', () => {
    const request = (mode: number, wc: number | null, shard: string | null) => {
      const w = new TlWriter();
      getOutMsgQueueSizes.encodeRequest({ kind: 'liteServer.getOutMsgQueueSizes', mode, wc, shard }, w);
      return w.build();
    };
    const id = tlId('liteServer.getOutMsgQueueSizes mode:# wc:mode.0?int shard:mode.0?long = liteServer.OutMsgQueueSizes');
    const expected = Buffer.alloc(4 + 4 + 4 + 8);
    expected.writeInt32LE(id, 0);
    expected.writeUInt32LE(1, 4);
    expected.writeInt32LE(0, 8);
    expected.writeBigInt64LE(-(2n ** 62n), 12);
    const withShard = request(1, 0, (-(2n ** 62n)).toString());
    expect(withShard).toEqual(expected);
    const plain = Buffer.alloc(8);
    plain.writeInt32LE(id, 0);
    expect(request(0, null, null)).toEqual(plain);
    const fn = functionById(GET_OUT_MSG_QUEUE_SIZES_ID)!;
    expect(fn.decode(new TlReader(withShard.subarray(4)))).toEqual({ kind: 'liteServer.getOutMsgQueueSizes', mode: 1, wc: 0, shard: (-(2n ** 62n)).toString() });
    expect([...fn.resultKinds]).toEqual(['liteServer.outMsgQueueSizes']);
  });

  it('encodeResult() writes what ton-lite-client decodes and refuses a foreign result', () => {
    const fn = functionById(0x6377cf0d)!;
    const result = { kind: 'liteServer.blockData', id: blockIdExt(0, MC_SHARD, 3), data: Buffer.from('boc') };
    const bytes = Buffer.from(encodeResult(fn, result));
    expect(Functions.liteServer_getBlock.decodeResponse(new TlReader(bytes) as never)).toEqual(result);
    expect(() => encodeResult(fn, { kind: 'liteServer.currentTime', now: 1 })).toThrow(ResultTypeError);
    expect(() => encodeResult(fn, { kind: 'liteServer.blockData', id: blockIdExt(0, MC_SHARD, 3) })).toThrow(/does not encode/);
    expect(encodeResult(fn, Buffer.from([1, 2, 3, 4]))).toEqual(Buffer.from([1, 2, 3, 4]));
  });

  it('decodes listBlockTransactions `?true` flags as upstream (no bytes) and as ton-lite-client (a Bool)', () => {
    const upstream = new TlWriter();
    writeListHead(upstream, 7 | 64 | 32);
    const ours = decodeListArgs(new TlReader(Buffer.from(upstream.build())));
    expect([ours.reverseOrder, ours.wantProof, ours.after]).toEqual([true, true, null]);

    const tonLiteClient = new TlWriter();
    writeListHead(tonLiteClient, 7 | 64);
    tonLiteClient.writeUInt32(BOOL_TRUE);
    const r = new TlReader(Buffer.from(tonLiteClient.build()));
    expect(decodeListArgs(r).reverseOrder).toBe(true);
    expect(r.remaining).toBe(0);
  });
});

function writeListHead(w: TlWriter, mode: number) {
  const id = blockIdExt(0, MC_SHARD, 1);
  w.writeInt32(id.workchain);
  w.writeInt64(id.shard);
  w.writeInt32(id.seqno);
  w.writeInt256(id.rootHash);
  w.writeInt256(id.fileHash);
  w.writeUInt32(mode);
  w.writeUInt32(10);
}
