import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import type { BodyOf, MessageLayout } from './layout.js';
import { layoutsFor } from './table.js';

/** A body read with the first layout of its opcode that fits. `value` is `{ type: name, ...fields }`. */
export type DecodedBody<V = { type: string } & Record<string, unknown>> = { opcode: number; name: string; layout: MessageLayout; value: V };

/**
 * Reads a message body as a typed value: null when it has no 32-bit opcode, the opcode is unknown,
 * or no layout of the opcode fits the bits. Never throws.
 */
export function readBody(body: Cell): DecodedBody | null {
  if (body.isExotic || body.bits.length < 32) return null;
  const opcode = body.beginParse().preloadUint(32);
  for (const layout of layoutsFor(opcode)) {
    try {
      return { opcode, name: layout.name, layout, value: layout.read(body.beginParse()) as DecodedBody['value'] };
    } catch (err) {
      rethrowBugs(err);
      // Not this layout: try the next one for the opcode.
    }
  }
  return null;
}

/** Narrows a decoded body to one layout's typed value. */
export function isBody<L extends MessageLayout>(body: DecodedBody | null, layout: L): body is DecodedBody<BodyOf<L>> {
  return body !== null && body.layout === layout;
}
