import type { Endpoint } from './endpoint.js';
import { bodySchema, MAX_JSON_BODY_BYTES } from '../http/json-body.js';
import type { JsonSchema } from '../http/kinds.js';
import { DEFAULT_LIMIT, type Param, type RequestDefaults } from '../http/params.js';
import { SETTINGS } from './request.js';
import { ref } from '../http/schema-kit.js';
import { SCHEMAS } from './components.js';
import { ErrorSchema } from './schemas.js';

/** OpenAPI 3.0 document of the served v3 endpoints, built from their declarations (nothing hand-kept). */
export type OpenApiResponse = { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: JsonSchema }> };
export type OpenApiOperation = { operationId: string; responses: Record<string, OpenApiResponse> } & Record<string, unknown>;
export type OpenApiDocument = {
  openapi: string;
  info: Record<string, string>;
  paths: Record<string, Partial<Record<'get' | 'post', OpenApiOperation>>>;
  components: { schemas: Record<string, JsonSchema> };
};

export function openApiDocument(endpoints: readonly Endpoint[], version: string, defaults: RequestDefaults = { limit: DEFAULT_LIMIT }): OpenApiDocument {
  const parameter = (name: string, p: Param<unknown>) => parameterObject(name, p.configuredDefault ? { ...p, default: defaults.limit } : p);
  const paths: OpenApiDocument['paths'] = {};
  for (const e of endpoints) {
    const responses: Record<string, OpenApiResponse> = {
      200: { description: 'OK', headers: INDEX_HEADERS, content: json(e.response) },
      422: { description: 'A parameter is invalid (the message names it)', content: json(ref(ErrorSchema)) },
      500: { description: 'A failure of the server (logged under the answer\'s request_id)', content: json(ref(ErrorSchema)) },
      503: { description: 'The index store is unavailable', content: json(ref(ErrorSchema)) },
      504: { description: 'The query exceeded X-Timeout', content: json(ref(ErrorSchema)) },
    };
    if (e.notFound) responses[404] = { description: e.notFound, content: json(ref(ErrorSchema)) };
    for (const [status, description] of Object.entries(e.errors ?? {})) responses[status] = { description, content: json(ref(ErrorSchema)) };
    const common = { summary: e.summary, ...(e.description ? { description: e.description } : {}), tags: [e.tag] };
    const settings = Object.entries(SETTINGS).map(([name, p]) => parameter(name, p as Param<unknown>));
    const methods = e.methods ?? ['get'];
    paths[`/api/v3${e.path}`] = {
      ...(methods.includes('get')
        ? { get: { operationId: e.operationId, ...common, parameters: [...Object.entries(e.params).map(([name, p]) => parameter(name, p)), ...settings], responses } }
        : {}),
      // POST: the same parameters as a JSON object body (json-body.ts); the settings stay headers / query.
      ...(methods.includes('post')
        ? {
            post: {
              operationId: postOperationId(e.operationId),
              ...common,
              parameters: settings,
              requestBody: { required: false, content: json(bodySchema(e.params)) },
              responses: { ...responses, ...POST_RESPONSES },
            },
          }
        : {}),
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

/** `getDecode` -> `postDecode`. */
const postOperationId = (id: string) => `post${id.replace(/^get/, '').replace(/^./, (c) => c.toUpperCase())}`;

const POST_RESPONSES = {
  400: { description: 'The request body is not JSON', content: json(ref(ErrorSchema)) },
  413: { description: `The request body is over ${MAX_JSON_BODY_BYTES} bytes`, content: json(ref(ErrorSchema)) },
};

const INDEX_HEADERS = {
  'X-Index-Mc-Seqno': { description: 'The watermark: highest masterchain seqno fully indexed (0 before any)', schema: { type: 'integer' } },
  'X-Traces-Mc-Seqno': { description: 'The traces watermark: highest masterchain seqno whose traces and actions are all stored (0 before any); traces and actions are served up to the lower of the two', schema: { type: 'integer' } },
  'X-Index-Lag-Seconds': { description: 'Now minus the watermark block gen_utime (absent before any block is indexed)', schema: { type: 'integer' } },
};

function parameterObject(name: string, p: Param<unknown>) {
  const base: JsonSchema = { ...p.kind.schema, ...(p.default !== undefined ? { default: typeof p.default === 'bigint' ? p.default.toString() : p.default } : {}) };
  // A required list needs one value: an empty array is not sent at all (form, explode).
  const schema: JsonSchema = p.array ? { type: 'array', items: p.kind.schema, ...(p.required ? { minItems: 1 } : {}), ...(p.maxItems ? { maxItems: p.maxItems } : {}) } : base;
  return {
    name,
    in: 'query',
    required: p.required,
    description: `${p.description} Accepts ${p.kind.accepts}.`,
    schema,
    ...(p.array ? { style: 'form', explode: true } : {}),
  };
}
