/**
 * Credentials out of text that may quote a connection URL (a Redis, ClickHouse or Prometheus URL in
 * a log line, a config error, an error message): the password of `scheme://user:password@host`
 * becomes `***` (a lone `scheme://token@host` too), and so do `password=`, `token=` and `secret=`
 * query parameters. Used by the logger on every string it writes and by config errors.
 */

/** The userinfo of a URL: up to the last `@` before the host (an unescaped `@` may be in a password). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi;
const SECRET_PARAM = /([?&](?:password|passwd|pass|pwd|token|secret|api_?key)=)[^&#\s"']*/gi;

export function redactCredentials(text: string): string {
  if (!text.includes('@') && !text.includes('=')) return text;
  return text
    .replace(USERINFO, (_m, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return `${scheme}${colon >= 0 ? `${userinfo.slice(0, colon)}:***` : '***'}@`;
    })
    .replace(SECRET_PARAM, '$1***');
}
