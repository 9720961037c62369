import { type Field, loadConfig, url } from '@tonstream/runtime';

/** A service whose health the status page shows when no Prometheus is configured. */
export type WatchedService = { name: string; url: string };

export type StatusConfig = {
  /** Service health from Prometheus' `up` (and its firing alerts) when set. @default none */
  prometheusUrl: string | null;
  /** Without Prometheus: each service's metrics server, asked for /healthcheck. @default the local ports of deploy/README.md */
  services: WatchedService[];
};

/** The metrics ports of deploy/README.md (`npm start` and docker-compose use the same). */
const LOCAL_SERVICES =
  'localnet=http://127.0.0.1:9104,fetcher=http://127.0.0.1:9101,decoder=http://127.0.0.1:9102,writer=http://127.0.0.1:9103,tracer=http://127.0.0.1:9105,emulator=http://127.0.0.1:9106,streamer=http://127.0.0.1:9107,metadata=http://127.0.0.1:9108';

function serviceList(env: string, doc: string, def: string): Field<WatchedService[]> {
  const accepts = 'comma-separated name=http://host:port';
  const parse = (raw: string): WatchedService[] =>
    raw.split(',').map((item) => {
      const m = /^([a-z][a-z0-9_-]{0,31})=(https?:\/\/[^\s,]+)$/.exec(item.trim());
      if (!m) throw new Error(`bad entry ${JSON.stringify(item)}`);
      return { name: m[1], url: new URL(m[2]).origin };
    });
  return { env, doc, default: parse(def), parse, accepts };
}

export function loadStatusConfig(env: NodeJS.ProcessEnv = process.env): StatusConfig {
  const c = loadConfig(
    {
      prometheusUrl: url('PROMETHEUS_URL', 'Prometheus scraping the services, for /status', ''),
      services: serviceList('STATUS_SERVICES', 'metrics servers whose /healthcheck /status shows without Prometheus', LOCAL_SERVICES),
    },
    env,
  );
  return { prometheusUrl: c.prometheusUrl === '' ? null : c.prometheusUrl.replace(/\/+$/, ''), services: c.services };
}
