import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRegistry, startMetricsServer } from '@tonstream/runtime';
import type { Store } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { topicNames } from '@tonstream/bus';
import type { Kafka } from 'kafkajs';
import { createApp } from '../../services/api/src/app.js';
import { createPendingPublisher } from '../../services/api/src/pending-publish.js';
import { createDecoderMetrics } from '../../services/decoder/src/metrics.js';
import { createFetcherMetrics } from '../../services/fetcher/src/metrics.js';
import { createLocalnetMetrics } from '../../services/localnet/src/metrics.js';
import { createWriterMetrics } from '../../services/writer/src/metrics.js';
import { createLogger } from '@tonstream/runtime';
import { allPanels, DEPLOY, loadAlertRules, loadDashboards, metricNames, panelQueries } from '../support/ops-queries.js';

/** Datasource uids the Grafana provisioning defines (deploy/grafana/provisioning/datasources/*.yml). */
function provisionedDatasources(): Map<string, string> {
  const dir = join(DEPLOY, 'grafana/provisioning/datasources');
  const out = new Map<string, string>();
  for (const file of ['prometheus.yml', 'clickhouse.yml']) {
    const doc = parse(readFileSync(join(dir, file), 'utf8')) as { datasources: { uid: string; type: string }[] };
    for (const ds of doc.datasources) out.set(ds.uid, ds.type);
  }
  return out;
}

/**
 * Every metric name the services export, from their own registries: each service's metrics
 * module, the API app (its request histogram and index gauges), prom-client's process metrics and
 * what every service's metrics server adds (its health).
 */
