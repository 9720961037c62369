import type { Logger } from './logger.js';
import { createStopSteps } from './stop-steps.js';

/** How long shutdown hooks may take in total before the process exits anyway. */
export const SHUTDOWN_TIMEOUT_MS = 15_000;

export type Shutdown = {
  /** Registers a cleanup step; steps run in reverse order of registration. */
  add(name: string, step: () => Promise<void> | void): void;
  /** Resolves once shutdown has started (signal or `trigger`). */
  readonly signal: AbortSignal;
  /** Starts shutdown; the process exits with `exitCode` (default 0), or 1 if a step fails. */
  trigger(reason: string, exitCode?: number): Promise<void>;
};

/**
 * Graceful shutdown on SIGINT/SIGTERM: stop taking work, run the cleanup steps (last registered,
 * first run), then exit. A second signal exits at once.
 */
export function createShutdown(logger: Logger, exit: (code: number) => void = process.exit): Shutdown {
  const steps = createStopSteps(logger);
  const controller = new AbortController();
  let running: Promise<void> | undefined;

  const trigger = (reason: string, exitCode = 0): Promise<void> => {
    if (running) return running;
    controller.abort(reason);
    logger.info('shutting down', { reason, exit_code: exitCode });
    running = (async () => {
      const timer = setTimeout(() => {
        logger.error('shutdown timed out', { timeout_ms: SHUTDOWN_TIMEOUT_MS });
        exit(1);
      }, SHUTDOWN_TIMEOUT_MS);
      timer.unref();
      let code = exitCode;
      await steps.stop().catch(() => (code ||= 1));
      clearTimeout(timer);
      logger.info('stopped', { exit_code: code });
      exit(code);
    })();
    return running;
  };

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (running) {
        logger.warn('second signal, exiting now', { signal: sig });
        exit(130);
      }
      void trigger(sig);
    });
  }

  return { add: steps.add, signal: controller.signal, trigger };
}
