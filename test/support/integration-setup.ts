import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteRecordedTopics, PREFIXES_ENV } from './kafka-topics.js';

/**
 * vitest globalSetup of the projects with servers (integration, e2e, conformance): the topic prefixes the suites' services use are
 * collected (kafka-topics.ts) and their topics deleted when the run ends.
 */
export default function setup(): (() => Promise<void>) | undefined {
  // The integration, e2e and conformance projects each name this setup: the first one run collects for all.
  if (process.env[PREFIXES_ENV]) return undefined;
  const file = join(mkdtempSync(join(tmpdir(), 'tonstream-topics-')), 'prefixes');
  process.env[PREFIXES_ENV] = file;
  return async () => {
    const n = await deleteRecordedTopics(file).catch((err: unknown) => {
      process.stderr.write(`could not delete the run's Kafka topics: ${String(err)}\n`);
      return 0;
    });
    if (n > 0) process.stderr.write(`deleted the ${n} Kafka topics the run created\n`);
  };
}
