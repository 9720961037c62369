import type { Check } from './check.js';
import type { AccountStateRecord, BlockRecord, MessageRow, TransactionRow } from './records.js';
import { accountStateRecord, blockRecord, messageRow, transactionRow } from './schemas.js';
import { TonstreamError } from '@tonstream/errors';

/** The records of the decoded topics, by the name the pipeline gives their kind. */
export type RecordOf = {
  blocks: BlockRecord;
  transactions: TransactionRow;
  messages: MessageRow;
  accountStates: AccountStateRecord;
};
export type RecordKind = keyof RecordOf;

/**
 * Largest record accepted, in characters of its JSON (bytes: the decoder writes ASCII). The largest
 * real ones are account states with code and data (an account state is at most 65,536 cells and
 * 2^24 bits on mainnet, ~3 MB as base64); anything bigger is not a record the decoder made.
 */
export const MAX_RECORD_CHARS = 8 * 1024 * 1024;

/** A record that is not what its topic carries: not JSON, too big, or a field missing or out of range. */
export class InvalidRecordError extends TonstreamError {
  readonly code = 'RECORD_INVALID';
}

const CHECKS: Record<RecordKind, Check> = { blocks: blockRecord, transactions: transactionRow, messages: messageRow, accountStates: accountStateRecord };

/**
 * Parses and fully checks one record's JSON. Throws InvalidRecordError, and nothing else, whatever
 * the input: a consumer can dead-letter the record and carry on.
 */
export function parseRecord<K extends RecordKind>(kind: K, json: string, maxChars = MAX_RECORD_CHARS): RecordOf[K] {
  if (json.length > maxChars) throw new InvalidRecordError(`${kind} record of ${json.length} characters is over the ${maxChars}-character record limit`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new InvalidRecordError(`${kind} record is not JSON: ${(err as Error).message}`);
  }
  const problem = CHECKS[kind](value);
  if (problem !== undefined) throw new InvalidRecordError(`${kind} record${problem}`);
  return value as RecordOf[K];
}
