import { Ajv, type ValidateFunction } from 'ajv';
import type { RequestHandler } from 'express';
import type { JsonSchema } from '../http/kinds.js';
import type { OpenApiDocument, OpenApiOperation } from './openapi.js';

/**
 * Checks answers against the served OpenAPI document (API_CHECK_RESPONSES): `log` reports a mismatch,
 * `reject` answers 500 naming it instead (what the test suites run with, so every answer a test
 * receives from a v3 endpoint is one the document describes).
 */
export type ResponseCheckMode = 'off' | 'log' | 'reject';

/** What is wrong with `body` as the answer of `method route` with `status`; null when it matches. */
export type ResponseCheck = (method: string, route: string, status: number, body: unknown) => string | null;

const ROOT_ID = 'openapi';

export function openApiResponseCheck(doc: OpenApiDocument): ResponseCheck {
  let ajv: Ajv | undefined;
  const ajvWithComponents = () => {
    if (!ajv) {
      ajv = new Ajv({ strict: false, validateFormats: false });
      ajv.addSchema({ $id: ROOT_ID, definitions: Object.fromEntries(Object.entries(doc.components.schemas).map(([name, s]) => [name, toJsonSchema(s)])) });
    }
    return ajv;
  };
  // Compiled on first use, one validator per distinct schema: compiling all of them up front cost
  // every API start 1.1 s of CPU, and a process answers few of the ~500 (route, status) pairs.
  const schemas = new Map<string, JsonSchema>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, OpenApiOperation][]) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (schema) schemas.set(`${method} ${path} ${status}`, schema);
      }
    }
  }
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (schema: JsonSchema) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = ajvWithComponents().compile(toJsonSchema(schema))));
    return validate;
  };
  return (method, route, status, body) => {
    const schema = schemas.get(`${method.toLowerCase()} ${route} ${status}`);
    if (!schema) return `status ${status} of ${method.toUpperCase()} ${route} is not in the document`;
    const validate = validatorOf(schema);
    if (validate(body)) return null;
    return (validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}${'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`).join('; ');
  };
}

/**
 * OpenAPI 3.0 to the JSON Schema Ajv reads: `nullable` as a union with null, references into the
 * components, and objects with declared properties closed (a field served but not documented is a
 * mismatch; `additionalProperties` written out keeps an object open).
 */
function toJsonSchema(s: JsonSchema): Record<string, unknown> {
  const { nullable, $ref, properties, items, additionalProperties, oneOf, allOf, ...rest } = s;
  const out: Record<string, unknown> = { ...rest };
  if ($ref) out.$ref = $ref.replace('#/components/schemas/', `${ROOT_ID}#/definitions/`);
  if (properties) {
    out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, toJsonSchema(v)]));
    out.additionalProperties = additionalProperties === undefined ? false : additionalProperties;
  }
  if (typeof additionalProperties === 'object') out.additionalProperties = toJsonSchema(additionalProperties);
  else if (additionalProperties !== undefined) out.additionalProperties = additionalProperties;
  if (items) out.items = toJsonSchema(items);
  if (oneOf) out.oneOf = oneOf.map(toJsonSchema);
  if (allOf) out.allOf = allOf.map(toJsonSchema);
  return nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

/**
 * Checks what the v3 endpoints (those that name their route in res.locals) send as JSON with `check`:
 * wraps `res.send`, which `res.json` ends in and shared answers (sent as text) call directly, so the
 * text checked is the text sent.
 */
export function checkResponses(check: ResponseCheck, reject: boolean, report: (route: string, problem: string) => void): RequestHandler {
  return (req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const route = res.locals.route as string | undefined;
      if (route === undefined || typeof body !== 'string' || !String(res.get('Content-Type')).startsWith('application/json')) return send(body);
      const problem = check(req.method, route, res.statusCode, JSON.parse(body));
      if (problem === null) return send(body);
      report(route, problem);
      if (!reject) return send(body);
      res.status(500).removeHeader('ETag');
      return send(JSON.stringify({ error: `the answer does not match the OpenAPI document: ${problem}` }));
    };
    next();
  };
}
