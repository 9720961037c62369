/**
 * One way for every tonstream process to start and end. `runService(spec, start)` loads the config,
 * builds the logger, metrics registry, /metrics + /healthcheck server and signal handling, then calls
 * the service's `start`; the service opens what it needs and hands back a `Stop`.
 *
 * Exit codes, the same for every service:
 * - 2: bad configuration (every problem on stderr, each naming its variable; nothing started);
 * - 1: `start` failed, or the service failed after starting (`ctx.fail`, or a rejection nobody
 *   handled): logged, stopped, exited;
 * - 0: stopped by SIGTERM/SIGINT (`stop` called once) or finished its work (`ctx.finish`);
 * - 130: a second signal while stopping. A stop that fails exits 1, one that hangs is cut off after
 *   SHUTDOWN_TIMEOUT_MS (exit 1).
 */
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { ConfigError, type ConfigOf, type Fields, loadConfig } from './config.js';
import { createLogger, type Logger, type LogLevel } from './logger.js';
import { createRegistry, type HealthStatus, startMetricsServer } from './metrics.js';
import { createShutdown } from './shutdown.js';
import type { Stop } from './stop-steps.js';
import { joinWorkers, runWorkers } from './workers.js';

/**
 * What the runner itself reads from a config; a service without METRICS_PORT serves no metrics server of
 * its own. `workers` > 1: that many processes of the service share its sockets (workers.ts).
 */
export type ServiceConfig = { logLevel: LogLevel; metricsHost?: string; metricsPort?: number; workers?: number };

export type ServiceSpec<C> = {
  /** The process name: `module` of its log lines, `service` label of its metrics. */
  name: string;
  /** Every variable it reads: what its README's table is rendered from. */
  fields: Fields;
  /** The config from the environment and the arguments; throws a ConfigError naming every bad one. */
  load(env: NodeJS.ProcessEnv, argv: readonly string[]): C;
};

/** A spec whose config is exactly its fields' values (no arguments, no rule across fields). */
export function serviceSpec<F extends Fields>(name: string, fields: F): ServiceSpec<ConfigOf<F>> {
  return { name, fields, load: (env) => loadConfig(fields, env) };
}

/** What `start` gets besides its config. */
export type ServiceContext = {
  logger: Logger;
  registry: Registry;
  /** Aborted once stopping has begun: a long wait in `start` may give up. */
  signal: AbortSignal;
  /** What /healthcheck answers from now on (until then: degraded, "starting"). */
  health(report: () => HealthStatus): void;
  /** The service cannot go on (its consumer is gone for good, a store error that is not transient): logged, stopped, exit 1. */
  fail(reason: string, err?: unknown): void;
  /** The service finished its work (a backfill's last block): stopped, exit 0. */
  finish(reason: string): void;
};

export type StartService<C> = (config: C, ctx: ServiceContext) => Promise<Stop>;

const STARTING: HealthStatus = { status: 'degraded', reasons: ['starting'] };

export async function runService<C extends ServiceConfig>(spec: ServiceSpec<C>, start: StartService<C>): Promise<void> {
  let config: C;
  try {
    config = spec.load(process.env, process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${spec.name}: ${err.message}\n`);
    process.exit(2);
  }
  const worker = cluster.worker?.id;
  const logger = createLogger({ level: config.logLevel, bindings: { module: spec.name, ...(worker === undefined ? {} : { worker }) } });
  if (worker === undefined && (config.workers ?? 1) > 1) return runWorkers(config.workers ?? 1, logger);
  const shutdown = createShutdown(logger);
  const registry = createRegistry(spec.name);
  const workers = worker === undefined ? undefined : joinWorkers(registry, (reason) => void shutdown.trigger(reason));
  let health = () => STARTING;
  let stop: Stop | undefined;
  const ctx: ServiceContext = {
    logger,
    registry,
    signal: shutdown.signal,
    health: (report) => void (health = report),
    fail: (reason, err) => {
      logger.error(reason, err === undefined ? undefined : { err });
      void shutdown.trigger(reason, 1);
    },
    finish: (reason) => void shutdown.trigger(reason),
  };
  // A rejection nobody handles is a bug (@tonstream/errors lets bugs through): logged with the error,
  // stopped like any failure, exit 1, instead of Node's bare crash past the logger and the stop steps.
  process.on('unhandledRejection', (err) => ctx.fail('unhandled rejection', err));
  try {
    if (config.metricsPort !== undefined) {
      const server = await startMetricsServer({ registry, port: config.metricsPort, host: config.metricsHost, health: () => health() });
      shutdown.add('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));
      logger.info('metrics listening', { host: config.metricsHost, port: (server.address() as AddressInfo).port });
    }
    // Registered after the metrics server, so it runs before: /metrics answers while the service stops.
    shutdown.add(spec.name, () => stop?.());
    stop = await start(config, ctx);
    workers?.started();
  } catch (err) {
    if (shutdown.signal.aborted) return; // stopping already (a signal cut the start short): that decides the exit
    logger.error(`${spec.name} failed to start`, { err });
    await shutdown.trigger('failed to start', 1);
  }
}
