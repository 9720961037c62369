/** The emulator process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { EMULATOR_SERVICE } from './config.js';
import { startEmulator } from './start.js';

await runService(EMULATOR_SERVICE, startEmulator);
