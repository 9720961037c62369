import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLiteQueryMetrics } from './lite-metrics.js';

describe('createLiteQueryMetrics()', () => {
  it('counts attempts by server, method and result; failures and retries per server, at 0 from its first query', async () => {
    const registry = new Registry();
    const lite = createLiteQueryMetrics(registry, 'api');
    lite.observeQuery({ server: 'a', method: 'runSmcMethod', durationMs: 20, result: 'ok', attempt: 0 });
    lite.observeQuery({ server: 'b', method: 'getAccountState', durationMs: 5, result: 'timeout', attempt: 0 });
    lite.observeQuery({ server: 'a', method: 'getAccountState', durationMs: 7, result: 'ok', attempt: 1 });
    const values = async (name: string) => (await registry.getSingleMetric(name)!.get()).values.map((v) => [v.labels, v.value]);
    expect(await values('tonstream_api_liteserver_errors_total')).toEqual([
      [{ liteserver: 'a', result: 'error' }, 0],
      [{ liteserver: 'a', result: 'timeout' }, 0],
      [{ liteserver: 'a', result: 'gone' }, 0],
      [{ liteserver: 'b', result: 'error' }, 0],
      [{ liteserver: 'b', result: 'timeout' }, 1],
      [{ liteserver: 'b', result: 'gone' }, 0],
    ]);
    expect(await values('tonstream_api_liteserver_retries_total')).toEqual([
      [{ liteserver: 'a' }, 1],
      [{ liteserver: 'b' }, 0],
    ]);
    const counts = (await registry.getSingleMetric('tonstream_api_liteserver_query_duration_seconds')!.get()).values.filter((v) => v.metricName?.endsWith('_count'));
    expect(counts.map((v) => [v.labels, v.value])).toEqual([
      [{ liteserver: 'a', method: 'runSmcMethod', result: 'ok' }, 1],
      [{ liteserver: 'b', method: 'getAccountState', result: 'timeout' }, 1],
      [{ liteserver: 'a', method: 'getAccountState', result: 'ok' }, 1],
    ]);
  });
});
