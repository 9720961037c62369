/** Worker thread of the decode pool: decodes raw block messages and sends back packed records. */
import { parentPort } from 'node:worker_threads';
import { replyFor, type WorkerRequest } from './decode-pool.js';

const port = parentPort;
if (!port) throw new Error('decode-worker.js runs as a worker thread of createDecodePool()');
port.on('message', (req: WorkerRequest) => {
  const { reply, transfer } = replyFor(req);
  port.postMessage(reply, transfer);
});
