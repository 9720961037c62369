/** The decoder process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { DECODER_SERVICE } from './config.js';
import { startDecoder } from './start.js';

await runService(DECODER_SERVICE, startDecoder);
