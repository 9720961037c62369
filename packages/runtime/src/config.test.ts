import { describe, expect, it } from 'vitest';
import { ConfigError, hostPorts, int, loadConfig, oneOf, str, url } from './config.js';

const spec = {
  brokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  chUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP endpoint', 'http://127.0.0.1:8123'),
  port: int('METRICS_PORT', 'metrics port', 9100, { min: 1, max: 65535 }),
  level: oneOf('LOG_LEVEL', 'log level', ['debug', 'info'], 'info'),
  name: str('NAME', 'required name'),
};

describe('loadConfig()', () => {
  it('applies defaults and parses set values', () => {
    const cfg = loadConfig(spec, { NAME: 'x', KAFKA_BROKERS: 'a:1, b:2', METRICS_PORT: '9200' });
    expect(cfg).toEqual({ brokers: ['a:1', 'b:2'], chUrl: 'http://127.0.0.1:8123', port: 9200, level: 'info', name: 'x' });
  });

  it('reports every bad variable with its value and what is accepted', () => {
    let error: unknown;
    try {
      loadConfig(spec, { KAFKA_BROKERS: 'nohost', METRICS_PORT: '70000', LOG_LEVEL: 'loud', CLICKHOUSE_URL: 'ftp://x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(5);
    expect(problems[0]).toContain('KAFKA_BROKERS="nohost" is invalid');
    expect(problems[1]).toContain('protocol ftp: not supported');
    expect(problems[2]).toContain('METRICS_PORT="70000" is invalid: out of range; expected an integer in [1, 65535]');
    expect(problems[3]).toContain('expected one of debug, info');
    expect(problems[4]).toContain('NAME is required');
  });
});
