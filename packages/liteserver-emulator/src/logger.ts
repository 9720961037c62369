/** The logging the server needs; `@tonstream/runtime`'s Logger satisfies it. */
export type LiteServerLogger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

/** Default: warnings and errors as JSON lines on stderr, so a dropped connection is never silent. */
export function stderrLogger(): LiteServerLogger {
  const emit = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    process.stderr.write(JSON.stringify({ level, module: 'liteserver', msg, ...fields }) + '\n');
  const drop = () => undefined;
  return { debug: drop, info: drop, warn: emit('warn'), error: emit('error') };
}
