import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../support/processes.js';
import { DEPLOY, loadDashboards } from '../support/ops-queries.js';

// `docker-compose config` (Debian's docker-compose, no Docker engine needed) validates the file; the
// rest checks what matters beyond it (mounted files exist, Prometheus' targets are the compose
// services' ports, Grafana's datasources point at compose services and its dashboards at provisioned uids).
type Service = { image?: string; build?: unknown; environment?: Record<string, string | number>; volumes?: string[]; depends_on?: unknown; ports?: string[]; command?: string[] };
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown>; networks?: Record<string, unknown> };

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Compose;
const prometheusConfig = parse(readFileSync(join(DEPLOY, 'prometheus/prometheus.yml'), 'utf8')) as {
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs: { targets: string[]; labels?: Record<string, string> }[] }[];
};

/** [source, target] of each bind mount (a source starting with . or /); named volumes are skipped. */
function bindMounts(svc: Service): [string, string][] {
  return (svc.volumes ?? []).map((v) => v.split(':')).filter(([src]) => src.startsWith('.') || isAbsolute(src)).map(([src, dst]) => [src, dst]);
}

/** docker-compose's own validation (`config -q`: schema, references, interpolation; no Docker engine needed). */
function composeConfig(file: string): { ok: boolean; output: string } {
  const bin = process.env.TONSTREAM_DOCKER_COMPOSE || 'docker-compose';
  const run = spawnSync(bin, ['-f', file, 'config', '-q'], { cwd: ROOT, encoding: 'utf8' });
  if (run.error) throw new Error(`${bin}: ${run.error.message} (scripts/test.sh installs it: bash scripts/debian-tool.sh docker-compose docker-compose)`);
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

describe('docker-compose.yml', () => {
  it('is valid for docker-compose itself, which refuses a broken copy', () => {
    const valid = composeConfig(join(ROOT, 'docker-compose.yml'));
    expect(valid.output).toBe('');
    expect(valid.ok).toBe(true);
    // The same file with a service depending on one that does not exist.
    const broken = join(mkdtempSync(join(tmpdir(), 'tonstream-compose-')), 'docker-compose.yml');
    writeFileSync(broken, readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8').replace('  tracer:\n    <<: *service\n', '  tracer:\n    <<: *service\n    links: [no-such-service]\n'));
    expect(composeConfig(broken).ok).toBe(false);
  });

  it('parses, every service has an image or a build, and named volumes are declared', () => {
    expect(Object.keys(compose.services).length).toBeGreaterThan(5);
    for (const [name, svc] of Object.entries(compose.services)) {
      expect(svc.image ?? svc.build, name).toBeTruthy();
      for (const v of svc.volumes ?? []) {
        const src = v.split(':')[0];
        if (!src.startsWith('.') && !isAbsolute(src)) expect(Object.keys(compose.volumes ?? {}), `${name}: volume ${src}`).toContain(src);
      }
      const deps = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys((svc.depends_on as object | undefined) ?? {});
      for (const d of deps as string[]) expect(Object.keys(compose.services), `${name} depends on ${d}`).toContain(d);
    }
  });

  it('mounts only files and directories that exist', () => {
    const mounts = Object.values(compose.services).flatMap(bindMounts);
    expect(mounts.length).toBeGreaterThanOrEqual(4);
    for (const [src] of mounts) expect(existsSync(join(ROOT, src)), src).toBe(true);
  });

  it("gives Prometheus the scrape config and the rules it names, side by side", () => {
    const mounts = new Map(bindMounts(compose.services.prometheus).map(([s, d]) => [d, s]));
    expect(mounts.get('/etc/prometheus/prometheus.yml')).toBe('./deploy/prometheus/prometheus.yml');
    for (const rules of prometheusConfig.rule_files) expect(mounts.get(`/etc/prometheus/${rules}`), rules).toBe(`./deploy/prometheus/${rules}`);
  });

  it("scrapes each compose service on the port it serves /metrics on", () => {
    const job = prometheusConfig.scrape_configs.find((j) => j.job_name === 'tonstream')!;
    const targets = job.static_configs.flatMap((c) => c.targets.map((t) => ({ t, service: c.labels?.service })));
    // Every tonstream process of the compose file (`node services/<name>/dist/main.js`) and nothing else.
    const processes = Object.entries(compose.services).filter(([, svc]) => /^services\/[\w-]+\/dist\/main\.js$/.test(String(svc.command?.at(-1) ?? ''))).map(([name]) => name);
    expect(processes.length).toBeGreaterThanOrEqual(7);
    expect(targets.map((x) => x.service).sort()).toEqual(processes.sort());
    for (const { t, service } of targets) {
      const [host, port] = t.split(':');
      expect(host).toBe(service);
      const env = compose.services[host]?.environment ?? {};
      expect(String(env.METRICS_PORT ?? env.API_PORT), t).toBe(port);
    }
  });

  it('provisions Grafana: the dashboards folder, datasources on compose services, the ClickHouse plugin', () => {
    const grafana = compose.services.grafana;
    const mounts = new Map(bindMounts(grafana).map(([s, d]) => [s, d]));
    expect(mounts.get('./deploy/grafana/provisioning')).toBe('/etc/grafana/provisioning');
    const provider = parse(readFileSync(join(DEPLOY, 'grafana/provisioning/dashboards/tonstream.yml'), 'utf8')) as { providers: { options: { path: string } }[] };
    expect(mounts.get('./deploy/grafana/dashboards')).toBe(provider.providers[0].options.path);
    expect(statSync(join(DEPLOY, 'grafana/dashboards')).isDirectory()).toBe(true);
    expect(loadDashboards().length).toBe(2);
    expect(String(grafana.environment?.GF_INSTALL_PLUGINS)).toContain('grafana-clickhouse-datasource');

    const prom = parse(readFileSync(join(DEPLOY, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as { datasources: { url: string }[] };
    expect(new URL(prom.datasources[0].url).hostname).toBe('prometheus');
    expect(new URL(prom.datasources[0].url).port).toBe(compose.services.prometheus.ports![0].split(':').pop());
    const ch = parse(readFileSync(join(DEPLOY, 'grafana/provisioning/datasources/clickhouse.yml'), 'utf8')) as { datasources: { type: string; jsonData: { host: string; port: number; protocol: string; defaultDatabase: string } }[] };
    const j = ch.datasources[0].jsonData;
    expect(ch.datasources[0].type).toBe('grafana-clickhouse-datasource');
    expect([j.host, j.port, j.protocol]).toEqual(['clickhouse', 8123, 'http']);
    // The services use CLICKHOUSE_DATABASE's default (services/*/src/config.ts): tonstream.
    expect(compose.services.writer.environment?.CLICKHOUSE_DATABASE ?? 'tonstream').toBe(j.defaultDatabase);
  });

  it('points the API at Prometheus for /status', () => {
    expect(compose.services.api.environment?.PROMETHEUS_URL).toBe('http://prometheus:9090');
  });
});
