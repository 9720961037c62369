/**
 * A service for service.test.ts, run as a child process: FIXTURE_MODE says how it behaves; its
 * stop prints `stop called`. No servers besides its own /metrics on a free port.
 */
import { Counter } from 'prom-client';
import { int, logFields, metricsFields, oneOf } from './index.js';
import { runService, serviceSpec } from './service.js';

const SPEC = serviceSpec('fixture', {
  ...logFields,
  ...metricsFields(0),
  mode: oneOf('FIXTURE_MODE', 'how the fixture behaves', ['run', 'fail-after-start', 'throw-in-start', 'reject-after-start'] as const, 'run'),
  rounds: int('FIXTURE_ROUNDS', 'a number to validate', 1, { min: 1, max: 10 }),
  workers: int('FIXTURE_WORKERS', 'processes of the fixture', 1, { min: 1, max: 4 }),
});

await runService(SPEC, async (config, ctx) => {
  if (config.mode === 'throw-in-start') throw new Error('cannot reach the thing');
  ctx.health(() => ({ status: 'ok', reasons: [] }));
  if (config.mode === 'fail-after-start') setImmediate(() => ctx.fail('consumer gone for good', new Error('topic deleted')));
  if (config.mode === 'reject-after-start') setImmediate(() => void Promise.reject(new TypeError('x is not a function')));
  new Counter({ name: 'fixture_starts_total', help: 'starts of this process', registers: [ctx.registry] }).inc();
  ctx.logger.info('fixture started', { pid: process.pid });
  return async () => void process.stdout.write('stop called\n');
});
