/**
 * Typed configuration from environment variables. A service declares a spec once; `loadConfig`
 * validates every variable at start and reports all problems together, each naming the variable,
 * the bad value (its credentials hidden) and what is accepted.
 */
import { redactCredentials } from './redact.js';
import { TonstreamError } from '@tonstream/errors';

export class ConfigError extends TonstreamError {
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

type Parser<T> = (raw: string) => T;

export type Field<T> = {
  /** Environment variable name. */
  env: string;
  /** What the variable means: the one place it is documented (README tables and error messages). */
  doc: string;
  /** Used when the variable is unset or empty; `undefined` makes it required. */
  default?: T;
  /** A default that depends on other variables; replaces `default`. See `defaultFrom`. */
  defaultOf?: (env: NodeJS.ProcessEnv) => T;
  /** How docs show the default when it is not a plain value (e.g. `$FETCHER_GLOBAL_CONFIG`). */
  shownDefault?: string;
  parse: Parser<T>;
  /** Human description of accepted values. */
  accepts: string;
};

/** A set of fields, keyed by config property. */
export type Fields = Record<string, Field<unknown>>;

/** The config a set of fields builds: each property typed by its field. */
export type ConfigOf<F extends Fields> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

/** `field` with a default computed from the environment (another variable), shown in docs as `shown`. */
export function defaultFrom<T>(field: Field<T>, defaultOf: (env: NodeJS.ProcessEnv) => T, shown: string): Field<T> {
  return { ...field, defaultOf, shownDefault: shown };
}

export function loadConfig<F extends Fields>(spec: F, env: NodeJS.ProcessEnv = process.env): ConfigOf<F> {
  const out = {} as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, field] of Object.entries(spec)) {
    const raw = env[field.env];
    if (raw === undefined || raw === '') {
      const def = field.defaultOf ? field.defaultOf(env) : field.default;
      if (def === undefined) problems.push(`${field.env} is required (${field.doc}); expected ${field.accepts}`);
      else out[key] = def;
      continue;
    }
    try {
      out[key] = field.parse(raw);
    } catch (err) {
      problems.push(redactCredentials(`${field.env}=${JSON.stringify(raw)} is invalid: ${(err as Error).message}; expected ${field.accepts}`));
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as ConfigOf<F>;
}

export function str(env: string, doc: string, def?: string): Field<string> {
  return { env, doc, default: def, accepts: 'a string', parse: (raw) => raw };
}

export function int(env: string, doc: string, def: number | undefined, range: { min?: number; max?: number } = {}): Field<number> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = range;
  return {
    env,
    doc,
    default: def,
    accepts: `an integer in [${min}, ${max}]`,
    parse: (raw) => {
      if (!/^-?\d+$/.test(raw.trim())) throw new Error('not an integer');
      const n = Number(raw);
      if (n < min || n > max) throw new Error('out of range');
      return n;
    },
  };
}

export function bool(env: string, doc: string, def?: boolean): Field<boolean> {
  return {
    env,
    doc,
    default: def,
    accepts: 'true/false/1/0',
    parse: (raw) => {
      const v = raw.trim().toLowerCase();
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      throw new Error('not a boolean');
    },
  };
}

export function oneOf<const V extends string>(env: string, doc: string, values: readonly V[], def?: V): Field<V> {
  return {
    env,
    doc,
    default: def,
    accepts: `one of ${values.join(', ')}`,
    parse: (raw) => {
      if (!(values as readonly string[]).includes(raw)) throw new Error('unknown value');
      return raw as V;
    },
  };
}

export function url(env: string, doc: string, def?: string, protocols: string[] = ['http:', 'https:']): Field<string> {
  return {
    env,
    doc,
    default: def,
    accepts: `a URL (${protocols.join(', ')})`,
    parse: (raw) => {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) throw new Error(`protocol ${u.protocol} not supported`);
      return raw;
    },
  };
}

/** Comma-separated `host:port` list, e.g. Kafka brokers. */
export function hostPorts(env: string, doc: string, def?: string[]): Field<string[]> {
  return {
    env,
    doc,
    default: def,
    accepts: 'comma-separated host:port pairs',
    parse: (raw) => {
      const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
      if (list.length === 0) throw new Error('empty list');
      for (const hp of list) {
        const m = /^([^:\s]+):(\d{1,5})$/.exec(hp);
        if (!m || Number(m[2]) > 65535) throw new Error(`"${hp}" is not host:port`);
      }
      return list;
    },
  };
}
