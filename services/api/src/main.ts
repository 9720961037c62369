/** The API process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { API_SERVICE } from './config.js';
import { startApi } from './start.js';

await runService(API_SERVICE, startApi);
