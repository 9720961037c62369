import type { JsonSchema } from './kinds.js';

/** Builders of the response schemas (OpenAPI 3.0 components). */
export const S: JsonSchema = { type: 'string' };
export const N: JsonSchema = { type: 'integer' };
export const B: JsonSchema = { type: 'boolean' };

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * `s` or null. OpenAPI 3.0 ignores every sibling of a `$ref`, so a nullable reference is an
 * `allOf` of it (the form client generators read as "this object or null").
 */
export const nullable = (s: JsonSchema): JsonSchema => (s.$ref ? { allOf: [s], nullable: true } : { ...s, nullable: true });

/** An object whose properties are all required except `optional` (toncenter's `omitempty` fields). */
export const obj = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
});

export const list = (item: string): JsonSchema => ({ type: 'array', items: ref(item) });
