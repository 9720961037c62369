import { ConfigError } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { loadFetcherConfig } from './config.js';

describe('loadFetcherConfig()', () => {
  it('defaults to the localnet config, live mode from the head', () => {
    const c = loadFetcherConfig({});
    expect(c).toMatchObject({ globalConfig: '.local/localnet/global.config.json', startSeqno: 'head', fromSeqno: null, toSeqno: null, metricsPort: 9101, kafkaBrokers: ['127.0.0.1:9092'] });
  });

  it('reads backfill bounds and a numeric start', () => {
    expect(loadFetcherConfig({ FETCHER_FROM_SEQNO: '10', FETCHER_TO_SEQNO: '20', FETCHER_START_SEQNO: '5' })).toMatchObject({ fromSeqno: 10, toSeqno: 20, startSeqno: 5 });
  });

  it('takes --reset from the arguments and rejects other arguments', () => {
    expect(loadFetcherConfig({}).reset).toBe(false);
    expect(loadFetcherConfig({}, ['--reset']).reset).toBe(true);
    expect(() => loadFetcherConfig({}, ['--rest'])).toThrow(/unknown argument --rest; accepted: --reset/);
  });

  it('reports unknown FETCHER_ variables, bad values and a lone or inverted range together', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadFetcherConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems;
      }
      return [];
    };
    const p = problems({ FETCHER_CONCURENCY: '3', FETCHER_START_SEQNO: 'latest' });
    expect(p[0]).toContain('unknown variable FETCHER_CONCURENCY');
    expect(p[1]).toContain('FETCHER_START_SEQNO="latest" is invalid');
    expect(problems({ FETCHER_TO_SEQNO: '5' })).toEqual(['FETCHER_TO_SEQNO needs FETCHER_FROM_SEQNO (backfill mode)']);
    expect(problems({ FETCHER_FROM_SEQNO: '9', FETCHER_TO_SEQNO: '5' })[0]).toContain('is below');
  });
});
