/** The writer process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { WRITER_SERVICE } from './config.js';
import { startWriter } from './start.js';

await runService(WRITER_SERVICE, startWriter);
