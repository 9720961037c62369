import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { createRegistry, startMetricsServer } from './metrics.js';
import { ConfigError, loadConfig, url } from './config.js';
import { redactCredentials } from './redact.js';

describe('redactCredentials()', () => {
  it('hides the password of a URL, keeps the user, host, port and path', () => {
    expect(redactCredentials('redis://default:s3cret@redis.internal:6379/2')).toBe('redis://default:***@redis.internal:6379/2');
    expect(redactCredentials('rediss://:s3cret@10.0.0.5:6380')).toBe('rediss://:***@10.0.0.5:6380');
    expect(redactCredentials('http://reader:p%40ss@clickhouse:8123/?database=ton')).toBe('http://reader:***@clickhouse:8123/?database=ton');
    // An unescaped @ in the password: Node's URL takes the last @ as the end of the userinfo; so do we.
    expect(new URL('redis://u:p@ss@host:1').host).toBe('host:1');
    expect(redactCredentials('redis://u:p@ss@host:1')).toBe('redis://u:***@host:1');
  });

  it('hides a lone token before the host, and password / token query parameters', () => {
    expect(redactCredentials('https://ghp_abcdef@prom.example/api')).toBe('https://***@prom.example/api');
    expect(redactCredentials('http://ch:8123/?user=ro&password=s3cret&database=ton')).toBe('http://ch:8123/?user=ro&password=***&database=ton');
    expect(redactCredentials('redis://host:6379?db=1&token=abc')).toBe('redis://host:6379?db=1&token=***');
  });

  it('finds URLs inside longer text and leaves text without credentials as it is', () => {
    expect(redactCredentials('Redis unreachable at redis://u:pw@h:6379 and redis://v:pw2@g:6379: ECONNREFUSED'))
      .toBe('Redis unreachable at redis://u:***@h:6379 and redis://v:***@g:6379: ECONNREFUSED');
    for (const plain of ['redis://127.0.0.1:6379', 'http://127.0.0.1:8123/?database=ton', 'user@example.com wrote a=b', '127.0.0.1:9092']) {
      expect(redactCredentials(plain)).toBe(plain);
    }
  });
});

describe('where credentials could leak', () => {
  it('the logger writes no password: not from a field, the message, or an error (message, stack, cause)', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l) });
    const cause = new Error('connect to redis://:hunter2@cache:6379 refused');
    logger.warn('Redis unreachable at redis://:hunter2@cache:6379', { redis: 'redis://app:hunter2@cache:6379', err: new Error('wrapped', { cause }), nested: { url: 'http://u:hunter2@ch:8123' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('hunter2');
    const record = JSON.parse(lines[0]) as { msg: string; redis: string; nested: { url: string } };
    expect(record.redis).toBe('redis://app:***@cache:6379');
    expect(record.msg).toBe('Redis unreachable at redis://:***@cache:6379');
    expect(record.nested.url).toBe('http://u:***@ch:8123');
  });

  it('a config error names the variable and the value, without its password', () => {
    let error: unknown;
    try {
      loadConfig({ redis: url('REDIS_URL', 'Redis', undefined, ['redis:']) }, { REDIS_URL: 'http://app:hunter2@cache:6379' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('REDIS_URL="http://app:***@cache:6379" is invalid: protocol http: not supported');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('/healthcheck quotes a reason without the password of the URL it names', async () => {
    const reason = 'redis error: connect ECONNREFUSED redis://app:hunter2@cache:6379';
    const server = await startMetricsServer({ registry: createRegistry('redact-test'), port: 0, health: () => ({ status: 'degraded', reasons: [reason] }) });
    try {
      const { port } = server.address() as { port: number };
      const body = (await (await fetch(`http://127.0.0.1:${port}/healthcheck`)).json()) as { reasons: string[] };
      expect(body.reasons).toEqual(['redis error: connect ECONNREFUSED redis://app:***@cache:6379']);
    } finally {
      server.close();
    }
  });
});
