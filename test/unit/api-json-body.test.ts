import { describe, expect, it } from 'vitest';
import { HttpError } from '../../services/api/src/http/http-error.js';
import { bodySchema, bodyValues, nestsDeeperThan } from '../../services/api/src/http/json-body.js';
import * as kinds from '../../services/api/src/http/kinds.js';
import { list, optional, required } from '../../services/api/src/http/params.js';
import { parseRequest } from '../../services/api/src/v3/request.js';

// POST bodies are read by the same declarations as query parameters: these check the JSON side.
const decl = {
  hashes: list(kinds.hash, 'Hashes.'),
  seqno: required(kinds.int32, 'A seqno.'),
  flag: optional(kinds.bool, 'A flag.'),
  name: optional(kinds.text, 'A name.'),
};

function refused(body: unknown): HttpError {
  try {
    bodyValues(decl, body);
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected a 422');
}

describe('bodyValues()', () => {
  it('hands each field to its declaration as texts, numbers and booleans where the kind is one', () => {
    const values = bodyValues(decl, { hashes: ['a', ''], seqno: 5, flag: true, name: 'x' });
    expect([...values]).toEqual([['hashes', ['a', '']], ['seqno', ['5']], ['flag', ['true']], ['name', ['x']]]);
    const { params } = parseRequest(decl, bodyValues(decl, { seqno: '-7', flag: 'false' }), {}, false);
    expect(params).toEqual({ hashes: undefined, seqno: -7, flag: false, name: undefined });
  });

  it('treats null and an empty scalar string as absent, and no body as an empty one', () => {
    expect([...bodyValues(decl, { hashes: null, name: '' })]).toEqual([['hashes', []], ['name', []]]);
    expect(bodyValues(decl, undefined).size).toBe(0);
    expect(() => parseRequest(decl, bodyValues(decl, { seqno: null }), {}, false)).toThrow('parameter "seqno" is required');
  });

  it('refuses a body that is no object and fields of the wrong JSON type, naming them', () => {
    for (const body of [null, [], 'x', 3]) expect(refused(body).message).toBe('request body must be a JSON object');
    expect(refused({ hashes: 'a' }).message).toBe('invalid value for field "hashes": expected an array');
    expect(refused({ hashes: ['a', 1] }).message).toMatch(/^invalid value for field "hashes" at index 1: expected .* \(a JSON string\)$/);
    expect(refused({ name: 5 }).message).toMatch(/^invalid value for field "name": /);
    expect(refused({ seqno: 1.5 }).message).toMatch(/^invalid value for field "seqno": .*a JSON number/);
    expect(refused({ seqno: 2 ** 60 }).status).toBe(422);
    expect(refused({ flag: 1 }).message).toMatch(/^invalid value for field "flag": /);
    expect(refused({ seqno: { a: 1 } }).status).toBe(422);
  });

  it('keeps unknown fields so that strict mode names them', () => {
    const values = bodyValues(decl, { seqno: 1, extra: [1, 2] });
    expect(() => parseRequest(decl, values, {}, true)).toThrow('unknown parameter "extra"');
    expect(parseRequest(decl, values, {}, false).params.seqno).toBe(1);
  });
});

describe('bodySchema()', () => {
  it('documents the declaration as a JSON object: lists as arrays with their limit, required fields', () => {
    const schema = bodySchema(decl);
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['seqno']);
    expect(schema.properties!.hashes).toMatchObject({ type: 'array', items: kinds.hash.schema, maxItems: 1000 });
    expect(schema.properties!.seqno).toMatchObject({ type: 'integer', format: 'int32' });
    expect(schema.properties!.flag.description).toContain(kinds.bool.accepts);
  });
});

describe('nestsDeeperThan()', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
  it('counts arrays and objects, as JSON.parse sees them, in bytes and in decoded text', () => {
    for (const text of [nested(3), '{"a":[{"b":[]}]}', '[1,{"a":{"b":[2]}},3]']) {
      const depth = (function walk(v: unknown): number {
        return typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(walk)) : 0;
      })(JSON.parse(text));
      expect([nestsDeeperThan(text, depth), nestsDeeperThan(Buffer.from(text), depth), nestsDeeperThan(text, depth - 1)]).toEqual([false, false, true]);
    }
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: '[[[[{{{{\\"[[[[', t: ['\\', '"]]]]"', '\u005b'] });
    expect(nestsDeeperThan(text, 2)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(JSON.stringify({ s: 'é[[[[ü' })), 1)).toBe(false);
  });
});
