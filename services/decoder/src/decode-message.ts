import { accountStateRecord, BocError, decodeBlock, TlbError } from '@tonstream/block';
import { describeAccount } from '@tonstream/contracts';
import { type AccountStateRecord, type BlockManifest, type BlockRecord, MANIFEST_HEADER, transactionRow } from '@tonstream/records';
import { blockKey, bundleByPartition, CodecError, decodeRawBlock, type KeyedRecord } from '@tonstream/bus';
import { tokenEventsOfBlock } from './token-events.js';

/**
 * One Kafka message to produce. On the record topics it is a bundle (`bundleByPartition`): the
 * block's records for one partition, keyed by the block, with the block's `mc_seqno` in a header;
 * the block meta is a single record with the block's manifest (packages/records).
 */
export type OutRecord = { key: string; value: Buffer; partition?: number; headers?: Record<string, string> };

/** Partition counts of the record topics: records are bundled per partition. */
export type RecordPartitions = { transactions: number; messages: number; accountStates: number };

/**
 * Why a raw block message could not be decoded: the decoders' own errors, `worker` when decoding it
 * kills a worker thread (out of memory), `unexpected` for anything else.
 */
export type DecodeErrorKind = 'codec' | 'boc' | 'tlb' | 'worker' | 'unexpected';

/** A raw block turned into the records of the decoded topics. */
export type DecodedBlock = {
  key: string;
  block: BlockRecord;
  mcSeqno: number;
  seenAtMs: number;
  /** Transactions in the block (the bundles below hold them). */
  txCount: number;
  transactions: OutRecord[];
  messages: OutRecord[];
  accountStates: OutRecord[];
  /** The `BlockRecord`, published after the others are acked; `seen_at_ms` travels as a header. */
  meta: OutRecord;
  /** Bytes of all values, back to back in topic order (transactions, messages, states, meta); values are views into it. */
  payload: Buffer;
  decodeMs: number;
  /** Account states that could not be read: left out, so one bad state does not cost the block its transactions. */
  skippedStates: { account: string; error: string }[];
};

export type DecodeOutcome =
  | { ok: true; decoded: DecodedBlock }
  | { ok: false; kind: DecodeErrorKind; error: Error; key: string | null };

export function errorKind(err: unknown): DecodeErrorKind {
  if (err instanceof CodecError) return 'codec';
  if (err instanceof BocError) return 'boc';
  if (err instanceof TlbError) return 'tlb';
  return 'unexpected';
}

/**
 * Decodes one raw block message (`encodeRawBlock` bytes). Never throws: decoding is a pure function of
 * the bytes, so a failure would fail again on every retry; the caller dead-letters it instead.
 * `kafkaKey` names the block when even the raw header is unreadable.
 */
export function decodeMessage(value: Buffer | null, kafkaKey: string | null, partitions: RecordPartitions): DecodeOutcome {
  let key = kafkaKey;
  try {
    if (value === null) throw new CodecError('raw block message has no value (tombstone)');
    const started = performance.now();
    const raw = decodeRawBlock(value);
    const id = blockKey(raw);
    key = id;
    const records = decodeBlock(raw.boc, { rootHash: raw.root_hash, fileHash: raw.file_hash, mcSeqno: raw.mc_seqno });
    const genUtime = Number(records.block.gen_utime);
    const states: AccountStateRecord[] = [];
    const skippedStates: DecodedBlock['skippedStates'] = [];
    for (const a of raw.account_states) {
      try {
        const state = accountStateRecord(a.boc, { account: a.account, lastTransLt: a.last_trans_lt, lastTransHash: a.last_trans_hash, mcSeqno: raw.mc_seqno, genUtime });
        // Read once here; the store, tracer and streamer take the facts from the record.
        states.push({ ...state, contract: describeAccount(state) });
      } catch (err) {
        if (!(err instanceof BocError || err instanceof TlbError)) throw err;
        skippedStates.push({ account: a.account, error: err.message });
      }
    }
    // Messages travel once, on the messages topic; a transaction names its messages by hash (TransactionRow).
    const events = tokenEventsOfBlock(records.transactions, states);
    const txs: KeyedRecord[] = records.transactions.map((t) => {
      const row = transactionRow(t);
      const event = events.get(t.hash);
      return { key: t.account, json: JSON.stringify(event ? { ...row, token_events: [event] } : row) };
    });
    const msgs: KeyedRecord[] = records.messages.map((m) => ({ key: m.hash, json: JSON.stringify(m) }));
    const sts: KeyedRecord[] = states.map((st) => ({ key: st.account, json: JSON.stringify(st) }));
    const groups = [bundleByPartition(txs, partitions.transactions), bundleByPartition(msgs, partitions.messages), bundleByPartition(sts, partitions.accountStates)];
    const values = [...groups.flat().map((b) => b.value), JSON.stringify(records.block)];
    // One allocation for all of a block's values: they wait for their acks, and many separate
    // buffers (or strings, promoted through the young generation) cost more in GC than the copy.
    let total = 0;
    for (const v of values) total += Buffer.byteLength(v);
    const payload = Buffer.allocUnsafeSlow(total);
    let offset = 0;
    const views = values.map((v) => {
      const len = payload.write(v, offset);
      offset += len;
      return payload.subarray(offset - len, offset);
    });
    let next = 0;
    const bundleHeaders = { mc_seqno: String(raw.mc_seqno) };
    const [transactions, messages, accountStates] = groups.map((g) => g.map((b): OutRecord => ({ key: id, value: views[next++], partition: b.partition, headers: bundleHeaders })));
    const manifest: BlockManifest = {
      transactions: txs.length,
      messages: msgs.length,
      account_states: sts.length,
      ...(raw.mc_blocks === undefined ? {} : { mc_blocks: raw.mc_blocks }),
      ...(raw.index_from === undefined ? {} : { index_from: raw.index_from }),
    };
    const meta: OutRecord = { key: id, value: views[next], headers: { seen_at_ms: String(raw.seen_at_ms), mc_seqno: String(raw.mc_seqno), [MANIFEST_HEADER]: JSON.stringify(manifest) } };
    const decodeMs = performance.now() - started;
    return { ok: true, decoded: { key: id, block: records.block, mcSeqno: raw.mc_seqno, seenAtMs: raw.seen_at_ms, txCount: records.transactions.length, transactions, messages, accountStates, meta, payload, decodeMs, skippedStates } };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { ok: false, kind: errorKind(err), error, key };
  }
}