async function exportedMetricNames(): Promise<Set<string>> {
  const registry = createRegistry('any');
  createFetcherMetrics(registry);
  createDecoderMetrics(registry);
  createWriterMetrics(registry);
  createLocalnetMetrics(registry);
  const store = { database: 'unused', query: () => Promise.reject(new Error('no store in a unit test')) } as unknown as Store;
  const logger = createLogger({ level: 'error', write: () => {} });
  createApp({ store, registry, logger });
  // The API's pending publisher registers its metrics when made; a Kafka that never answers keeps it idle.
  const never = () => new Promise<never>(() => {});
  const kafka = { admin: () => ({ connect: never, disconnect: never }), producer: () => ({ connect: never, disconnect: never, send: never }) } as unknown as Kafka;
  createPendingPublisher({ kafka, topics: topicNames(''), registry, logger });
  const server = await startMetricsServer({ registry, port: 0 });
  server.close();
  const names = new Set(['up']);
  for (const m of await registry.getMetricsAsJSON()) {
    names.add(m.name);
    if ((m.type as unknown as string) === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(m.name + suffix);
  }
  return names;
}

describe('Grafana dashboards (deploy/grafana/dashboards)', () => {
  const dashboards = loadDashboards();

  it('are the Pipeline and Chain dashboards, with distinct uids and a schema version', () => {
    expect(dashboards.map((d) => d.file)).toEqual(['chain.json', 'pipeline.json']);
    expect(new Set(dashboards.map((d) => d.uid)).size).toBe(dashboards.length);
    for (const d of dashboards) {
      expect(Number.isInteger(d.schemaVersion) && d.schemaVersion >= 36, d.file).toBe(true);
      expect(d.title, d.file).toMatch(/^tonstream \/ /);
    }
  });

  it('give every panel a unique id and a place on the 24-column grid', () => {
    for (const d of dashboards) {
      const ids = allPanels(d).map((p) => p.id);
      expect(ids.every((id) => Number.isInteger(id) && id > 0), d.file).toBe(true);
      expect(new Set(ids).size, `${d.file}: duplicate panel ids ${ids}`).toBe(ids.length);
      for (const p of allPanels(d)) {
        const g = p.gridPos;
        expect(g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.y >= 0 && g.h > 0, `${d.file} "${p.title}" ${JSON.stringify(g)}`).toBe(true);
      }
    }
  });

  it('use only the datasources the provisioning defines, with the matching type', () => {
    const defined = provisionedDatasources();
    expect([...defined.keys()].sort()).toEqual(['clickhouse', 'prometheus']);
    for (const d of dashboards) {
      for (const p of allPanels(d).filter((p) => p.type !== 'row')) {
        expect(p.targets?.length, `${d.file} "${p.title}" has no query`).toBeGreaterThan(0);
        for (const ds of [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]) {
          expect(defined.get(ds?.uid ?? ''), `${d.file} "${p.title}" uses datasource ${JSON.stringify(ds)}`).toBe(ds?.type);
        }
      }
    }
  });

  it('query PromQL on Prometheus panels and SQL on ClickHouse panels', () => {
    for (const q of panelQueries()) {
      if (q.datasourceUid === 'prometheus') expect(q.expr?.trim(), q.where).toBeTruthy();
      else expect(q.sql?.trim(), q.where).toMatch(/^SELECT\b/);
    }
  });

  it('read only metrics some service exports (checked against their registries)', async () => {
    const exported = await exportedMetricNames();
    const used = [...panelQueries().flatMap((q) => (q.expr ? metricNames(q.expr) : [])), ...loadAlertRules().flatMap((r) => metricNames(r.expr))];
    expect(used.length).toBeGreaterThan(40);
    const unknown = [...new Set(used)].filter((n) => !exported.has(n));
    expect(unknown, 'metric names no service exports').toEqual([]);
  });

  it('cover what issue 15 asks of the Pipeline dashboard', () => {
    const titles = allPanels(dashboards.find((d) => d.file === 'pipeline.json')!).map((p) => p.title.toLowerCase());
    for (const want of ['masterchain seqno by stage', 'lag in blocks', 'lag in seconds', 'freshness', 'blocks/s', 'transactions/s', 'rows/s', 'consumer lag', 'dead letters', 'liteserver latency', 'liteserver errors', 'clickhouse write latency', 'retries', 'api requests/s', 'api latency', 'api errors', 'cpu', 'memory']) {
      expect(titles.some((t) => t.includes(want)), want).toBe(true);
    }
  });
});

describe('alert rules (deploy/prometheus/alerts.yml)', () => {
  const rules = loadAlertRules();
  const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');

  it('are the seven alerts of issue 15, the three of issue 23 and the one of issue 29, each with a runbook entry in deploy/README.md', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'TonstreamIndexerStalled',
      'TonstreamIndexLagHigh',
      'TonstreamDeadLettersGrowing',
      'TonstreamLiteserverFailing',
      'TonstreamClickHouseUnavailable',
      'TonstreamApiErrorRate',
      'TonstreamServiceDown',
      'TonstreamServiceUnhealthy',
      'TonstreamServiceDegraded',
      'TonstreamPendingPublishDown',
      'TonstreamHistoryHoles',
    ]);
    for (const r of rules) {
      expect(r.annotations?.runbook, r.alert).toBe(`deploy/README.md#${r.alert.toLowerCase()}`);
      // GitHub makes the anchor from a heading "### TonstreamX".
      expect(readme, `no "### ${r.alert}" heading in deploy/README.md`).toMatch(new RegExp(`^### ${r.alert}$`, 'm'));
      expect(['critical', 'warning'], r.alert).toContain(r.labels?.severity);
    }
  });

  it('each have a promtool unit test where they fire and one where they stay quiet', () => {
    type RuleTest = { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] };
    const doc = parse(readFileSync(join(DEPLOY, 'prometheus/alerts.test.yml'), 'utf8')) as { tests: RuleTest[] };
    const checks = doc.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const r of rules) {
      const mine = checks.filter((c) => c.alertname === r.alert);
      expect(mine.some((c) => c.exp_alerts.length > 0), `${r.alert}: no case where it fires`).toBe(true);
      expect(mine.some((c) => c.exp_alerts.length === 0), `${r.alert}: no case where it stays quiet`).toBe(true);
    }
  });
});
