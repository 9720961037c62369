/** The metadata worker process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { METADATA_SERVICE } from './config.js';
import { startMetadata } from './start.js';

await runService(METADATA_SERVICE, startMetadata);
