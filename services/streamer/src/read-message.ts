import { bundleLines } from '@tonstream/bus';
import { InvalidRecordError, MANIFEST_HEADER, parseManifest, parseRecord, type RecordKind } from '@tonstream/records';
import type { Consumed } from '@tonstream/streaming';

export type ConsumedMessage = { key: Buffer | null; value: Buffer | null; headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined> };
export type TopicKind = 'transactions' | 'messages' | 'account_states' | 'meta';

function header(headers: ConsumedMessage['headers'], name: string): string | undefined {
  const v = headers?.[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}

/**
 * One message of the decoder's topics -> what the collector takes, or null for a message that is
 * not a block's (records failing their check are reported and left out: the writer dead-letters
 * them, so their block never reaches the watermark either).
 */
export function readDecoderMessage(kind: TopicKind, message: ConsumedMessage, refused: (reason: string) => void): Consumed | null {
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
  if (kind === 'account_states') return { kind, block, mcSeqno, records: records('accountStates') };
  const manifest = parseManifest(header(message.headers, MANIFEST_HEADER));
  if ('problem' in manifest) {
    refused(manifest.problem);
    return null;
  }
  return { kind: 'meta', block, mcSeqno, masterchain: block.startsWith('-1:'), manifest: manifest.manifest };
}
