import type { Producer } from 'kafkajs';
import { loadMessage, messageRecord, parseBoc, Slice } from '@tonstream/block';
import type { Topics } from './topics.js';
import { rethrowBugs, TonstreamError } from '@tonstream/errors';

/**
 * A `ton.pending_externals` value (JSON): an external-in message as it arrived. Any source may publish
 * (the API's sendBoc / POST /message, a mempool feed): the emulator checks the BoC itself and
 * recomputes the hashes. Key: the destination (`wc:HEX`), so one account's externals stay in order.
 */
export type PendingExternal = {
  /** Message cell hash, standard base64. */
  hash: string;
  /** TEP-467 normalized hash: the pending trace's key. */
  hash_norm: string;
  /** The message BoC, standard base64. */
  boc: string;
  /** When it arrived, ms since the epoch. */
  received_at: number;
  /** Who saw it first, e.g. `api`; free text for operators. */
  source?: string;
};

/** The bytes are not an external-in message to a standard address, or the value is not a PendingExternal. */
export class PendingExternalError extends TonstreamError {
  readonly code = 'PENDING_EXTERNAL_INVALID';
}

/** The topic value for an external message BoC; throws PendingExternalError when it is not one. */
export function pendingExternal(boc: Uint8Array, receivedAtMs = Date.now(), source?: string): PendingExternal & { destination: string } {
  let rec;
  try {
    const cells = parseBoc(boc);
    const m = loadMessage(new Slice(cells, cells.roots[0], 'Message'));
    if (m.info.type !== 'external-in') throw new PendingExternalError(`not an external-in message (${m.info.type})`);
    rec = messageRecord(cells, m);
  } catch (err) {
    if (err instanceof PendingExternalError) throw err;
    rethrowBugs(err);
    throw new PendingExternalError(`not a message BoC: ${(err as Error).message}`, { cause: err });
  }
  if (rec.destination === null || rec.hash_norm === undefined) throw new PendingExternalError('the destination is not a standard address');
  return { hash: rec.hash, hash_norm: rec.hash_norm, boc: Buffer.from(boc).toString('base64'), received_at: receivedAtMs, ...(source ? { source } : {}), destination: rec.destination };
}

/** Reads a topic value; throws PendingExternalError naming what is wrong. */
export function decodePendingExternal(value: Buffer | string): PendingExternal {
  let v: unknown;
  try {
    v = JSON.parse(value.toString());
  } catch (err) {
    throw new PendingExternalError('pending external: not JSON', { cause: err });
  }
  const o = v as Record<string, unknown>;
  if (typeof o !== 'object' || o === null) throw new PendingExternalError('pending external: not an object');
  if (typeof o.boc !== 'string' || o.boc.length === 0) throw new PendingExternalError('pending external.boc: expected base64 text');
  if (typeof o.received_at !== 'number' || !Number.isFinite(o.received_at)) throw new PendingExternalError('pending external.received_at: expected ms since the epoch');
  return { hash: String(o.hash ?? ''), hash_norm: String(o.hash_norm ?? ''), boc: o.boc, received_at: o.received_at, ...(typeof o.source === 'string' ? { source: o.source } : {}) };
}

/**
 * Publishes an external the API accepted (after it was handed to the liteserver). Resolves the value
 * published; throws PendingExternalError for a BoC that is no external, and kafkajs errors as they come.
 */
export async function publishPendingExternal(producer: Producer, topics: Pick<Topics, 'pendingExternals'>, boc: Uint8Array, source = 'api'): Promise<PendingExternal> {
  const { destination, ...value } = pendingExternal(boc, Date.now(), source);
  await producer.send({ topic: topics.pendingExternals, messages: [{ key: destination, value: JSON.stringify(value) }] });
  return value;
}
