import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, createRegistry, startMetricsServer } from '@tonstream/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStatusConfig } from '../../services/api/src/status/config.js';
import { readHealth } from '../../services/api/src/status/health.js';
import { freePort } from '../support/processes.js';

// Without Prometheus the status page asks each service's metrics server directly: here real ones
// (@tonstream/runtime's startMetricsServer, what every service runs), one degraded, one gone.
let ok: Server;
let degraded: Server;
const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  ok = await startMetricsServer({ registry: createRegistry('writer'), port: 0 });
  degraded = await startMetricsServer({ registry: createRegistry('fetcher'), port: 0, health: () => ({ status: 'degraded', reasons: ['lag 40 blocks'] }) });
});
afterAll(() => {
  ok.close();
  degraded.close();
});

describe('status page health without Prometheus', () => {
  it("reports each service's /healthcheck state and reasons, and a service that does not answer as down", async () => {
    const gone = await freePort();
    const config = loadStatusConfig({ STATUS_SERVICES: `writer=${url(ok)},fetcher=${url(degraded)},decoder=http://127.0.0.1:${gone}` });
    const report = await readHealth(config);
    expect(report.source).toBe('healthcheck');
    expect(report.alerts).toBeNull();
    expect(report.services.map((s) => [s.name, s.state, s.reasons.join('; ')])).toEqual([
      ['writer', 'ok', ''],
      ['fetcher', 'degraded', 'lag 40 blocks'],
      ['decoder', 'down', expect.stringMatching(/fetch failed|ECONNREFUSED/) as unknown as string],
    ]);
  });

  it("exports each service's health as tonstream_health_status for Prometheus, as /healthcheck says it at each scrape", async () => {
    const metrics = async (s: Server) => (await fetch(`${url(s)}/metrics`)).text();
    expect(await metrics(ok)).toMatch(/^tonstream_health_status\{service="writer"\} 0$/m);
    expect(await metrics(degraded)).toMatch(/^tonstream_health_status\{service="fetcher"\} 1$/m);
    let status: 'ok' | 'error' = 'ok';
    const flipping = await startMetricsServer({ registry: createRegistry('decoder'), port: 0, health: () => ({ status, reasons: status === 'ok' ? [] : ['consumer crashed'] }) });
    try {
      expect(await metrics(flipping)).toMatch(/^tonstream_health_status\{service="decoder"\} 0$/m);
      status = 'error';
      expect(await metrics(flipping)).toMatch(/^tonstream_health_status\{service="decoder"\} 2$/m);
      expect((await fetch(`${url(flipping)}/healthcheck`)).status).toBe(503);
    } finally {
      flipping.close();
    }
  });

  it('reports an unreachable Prometheus instead of failing the page', async () => {
    const report = await readHealth(loadStatusConfig({ PROMETHEUS_URL: `http://127.0.0.1:${await freePort()}/` }));
    expect(report.source).toBe('prometheus');
    expect(report.services).toEqual([]);
    expect(report.error).toMatch(/^http:\/\/127\.0\.0\.1:\d+: /);
  });
});

describe('loadStatusConfig()', () => {
  it('defaults to the local metrics ports of deploy/README.md and no Prometheus', () => {
    const c = loadStatusConfig({});
    expect(c.prometheusUrl).toBeNull();
    expect(c.services.map((s) => `${s.name}=${s.url}`)).toEqual([
      'localnet=http://127.0.0.1:9104',
      'fetcher=http://127.0.0.1:9101',
      'decoder=http://127.0.0.1:9102',
      'writer=http://127.0.0.1:9103',
      'tracer=http://127.0.0.1:9105',
      'emulator=http://127.0.0.1:9106',
      'streamer=http://127.0.0.1:9107',
      'metadata=http://127.0.0.1:9108',
    ]);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadStatusConfig({ STATUS_SERVICES: 'writer=ftp://x' })).toThrow(ConfigError);
    expect(() => loadStatusConfig({ STATUS_SERVICES: 'writer' })).toThrow(/STATUS_SERVICES/);
    expect(() => loadStatusConfig({ PROMETHEUS_URL: 'not a url' })).toThrow(/PROMETHEUS_URL/);
  });
});
