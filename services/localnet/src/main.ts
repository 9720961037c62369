/** The localnet process (exit codes and signals: `runService` of @tonstream/runtime). Argument: `--reset` (a new chain). */
import { runService } from '@tonstream/runtime';
import { LOCALNET_SERVICE } from './config.js';
import { startLocalnet } from './start.js';

await runService(LOCALNET_SERVICE, startLocalnet);
