import type { Constructor, Fields } from './tlb/primitives.js';
import { cons } from './tlb/primitives.js';

/**
 * One message body: `name#opcode fields = InternalMsgBody`. `name` is the constructor name of
 * toncenter's decoder (ton-indexer `ton-marker/src/schemes/schemes.tlb`), which /decode answers for
 * the opcode; the fields are the scheme's, in order. A layout reads a body as a typed value (`read`,
 * `{ type: name, ...fields }`) or prints it as toncenter's decoded JSON (`print`).
 */
export type MessageLayout<N extends string = string, F extends Fields = Fields> = Constructor<N, F> & { opcode: number };

export function message<N extends string, F extends Fields>(name: N, opcode: number, fields: F): MessageLayout<N, F> {
  if (!Number.isInteger(opcode) || opcode < 0 || opcode > 0xffffffff) throw new Error(`${name}: opcode ${opcode} is not 32-bit`);
  return { ...cons(name, `#${opcode.toString(16).padStart(8, '0')}`, fields), opcode };
}

/** The typed value a layout reads. */
export type BodyOf<L> = L extends MessageLayout<infer N, infer F> ? ReturnType<Constructor<N, F>['read']> : never;
