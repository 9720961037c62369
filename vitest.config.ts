import { defineConfig } from 'vitest/config';

// Two suites: `unit` (pure logic, no servers, beside the code) and `integration` (real Kafka,
// ClickHouse and Redis started by deploy/local/services.sh). Workspace packages resolve to their
// TypeScript sources through the `tonstream-source` export condition, so tests need no build.
const resolve = { conditions: ['tonstream-source'] };

export default defineConfig({
  test: {
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        resolve,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
