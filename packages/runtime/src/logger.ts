/** Structured logging: one JSON object per line, `level`, `time`, `module`, `msg`, then fields. */
import { redactCredentials } from './redact.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;

export type Logger = {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  isEnabled(level: LogLevel): boolean;
  child(bindings: LogFields): Logger;
};

export type LoggerOptions = {
  level?: LogLevel;
  /** Where lines go; defaults to stdout. */
  write?: (line: string) => void;
  bindings?: LogFields;
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const bindings = options.bindings ?? {};

  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record: LogFields = { level, time: new Date().toISOString(), ...bindings, msg, ...fields };
    write(JSON.stringify(record, jsonSafe));
  };

  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    isEnabled: (level) => LOG_LEVELS.indexOf(level) >= threshold,
    child: (more) => createLogger({ ...options, bindings: { ...bindings, ...more } }),
  };
}

/**
 * BigInts as strings; errors with message, stack and cause, and their `code` and `retriable` when they
 * have them (TonstreamError's, Node's ECONNREFUSED, kafkajs's); no credentials of URLs in any string.
 */
function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return redactCredentials(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) {
    const { code, retriable } = value as { code?: unknown; retriable?: unknown };
    return { name: value.name, message: value.message, code, retriable, stack: value.stack, cause: value.cause };
  }
  return value;
}
