import { accountStateRecord, type AccountStateRecord, BocError, decodeBlock, TlbError, type BlockRecord, type TransactionRow } from '@tonstream/block';
import { blockKey, CodecError, decodeRawBlock } from '@tonstream/bus';

/** One Kafka record to produce: values are JSON text. */
export type OutRecord = { key: string; value: Buffer; headers?: Record<string, string> };

/** Why a raw block message could not be decoded; `unexpected` is anything but the decoders' own errors. */
export type DecodeErrorKind = 'codec' | 'boc' | 'tlb' | 'unexpected';

/** A raw block turned into the records of the decoded topics. */
export type DecodedBlock = {
  key: string;
  block: BlockRecord;
  mcSeqno: number;
  seenAtMs: number;
  transactions: OutRecord[];
  messages: OutRecord[];
  accountStates: OutRecord[];
  /** The `BlockRecord`, published after the others are acked; `seen_at_ms` travels as a header. */
  meta: OutRecord;
  /** JSON bytes of all records, back to back in topic order (transactions, messages, states, meta); values are views into it. */
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
export function decodeMessage(value: Buffer | null, kafkaKey: string | null): DecodeOutcome {
  let key = kafkaKey;
  try {
    if (value === null) throw new CodecError('raw block message has no value (tombstone)');
    const started = performance.now();
    const raw = decodeRawBlock(value);
    key = blockKey(raw);
    const records = decodeBlock(raw.boc, { rootHash: raw.root_hash, fileHash: raw.file_hash, mcSeqno: raw.mc_seqno });
    const genUtime = Number(records.block.gen_utime);
    const states: AccountStateRecord[] = [];
    const skippedStates: DecodedBlock['skippedStates'] = [];
    for (const a of raw.account_states) {
      try {
        states.push(accountStateRecord(a.boc, { account: a.account, lastTransLt: a.last_trans_lt, lastTransHash: a.last_trans_hash, mcSeqno: raw.mc_seqno, genUtime }));
      } catch (err) {
        if (!(err instanceof BocError || err instanceof TlbError)) throw err;
        skippedStates.push({ account: a.account, error: err.message });
      }
    }
    // One allocation for all of a block's JSON: records wait for their acks, and thousands of small
    // buffers (or strings, promoted through the young generation) cost more in GC than the copy.
    const keys: string[] = [];
    const jsons: string[] = [];
    const add = (k: string, record: unknown) => {
      keys.push(k);
      jsons.push(JSON.stringify(record));
    };
    // Messages travel once, on the messages topic; a transaction names its messages by hash (TransactionRow).
    for (const t of records.transactions) {
      const row: TransactionRow = { ...t, in_msg: t.in_msg && { hash: t.in_msg.hash }, out_msgs: t.out_msgs.map((m) => ({ hash: m.hash })) };
      add(t.account, row);
    }
    for (const m of records.messages) add(m.hash, m);
    for (const st of states) add(st.account, st);
    add(key, records.block);
    let total = 0;
    for (const j of jsons) total += Buffer.byteLength(j);
    const payload = Buffer.allocUnsafeSlow(total);
    const out: OutRecord[] = [];
    let offset = 0;
    for (let n = 0; n < jsons.length; n++) {
      const len = payload.write(jsons[n], offset);
      out.push({ key: keys[n], value: payload.subarray(offset, offset + len) });
      offset += len;
    }
    const tx = records.transactions.length;
    const msg = records.messages.length;
    const transactions = out.slice(0, tx);
    const messages = out.slice(tx, tx + msg);
    const accountStates = out.slice(tx + msg, tx + msg + states.length);
    const meta = out[out.length - 1];
    meta.headers = { seen_at_ms: String(raw.seen_at_ms), mc_seqno: String(raw.mc_seqno) };
    const decodeMs = performance.now() - started;
    return { ok: true, decoded: { key, block: records.block, mcSeqno: raw.mc_seqno, seenAtMs: raw.seen_at_ms, transactions, messages, accountStates, meta, payload, decodeMs, skippedStates } };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { ok: false, kind: errorKind(err), error, key };
  }
}
