/**
 * Several processes of one service sharing its listening sockets (node:cluster), for a service that
 * is CPU-bound in JavaScript (the API: one Node process uses one core). `runService` runs the primary
 * here when the config asks for more than one worker; each worker is an ordinary `runService` process.
 *
 * The primary only supervises: it forks the workers, tells them to stop (an IPC message, not a signal:
 * a terminal's Ctrl-C already signals the whole process group, and a second signal means "exit now"),
 * replaces a worker that dies after it started, and sums their metrics for whichever worker answers
 * /metrics. If the primary itself dies, its workers exit with it (node:cluster closes their channel).
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from './logger.js';

type Message =
  | { type: 'tonstream:started' }
  | { type: 'tonstream:stop'; reason: string }
  | { type: 'tonstream:metrics'; id: number }
  | { type: 'tonstream:metrics-answer'; id: number; text?: string; error?: string };

/** A worker that dies after it started is replaced after this long. */
const REPLACE_AFTER_MS = 1_000;
const METRICS_TIMEOUT_MS = 5_000;

const isMessage = (m: unknown): m is Message => typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';

/**
 * The primary: forks `count` workers and supervises them until SIGINT/SIGTERM (then each worker stops as
 * on its own signal; the primary exits with the worst exit code). A worker that exits before it started
 * stops them all with its exit code (a bad config or an unreachable store fails every worker alike); one
 * that dies later is replaced.
 */
export function runWorkers(count: number, logger: Logger, exit: (code: number) => void = process.exit): void {
  const aggregator = new AggregatorRegistry();
  const started = new Set<number>();
  let stopping: { code: number } | undefined;

  const send = (worker: Worker, message: Message) => {
    if (worker.isConnected()) worker.send(message);
  };
  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (m: unknown) => {
      if (!isMessage(m)) return;
      if (m.type === 'tonstream:started') started.add(worker.id);
      if (m.type === 'tonstream:metrics') {
        aggregator.clusterMetrics().then(
          (text) => send(worker, { type: 'tonstream:metrics-answer', id: m.id, text }),
          (err: Error) => send(worker, { type: 'tonstream:metrics-answer', id: m.id, error: err.message }),
        );
      }
    });
  };
  const living = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  const stopAll = (reason: string, code: number) => {
    if (stopping) return;
    stopping = { code };
    logger.info('shutting down', { reason, workers: living().length });
    for (const w of living()) send(w, { type: 'tonstream:stop', reason });
    if (living().length === 0) exit(code);
  };

  cluster.on('exit', (worker, code, signal) => {
    const exitCode = code ?? (signal ? 1 : 0);
    if (stopping) {
      stopping.code = Math.max(stopping.code, exitCode);
      if (living().length === 0) {
        logger.info('stopped', { exit_code: stopping.code });
        exit(stopping.code);
      }
      return;
    }
    if (!started.has(worker.id)) {
      logger.error('a worker failed to start; stopping the others', { worker: worker.id, exit_code: exitCode, signal });
      stopAll('a worker failed to start', exitCode || 1);
      return;
    }
    logger.error('a worker died; starting another', { worker: worker.id, exit_code: exitCode, signal });
    setTimeout(() => stopping || fork(), REPLACE_AFTER_MS);
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (!stopping) return stopAll(sig, 0);
      logger.warn('second signal, exiting now', { signal: sig });
      for (const w of living()) w.process.kill('SIGKILL');
      exit(130);
    });
  }
  logger.info('starting workers', { workers: count });
  for (let i = 0; i < count; i++) fork();
}

/**
 * In a worker: report `start`'s success to the primary, stop when it asks, and let it collect this
 * process's `registry` (prom-client's cluster protocol) for the summed /metrics.
 */
export function joinWorkers(registry: Registry, stop: (reason: string) => void): { started(): void } {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // constructing one is what makes prom-client answer the primary's collection in a worker
  process.on('message', (m: unknown) => {
    if (isMessage(m) && m.type === 'tonstream:stop') stop(m.reason);
  });
  return { started: () => process.send?.({ type: 'tonstream:started' } satisfies Message) };
}

let nextMetricsId = 0;
const metricsWaiters = new Map<number, (answer: { text?: string; error?: string }) => void>();

/** What /metrics answers: this process's registry; in a worker, every worker's summed by the primary. */
export function metricsText(registry: Registry): Promise<string> {
  if (!cluster.isWorker) return registry.metrics();
  if (metricsWaiters.size === 0) process.on('message', onMetricsAnswer);
  const id = nextMetricsId++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => answered({ error: `the primary did not answer within ${METRICS_TIMEOUT_MS} ms` }), METRICS_TIMEOUT_MS);
    const answered = ({ text, error }: { text?: string; error?: string }) => {
      clearTimeout(timer);
      metricsWaiters.delete(id);
      if (metricsWaiters.size === 0) process.off('message', onMetricsAnswer);
      if (text === undefined) reject(new Error(`metrics of the workers: ${error}`));
      else resolve(text);
    };
    metricsWaiters.set(id, answered);
    process.send?.({ type: 'tonstream:metrics', id } satisfies Message);
  });
}

function onMetricsAnswer(m: unknown): void {
  if (isMessage(m) && m.type === 'tonstream:metrics-answer') metricsWaiters.get(m.id)?.(m);
}
