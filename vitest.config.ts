import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

// Four projects (test/README.md): `unit` (pure logic, no servers, beside the code), and `integration`,
// `e2e` and `conformance` (real Kafka, ClickHouse and Redis started by deploy/local/services.sh). Workspace packages resolve to their
// TypeScript sources through the `tonstream-source` export condition, so tests need no build.
// Tests run in Vite's server (ssr) environment, which takes its conditions from `ssr.resolve`: with
// `resolve` alone, an import of one workspace package from another's source fell through to dist/.
const resolve = { conditions: ['tonstream-source'] };
const ssr = { resolve: { conditions: ['tonstream-source', 'node'] } };

/** Suites that run the local network and most of the pipeline as processes (test/README.md). */
const E2E = [
  'contracts-localnet', 'history-backfill', 'lease-fetcher', 'lease-tracer', 'ops-stack', 'pending-e2e', 'pipeline-e2e', 'streaming', 'streaming-jetton', 'streaming-metadata',
  'state-bootstrap-e2e', 'state-bootstrap-index-start', 'streaming-watermark', 'tokens-localnet', 'tracer-actions-e2e', 'tracer-e2e', 'tracer-gives-up',
].map((name) => `test/integration/${name}.test.ts`);
/** Suites that hold tonstream to an outside judge: toncenter's clients, its OpenAPI document, a browser, a current ClickHouse. */
/**
 * Suites that start a ClickHouse cluster of their own (4 servers, 3 ZooKeeper nodes) beside their
 * services: run after the other projects (scripts/test.sh), so their load never meets a suite's timing.
 */
const CLUSTER = ['cluster-e2e', 'local-cluster', 'store-cluster'].map((name) => `test/integration/${name}.test.ts`);
const CONFORMANCE = ['api-docs-browser', 'api-v2-clients', 'api-v3-schemathesis', 'ops-promtool', 'store-chdb', 'toncenter-sdk'].map((name) => `test/integration/${name}.test.ts`);

/** A project whose suites need Kafka, ClickHouse and Redis (deploy/local/services.sh). */
function serverProject(name: string, include: string[], exclude: string[] = []) {
  return {
    resolve,
    ssr,
    test: {
      name,
      include,
      exclude: [...configDefaults.exclude, ...exclude],
      testTimeout: 120_000,
      hookTimeout: 120_000,
      // As the unit files: a worker runs file after file, importing the packages, express and the
      // clients once (their suites share no module state: databases, topics, keys and ports are per run).
      isolate: false,
      globalSetup: ['test/support/integration-setup.ts'],
      // Every v3 answer a test receives, from an API in-process or spawned, matches the served OpenAPI document.
      env: { API_CHECK_RESPONSES: 'reject' },
    },
  };
}

export default defineConfig({
  test: {
    // Three files at a time, of any project: suites are isolated (own databases, topic prefixes, Redis
    // keys, locked ports; outages are proxies of their own) and spend much of their time waiting on the
    // chain, Kafka and services. Two left the cores about a third idle (ci21: 1.34 of 2 busy, an
    // 18-minute run); three in the longest-first order take 13-15 minutes. The load (~12) found races
    // in suites, not the product: a head read before subscribing, a topic used before it was served,
    // and 18.16's DISTINCT under IN (subquery) (docs/local-infra.md).
    maxWorkers: 3,
    // Every project's files in one queue, longest first (test/suite-durations.json).
    sequence: { sequencer: LongestFirst },
    reporters: ['default', './test/support/failures-as-they-happen.ts'],
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'unit',
          // One process runs many files, importing @ton/core and the packages once rather than once per
          // file (56 s instead of 99 s alone, half the CPU). A module's state then outlives a file: a
          // cache must hold only what is true for every caller (interfaces/detect.ts).
          isolate: false,
          include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          testTimeout: 60_000,
          // Unit files share the workers with integration suites: a setup building a local chain can wait for a core.
          hookTimeout: 60_000,
        },
      },
      serverProject('integration', ['test/integration/**/*.test.ts'], [...E2E, ...CONFORMANCE, ...CLUSTER]),
      serverProject('e2e', E2E),
      serverProject('cluster', CLUSTER),
      serverProject('conformance', CONFORMANCE),
    ],
  },
});
