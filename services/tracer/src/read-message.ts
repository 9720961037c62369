import { bundleLines } from '@tonstream/bus';
import { InvalidRecordError, MANIFEST_HEADER, parseManifest, parseRecord, type RecordKind } from '@tonstream/records';
import type { Consumed } from './collector.js';

export type ConsumedMessage = { key: Buffer | null; value: Buffer | null; headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined> };

function header(headers: ConsumedMessage['headers'], name: string): string | undefined {
  const v = headers?.[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.toString();
}

/**
 * Reads one message of the decoder's topics into what the collector needs. Records that fail their
 * check are left out and reported through `refused` (the writer dead-letters them; their block then
 * never completes here either, and the tracer waits at it, as the watermark does).
 */
export function readDecoderMessage(kind: 'transactions' | 'messages' | 'accountStates' | 'blocks', message: ConsumedMessage, refused: (reason: string) => void): Consumed {
  const block = message.key?.toString('utf8');
  const mcSeqno = Number(header(message.headers, 'mc_seqno'));
  if (block === undefined || !Number.isInteger(mcSeqno) || mcSeqno < 0 || message.value === null) return { kind: 'other' };
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
    return { kind: 'other' };
  }
  return { kind: 'meta', block, mcSeqno, masterchain: block.startsWith('-1:'), manifest: manifest.manifest };
}
