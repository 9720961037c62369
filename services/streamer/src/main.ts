/** The streamer process (exit codes and signals: `runService` of @tonstream/runtime). */
import { runService } from '@tonstream/runtime';
import { STREAMER_SERVICE } from './config.js';
import { startStreamer } from './start.js';

await runService(STREAMER_SERVICE, startStreamer);
