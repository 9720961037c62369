import { deleteTopics, listTopics } from './kafka-topics.js';

/**
 * vitest globalSetup of the integration project: the topics the suites create (each under a prefix
 * of its own) are deleted when the run ends, so the local broker does not collect them run after run.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const before = await listTopics().catch(() => null);
  return async () => {
    if (before === null) return;
    const n = await deleteTopics((t) => !before.has(t)).catch((err: unknown) => {
      process.stderr.write(`could not delete the run's Kafka topics: ${String(err)}\n`);
      return 0;
    });
    if (n > 0) process.stderr.write(`deleted the ${n} Kafka topics the run created\n`);
  };
}
