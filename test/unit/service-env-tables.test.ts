/**
 * Each service README's table of environment variables is rendered from the service's fields
 * (`renderEnvTable`), so it cannot drift from what the service reads. After changing fields:
 * `WRITE_ENV_TABLES=1 npx vitest run --project unit test/unit/service-env-tables.test.ts` rewrites
 * the tables (only what sits between the markers; the prose around them is the README's own).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Fields, renderEnvTable } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { API_CONFIG } from '../../services/api/src/config.js';
import { DECODER_CONFIG } from '../../services/decoder/src/config.js';
import { EMULATOR_CONFIG } from '../../services/emulator/src/config.js';
import { FETCHER_CONFIG } from '../../services/fetcher/src/config.js';
import { LOCALNET_CONFIG } from '../../services/localnet/src/config.js';
import { METADATA_CONFIG } from '../../services/metadata/src/config.js';
import { STREAMER_CONFIG } from '../../services/streamer/src/config.js';
import { TRACER_CONFIG } from '../../services/tracer/src/config.js';
import { WRITER_CONFIG } from '../../services/writer/src/config.js';

const ROOT = join(import.meta.dirname, '../..');
const BEGIN = '<!-- env-table: generated from src/config.ts by test/unit/service-env-tables.test.ts (WRITE_ENV_TABLES=1 rewrites it); edit the fields, not this table -->';
const END = '<!-- /env-table -->';

const SERVICES: Record<string, Fields> = {
  api: API_CONFIG,
  decoder: DECODER_CONFIG,
  emulator: EMULATOR_CONFIG,
  fetcher: FETCHER_CONFIG,
  localnet: LOCALNET_CONFIG,
  metadata: METADATA_CONFIG,
  streamer: STREAMER_CONFIG,
  tracer: TRACER_CONFIG,
  writer: WRITER_CONFIG,
};

/** The README with `table` between the markers; throws when they are missing. */
function withTable(readme: string, table: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END, begin);
  if (begin < 0 || end < 0) throw new Error(`no ${BEGIN} ... ${END} block`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}

describe('service README environment tables', () => {
  for (const [service, fields] of Object.entries(SERVICES)) {
    it(`services/${service}/README.md shows the variables its fields declare`, () => {
      const path = join(ROOT, 'services', service, 'README.md');
      const readme = readFileSync(path, 'utf8');
      const expected = withTable(readme, renderEnvTable(fields));
      if (process.env.WRITE_ENV_TABLES === '1') writeFileSync(path, expected);
      else expect(readme, `stale table: run WRITE_ENV_TABLES=1 npx vitest run --project unit ${'test/unit/service-env-tables.test.ts'}`).toBe(expected);
    });
  }

  it('renders a variable per field with its default, what it accepts and its doc', () => {
    const table = renderEnvTable(WRITER_CONFIG).split('\n');
    expect(table[0]).toBe('| variable | default | accepts | meaning |');
    expect(table).toContain('| `KAFKA_BROKERS` | `127.0.0.1:9092` | comma-separated host:port pairs | Kafka bootstrap brokers |');
    expect(table).toContain('| `KAFKA_TOPIC_PREFIX` | empty | a string | prefix of every topic name and consumer group (isolates deployments and test runs sharing a cluster) |');
    expect(table).toContain('| `METRICS_PORT` | `9103` | an integer in [0, 65535] | port of /metrics and /healthcheck |');
    expect(table).toHaveLength(2 + Object.keys(WRITER_CONFIG).length);
  });
});
