import { bool, int, LOG_LEVELS, type LogLevel, loadConfig, oneOf, str, url } from '@tonstream/runtime';

export type ApiConfig = {
  /** Interface the HTTP API listens on. @default 127.0.0.1 */
  host: string;
  /** @default 8081 */
  port: number;
  /** @default http://127.0.0.1:8123 */
  clickhouseUrl: string;
  /** @default tonstream */
  clickhouseDatabase: string;
  logLevel: LogLevel;
  /** User-friendly addresses in address_book carry the test-only flag (`kQ…`/`0Q…`). @default false */
  testnet: boolean;
};

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return loadConfig(
    {
      host: str('API_HOST', 'interface the HTTP API listens on', '127.0.0.1'),
      port: int('API_PORT', 'HTTP API port', 8081, { min: 0, max: 65535 }),
      clickhouseUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP endpoint', 'http://127.0.0.1:8123'),
      clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'database holding the index', 'tonstream'),
      logLevel: oneOf('LOG_LEVEL', 'least severe level logged', LOG_LEVELS, 'info'),
      testnet: bool('API_TESTNET', 'user-friendly addresses with the test-only flag', false),
    },
    env,
  );
}
