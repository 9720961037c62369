import { describe, expect, it } from 'vitest';
import { expandClickHouseMacros, expandGrafanaVariables, metricNames, withBoolComparisons } from '../support/ops-queries.js';

describe('withBoolComparisons()', () => {
  it('makes every comparison outside braces and strings a bool one', () => {
    expect(withBoolComparisons('max(a) > max(b) and on() max(changes(c[1m])) == 0')).toBe('max(a) > bool max(b) and on() max(changes(c[1m])) == bool 0');
    expect(withBoolComparisons('x >= 1 or y <= 2 or z != 3 or w < 4')).toBe('x >= bool 1 or y <= bool 2 or z != bool 3 or w < bool 4');
  });

  it('leaves label matchers, strings and comparisons that are already bool alone', () => {
    expect(withBoolComparisons('up{job="tonstream",service!="a>b"} == 0')).toBe('up{job="tonstream",service!="a>b"} == bool 0');
    expect(withBoolComparisons('rate(x{status=~"5.."}[5m]) > bool 0.05')).toBe('rate(x{status=~"5.."}[5m]) > bool 0.05');
  });
});

describe('expandClickHouseMacros()', () => {
  const range = { fromS: 1_700_000_000.9, toS: 1_700_003_600, intervalS: 30 };

  it("expands the plugin's macros to literals, as its pkg/macros does", () => {
    expect(expandClickHouseMacros('WHERE $__timeFilter(gen_utime) AND t < $__toTime GROUP BY intDiv(t, $__interval_s)', range)).toBe(
      'WHERE gen_utime >= toDateTime(1700000000) AND gen_utime <= toDateTime(1700003600) AND t < toDateTime(1700003600) GROUP BY intDiv(t, 30)',
    );
    expect(expandClickHouseMacros('SELECT $__fromTime', range)).toBe('SELECT toDateTime(1700000000)');
    expect(expandClickHouseMacros('SELECT $__interval_s', { ...range, intervalS: 0.2 })).toBe('SELECT 1');
  });

  it('refuses a macro it does not know instead of sending it to ClickHouse', () => {
    expect(() => expandClickHouseMacros('SELECT $__timeInterval(t)', range)).toThrow(/\$__timeInterval/);
  });
});

describe('expandGrafanaVariables()', () => {
  it('replaces the interval variables', () => {
    expect(expandGrafanaVariables('rate(x[$__rate_interval]) + increase(y[$__range]) + z[$__interval]', { rateInterval: '30s', interval: '5s', range: '10m' })).toBe('rate(x[30s]) + increase(y[10m]) + z[5s]');
  });
});

describe('metricNames()', () => {
  it('finds every metric, not functions, keywords, label names, label values or durations', () => {
    expect(metricNames('histogram_quantile(0.5, sum by (le, up) (rate(tonstream_a_bucket{x="tonstream_b"}[1m]))) / on() group_left up{job="j"} > bool 1e3')).toEqual(['tonstream_a_bucket', 'up']);
    expect(metricNames('sum(rate(Tonstream_Typo:x[5m] offset 1m)) or vector(0) and max without (a) (b)')).toEqual(['Tonstream_Typo:x', 'b']);
  });
});
