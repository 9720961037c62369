import { bodyJsonFromText, decodeBudget, opcodeName } from '@tonstream/contracts';
import { HttpError } from '../../http/http-error.js';
import { arr, obj, OPEN, S } from '../../http/schema-kit.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import type { Kind } from '../../http/kinds.js';
import { echo, type Param } from '../../http/params.js';

/** Items per list (docs/toncenter-v3.md §2.9). */
export const MAX_DECODE_ITEMS = 1000;

/** A body is any text: a bad BoC is answered in its position (`{"error": "unknown: …"}`), not refused. */
const bocText: Kind<string> = { accepts: 'a message body BoC, base64 or hex', schema: { type: 'string' }, parse: (t) => t };

/**
 * A positional list with toncenter's messages: `<name> list exceeds maximum length of 1000`, and
 * for a bad item `invalid <what> format at index i: …` (the index counts the values sent).
 */
function decodeList<T>(kind: Kind<T>, what: string, description: string): Param<T[] | undefined> {
  return {
    kind,
    description,
    required: false,
    array: true,
    maxItems: MAX_DECODE_ITEMS,
    read(texts, name) {
      if (texts.length === 0) return undefined;
      if (texts.length > MAX_DECODE_ITEMS) throw new HttpError(422, `${name} list exceeds maximum length of ${MAX_DECODE_ITEMS}`);
      return texts.map((text, i) => {
        const v = kind.parse(text);
        if (v === undefined) {
          throw new HttpError(422, `invalid ${what} format at index ${i}: parameter "${name}" expects ${kind.accepts}, got ${JSON.stringify(echo(text))}`);
        }
        return v;
      });
    },
  };
}

/**
 * GET and POST /decode (docs/toncenter-v3.md §2.9): opcode names and decoded bodies, in the order asked.
 * Names and JSON are those of toncenter's decoder for the standard contracts @tonstream/contracts
 * knows; any other opcode is `unknown`, any other body `{"error": "unknown: …"}`.
 */
export const decodeEndpoint = defineEndpoint({
  path: '/decode',
  methods: ['get', 'post'],
  operationId: 'getDecode',
  summary: 'Decode opcodes and message bodies',
  description:
    'Opcodes: hex (0x-prefixed or not, tried first) or signed 32-bit decimal; answered with the message name or "unknown". ' +
    'Bodies: BoCs in base64 or hex; answered with the decoded TL-B object or {"error": "unknown: …"}. At most 1000 of each; ' +
    'POST takes {"opcodes": [...], "bodies": [...]} for lists too long for a URL.',
  tag: 'utils',
  params: {
    opcodes: decodeList(kinds.opcode, 'opcode', 'Opcodes to name (repeat the key).'),
    bodies: decodeList(bocText, 'body', 'Message bodies to decode (repeat the key).'),
  },
  response: obj({
    opcodes: arr(S, { description: 'Per opcode asked: its name, or "unknown".' }),
    bodies: arr(OPEN, { description: 'Per body asked: the decoded object, or {"error": "unknown: …"}.' }),
  }),
  async handle({ params }) {
    // One budget for the request's bodies: large known bodies past it are answered as a decode limit.
    const budget = decodeBudget();
    return {
      opcodes: (params.opcodes ?? []).map((op) => opcodeName(op) ?? 'unknown'),
      bodies: (params.bodies ?? []).map((b) => bodyJsonFromText(b, budget)),
    };
  },
});
