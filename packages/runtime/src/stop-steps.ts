import type { Logger } from './logger.js';

/** Stops what a service started; resolves when everything is closed, rejects if a step failed. */
export type Stop = () => Promise<void>;

export type StopSteps = {
  /** Registers a cleanup step; steps run in reverse order of registration. */
  add(name: string, step: () => Promise<void> | void): void;
  /** Runs every step once (later calls wait for the same run); a failed step is logged and the rest still run. */
  stop: Stop;
};

/** The cleanup of what a service's `start` opened, in one `Stop`: last opened, first closed. */
export function createStopSteps(logger: Logger): StopSteps {
  const steps: { name: string; step: () => Promise<void> | void }[] = [];
  let running: Promise<void> | undefined;
  const runAll = async () => {
    const failed: string[] = [];
    for (const { name, step } of [...steps].reverse()) {
      try {
        await step();
      } catch (err) {
        failed.push(name);
        logger.error('shutdown step failed', { step: name, err });
      }
    }
    if (failed.length > 0) throw new Error(`shutdown steps failed: ${failed.join(', ')}`);
  };
  return {
    add: (name, step) => void steps.push({ name, step }),
    stop: () => (running ??= runAll()),
  };
}
