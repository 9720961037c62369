import { BocError, loadMessage, messageRecord, parseBoc, Slice, TlbError } from '@tonstream/block';
import { TonstreamError } from '@tonstream/errors';

/** An external-in message as the emulator takes it: its BoC, hashes and destination. */
export type ExternalMessage = {
  boc: Buffer;
  /** Representation hash of the message cell, standard base64. */
  hash: string;
  /** TEP-467 normalized hash (src, import_fee, init dropped, body as a reference), standard base64. */
  hash_norm: string;
  /** Raw destination `wc:HEX` (upper case). */
  destination: string;
};

/** The BoC is not one external-in message to a standard address. */
export class ExternalMessageError extends TonstreamError {
  readonly code = 'EXTERNAL_MESSAGE_INVALID';
}

/** Parses and checks an external-in message BoC; its hashes come from @tonstream/block as the decoder computes them. */
export function parseExternal(boc: Uint8Array): ExternalMessage {
  let rec;
  try {
    const cells = parseBoc(boc);
    if (cells.roots.length !== 1) throw new ExternalMessageError(`expected one root cell, got ${cells.roots.length}`);
    const message = loadMessage(new Slice(cells, cells.roots[0], 'Message'));
    if (message.info.type !== 'external-in') throw new ExternalMessageError(`expected an external-in message, got ${message.info.type}`);
    rec = messageRecord(cells, message);
  } catch (err) {
    if (err instanceof ExternalMessageError) throw err;
    if (err instanceof BocError || err instanceof TlbError) throw new ExternalMessageError(`not a message BoC: ${err.message}`, { cause: err });
    throw err;
  }
  if (rec.destination === null || rec.hash_norm === undefined) throw new ExternalMessageError('the destination is not a standard address');
  return { boc: Buffer.from(boc), hash: rec.hash, hash_norm: rec.hash_norm, destination: rec.destination };
}
