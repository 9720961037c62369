import { type AccountStateRecord, type BlockManifest, InvalidRecordError, MANIFEST_HEADER, type MessageRow, parseManifest, parseRecord, type RecordKind, type TransactionRow } from '@tonstream/records';
import { bundleLines } from './record-bundle.js';

/** A consumed Kafka message of the decoder's topics, as kafkajs hands it over. */
export type ConsumedMessage = { key: Buffer | null; value: Buffer | null; headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined> };

/** Which decoded topic a message came from: a record kind, or `meta` (ton.block_meta). */
export type DecodedTopic = 'transactions' | 'messages' | 'accountStates' | 'meta';

/** One block's records of one kind, or a block's meta with its manifest. */
export type DecodedMessage =
  | { kind: 'transactions'; block: string; mcSeqno: number; records: TransactionRow[] }
  | { kind: 'messages'; block: string; mcSeqno: number; records: MessageRow[] }
  | { kind: 'accountStates'; block: string; mcSeqno: number; records: AccountStateRecord[] }
  | { kind: 'meta'; block: string; mcSeqno: number; masterchain: boolean; manifest: BlockManifest };

function header(headers: ConsumedMessage['headers'], name: string): string | undefined {
  const v = headers?.[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}

/**
 * Reads one message of the decoder's topics (key = block, `mc_seqno` header, a bundle of records or
 * a meta with its manifest), or null for a message that is not a block's. Records that fail their
 * check, and a meta without a valid manifest, are reported through `refused` and left out: the
 * writer dead-letters them, so their block never reaches the watermark either.
 */
export function readDecodedMessage(kind: DecodedTopic, message: ConsumedMessage, refused: (reason: string) => void): DecodedMessage | null {
  const block = message.key?.toString('utf8');
  const mcSeqno = Number(header(message.headers, 'mc_seqno'));
  if (block === undefined || !Number.isInteger(mcSeqno) || mcSeqno < 0 || message.value === null) return null;
  const records = <K extends RecordKind>(k: K) =>
    bundleLines(message.value!).flatMap((line) => {
      try {
        return [parseRecord(k, line)];
      } catch (err) {
        if (!(err instanceof InvalidRecordError)) throw err;
        refused(err.message);
        return [];
      }
    });
  if (kind === 'transactions') return { kind, block, mcSeqno, records: records('transactions') };
  if (kind === 'messages') return { kind, block, mcSeqno, records: records('messages') };
  if (kind === 'accountStates') return { kind, block, mcSeqno, records: records('accountStates') };
  const manifest = parseManifest(header(message.headers, MANIFEST_HEADER));
  if ('problem' in manifest) {
    refused(manifest.problem);
    return null;
  }
  return { kind: 'meta', block, mcSeqno, masterchain: block.startsWith('-1:'), manifest: manifest.manifest };
}
