import { accountStateRecord, BocError, decodeBlock, TlbError, type BlockRecord } from '@tonstream/block';
import { blockKey, CodecError, decodeRawBlock } from '@tonstream/bus';

/** One Kafka record to produce: values are JSON text. */
export type OutRecord = { key: string; value: string; headers?: Record<string, string> };

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
  /** JSON bytes of all records, to bound what one produce request carries. */
  bytes: number;
  decodeMs: number;
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
    const states = raw.account_states.map((a) =>
      accountStateRecord(a.boc, { account: a.account, lastTransLt: a.last_trans_lt, lastTransHash: a.last_trans_hash, mcSeqno: raw.mc_seqno, genUtime }),
    );
    let bytes = 0;
    const out = <T>(k: string, record: T): OutRecord => {
      const json = JSON.stringify(record);
      bytes += json.length;
      return { key: k, value: json };
    };
    const transactions = records.transactions.map((t) => out(t.account, t));
    const messages = records.messages.map((m) => out(m.hash, m));
    const accountStates = states.map((s) => out(s.account, s));
    const meta = out(key, records.block);
    meta.headers = { seen_at_ms: String(raw.seen_at_ms), mc_seqno: String(raw.mc_seqno) };
    const decodeMs = performance.now() - started;
    return { ok: true, decoded: { key, block: records.block, mcSeqno: raw.mc_seqno, seenAtMs: raw.seen_at_ms, transactions, messages, accountStates, meta, bytes, decodeMs } };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { ok: false, kind: errorKind(err), error, key };
  }
}
