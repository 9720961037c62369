import type { JsonSchema } from './kinds.js';

/**
 * Builders of the response schemas (OpenAPI 3.0 components) that carry the TypeScript type of the
 * JSON they describe, as fastify's type providers do: `obj({a: S})` is a `Schema<{a: string}>`, so a
 * handler declared with it is checked against what the document promises. The type lives only in
 * the compiler (an optional symbol key never set); the value is a plain JSON Schema.
 */
declare const TYPE: unique symbol;
export type Schema<T> = JsonSchema & { readonly [TYPE]?: T };

/** The type a schema describes; `unknown` for a schema written as a plain object. */
export type TypeOf<S> = S extends { readonly [TYPE]?: infer T } ? (unknown extends T ? unknown : T) : unknown;

export const S: Schema<string> = { type: 'string' };
export const N: Schema<number> = { type: 'integer' };
export const B: Schema<boolean> = { type: 'boolean' };
/** An object whose fields the document leaves open. */
export const OPEN: Schema<Record<string, unknown>> = { type: 'object' };

/** A schema with more keywords (a description, an enum, an example), its type kept. */
export const more = <T>(s: Schema<T>, extra: JsonSchema): Schema<T> => ({ ...s, ...extra });

/** A string of one of `values` (typed `string`: the mappers pass stored values through, which the document restricts). */
export const oneOf = (values: readonly string[], extra: JsonSchema = {}): Schema<string> => ({ type: 'string', enum: values, ...extra });

/**
 * `s` for the document, its answers left unchecked by the compiler: for mappers that still build
 * their objects key by key from stored JSON (traces, actions, pending). API_CHECK_RESPONSES checks
 * their answers at run time.
 */
export const unchecked = (s: JsonSchema): Schema<unknown> => s;

/** A named schema of `#/components/schemas`; `ref(component)` points at it with its type. */
export type Component<T> = { name: string; schema: Schema<T> };
export const component = <T>(name: string, schema: Schema<T>): Component<T> => ({ name, schema });

export function ref<T = unknown>(target: string | Component<T>): Schema<T> {
  return { $ref: `#/components/schemas/${typeof target === 'string' ? target : target.name}` };
}

/**
 * `s` or null. OpenAPI 3.0 ignores every sibling of a `$ref`, so a nullable reference is an
 * `allOf` of it (the form client generators read as "this object or null").
 */
export const nullable = <T>(s: Schema<T>): Schema<T | null> => (s.$ref ? { allOf: [s], nullable: true } : { ...s, nullable: true });

type Flat<T> = { [K in keyof T]: T[K] } & {};

/** An object whose properties are all required except `optional` (toncenter's `omitempty` fields). */
export function obj<P extends Record<string, JsonSchema>, O extends keyof P & string = never>(
  properties: P,
  optional: readonly O[] = [],
): Schema<Flat<{ [K in Exclude<keyof P, O>]: TypeOf<P[K]> } & { [K in O]?: TypeOf<P[K]> }>> {
  return { type: 'object', properties, required: Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k)) };
}

export const arr = <T>(items: Schema<T>, extra: JsonSchema = {}): Schema<T[]> => ({ type: 'array', items, ...extra });

/** An object keyed by any string (an address book, amounts by currency id). */
export const dict = <T>(values: Schema<T>, extra: JsonSchema = {}): Schema<Record<string, T>> => ({ type: 'object', additionalProperties: values, ...extra });

/** Every component as `#/components/schemas` lists them. */
export const componentSchemas = (components: readonly Component<unknown>[]): Record<string, JsonSchema> => Object.fromEntries(components.map((c) => [c.name, c.schema]));
export type { JsonSchema };
