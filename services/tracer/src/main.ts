/** The tracer process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { TRACER_SERVICE } from './config.js';
import { startTracer } from './start.js';

await runService(TRACER_SERVICE, startTracer);
