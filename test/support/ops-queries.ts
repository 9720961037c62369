/**
 * The queries the operations files hold (deploy/grafana/dashboards/*.json, deploy/prometheus/alerts.yml),
 * and what it takes to run them outside Grafana and Prometheus' rule engine: Grafana's interval
 * variables and the ClickHouse plugin's macros expanded to literals, alert comparisons made `bool`.
 * Used by test/unit/ops-*.test.ts and test/integration/ops-stack.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './processes.js';

export const DEPLOY = join(ROOT, 'deploy');
export const DASHBOARD_DIR = join(DEPLOY, 'grafana/dashboards');

export type GrafanaTarget = { refId: string; datasource?: { type?: string; uid?: string }; expr?: string; rawSql?: string; [k: string]: unknown };
export type GrafanaPanel = { id: number; type: string; title: string; datasource?: { type?: string; uid?: string }; targets?: GrafanaTarget[]; panels?: GrafanaPanel[]; gridPos: { x: number; y: number; w: number; h: number } };
export type Dashboard = { file: string; uid: string; title: string; schemaVersion: number; panels: GrafanaPanel[] };

export function loadDashboards(): Dashboard[] {
  return readdirSync(DASHBOARD_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(DASHBOARD_DIR, file), 'utf8')) as Omit<Dashboard, 'file'>) }));
}

/** Every panel, the ones inside collapsed rows included. */
export function allPanels(d: Dashboard): GrafanaPanel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

export type PanelQuery = { where: string; datasourceUid: string; expr?: string; sql?: string };

export function panelQueries(): PanelQuery[] {
  return loadDashboards().flatMap((d) =>
    allPanels(d).flatMap((p) =>
      (p.targets ?? []).map((t) => ({ where: `${d.file} "${p.title}" ${t.refId}`, datasourceUid: t.datasource?.uid ?? p.datasource?.uid ?? '', expr: t.expr, sql: t.rawSql })),
    ),
  );
}

export type AlertRule = { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };

export function loadAlertRules(): AlertRule[] {
  const doc = parse(readFileSync(join(DEPLOY, 'prometheus/alerts.yml'), 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return doc.groups.flatMap((g) => g.rules);
}

/** Grafana's interval variables as Prometheus durations (the dashboard's own range and step stand in). */
export function expandGrafanaVariables(expr: string, vars: { rateInterval: string; interval: string; range: string }): string {
  return expr.replaceAll('$__rate_interval', vars.rateInterval).replaceAll('$__interval', vars.interval).replaceAll('$__range', vars.range);
}

/**
 * The grafana-clickhouse-datasource macros the dashboards use, expanded as the plugin does
 * (pkg/macros: `$__timeFilter(c)` is `c >= toDateTime(from) AND c <= toDateTime(to)`, times in whole
 * seconds, `$__interval_s` at least 1). An unknown macro is an error: it would reach ClickHouse as is.
 */
export function expandClickHouseMacros(sql: string, range: { fromS: number; toS: number; intervalS: number }): string {
  const from = `toDateTime(${Math.floor(range.fromS)})`;
  const to = `toDateTime(${Math.floor(range.toS)})`;
  const out = sql
    .replace(/\$__timeFilter\(([^()]+)\)/g, (_m, col: string) => `${col.trim()} >= ${from} AND ${col.trim()} <= ${to}`)
    .replaceAll('$__fromTime', from)
    .replaceAll('$__toTime', to)
    .replaceAll('$__interval_s', String(Math.max(1, Math.floor(range.intervalS))));
  const left = /\$__\w+/.exec(out);
  if (left) throw new Error(`macro ${left[0]} is not expanded by this test: add it to expandClickHouseMacros`);
  return out;
}

/**
 * The alert expression with every comparison made `bool` (`x > 5` -> `x > bool 5`): it then answers
 * 0/1 for every series it looks at, whether the alert would fire or not, so "returns a series" proves
 * the metrics and label matching behind it exist. Label matchers (inside braces) and strings are left alone.
 */
export function withBoolComparisons(expr: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') {
      const end = expr.indexOf(c, i + 1);
      out += expr.slice(i, end + 1);
      i = end;
      continue;
    }
    if (c === '{') depth++;
    if (c === '}') depth--;
    const op = depth === 0 ? /^(==|!=|>=|<=|>|<)/.exec(expr.slice(i))?.[0] : undefined;
    if (op && !/^\s*bool\b/.test(expr.slice(i + op.length))) {
      out += `${op} bool`;
      i += op.length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/** PromQL words that look like identifiers but name no metric. */
const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/**
 * Metric names a PromQL expression reads: identifiers that are not functions, keywords, label names
 * of grouping clauses, label matchers, strings or durations.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"|'[^']*'/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)\b(?!\s*\()/g)) if (!PROMQL_KEYWORDS.has(m[1].toLowerCase())) names.add(m[1]);
  return [...names].sort();
}
