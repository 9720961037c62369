import type { Endpoint } from './endpoint.js';
import type { JsonSchema } from './kinds.js';
import { type Param, SETTINGS } from './params.js';
import { SCHEMAS, ref } from './schemas.js';

/** OpenAPI 3.0 document of the served v3 endpoints, built from their declarations (nothing hand-kept). */
export function openApiDocument(endpoints: readonly Endpoint[], version: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const e of endpoints) {
    const responses: Record<string, unknown> = {
      200: { description: 'OK', headers: INDEX_HEADERS, content: json(e.response) },
      422: { description: 'A parameter is invalid (the message names it)', content: json(ref('Error')) },
      503: { description: 'The index store is unavailable', content: json(ref('Error')) },
      504: { description: 'The query exceeded X-Timeout', content: json(ref('Error')) },
    };
    if (e.notFound) responses[404] = { description: e.notFound, content: json(ref('Error')) };
    paths[`/api/v3${e.path}`] = {
      get: {
        operationId: e.operationId,
        summary: e.summary,
        ...(e.description ? { description: e.description } : {}),
        tags: [e.tag],
        parameters: [...Object.entries(e.params), ...Object.entries(SETTINGS)].map(([name, p]) => parameter(name, p as Param<unknown>)),
        responses,
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'tonstream: toncenter API v3', version, description: 'Indexed TON data, answered at or below the index watermark (X-Index-Mc-Seqno).' },
    paths,
    components: { schemas: SCHEMAS },
  };
}

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const INDEX_HEADERS = {
  'X-Index-Mc-Seqno': { description: 'The watermark: highest masterchain seqno fully indexed (0 before any)', schema: { type: 'integer' } },
  'X-Index-Lag-Seconds': { description: 'Now minus the watermark block gen_utime (absent before any block is indexed)', schema: { type: 'integer' } },
};

function parameter(name: string, p: Param<unknown>) {
  const base: JsonSchema = { ...p.kind.schema, ...(p.default !== undefined ? { default: typeof p.default === 'bigint' ? p.default.toString() : p.default } : {}) };
  const schema: JsonSchema = p.array ? { type: 'array', items: p.kind.schema, ...(p.maxItems ? { maxItems: p.maxItems } : {}) } as JsonSchema : base;
  return {
    name,
    in: 'query',
    required: p.required,
    description: `${p.description} Accepts ${p.kind.accepts}.`,
    schema,
    ...(p.array ? { style: 'form', explode: true } : {}),
  };
}
