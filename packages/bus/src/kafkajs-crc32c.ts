import Module, { createRequire } from 'node:module';
import { crc32c } from '@tonstream/block';

const require = createRequire(import.meta.url);
/** kafkajs's CRC-32C module; its record batch encoder requires it lazily, on the first produce or fetch. */
const KAFKAJS_CRC32C = 'kafkajs/src/protocol/recordBatch/crc32C/index.js';
const KAFKAJS_RECORD_BATCH = 'kafkajs/src/protocol/recordBatch/v0/index.js';

/** What kafkajs gets instead of its module: the same contract, the unsigned CRC-32C of the whole buffer. */
export const kafkajsChecksum = (buffer: Buffer): number => crc32c(buffer);

/**
 * kafkajs checksums every produced record batch with a byte-at-a-time CRC-32C (~430 MB/s here); the
 * decoder produces ~4 KB of JSON per transaction, so at 5,000 tx/s that was ~10 % of its main thread.
 * This puts @tonstream/block's slicing-by-4 CRC-32C (~900 MB/s) in Node's module cache under kafkajs's
 * module, before kafkajs loads its record batch encoder. kafkajs 2.2.4 is its last release; the unit
 * test fails if the module moves. Returns false when the encoder was loaded already (kafkajs then
 * keeps its own, correct but slower, checksum).
 */
export function useFastCrc32c(): boolean {
  const path = require.resolve(KAFKAJS_CRC32C);
  if (require.cache[path]?.exports === kafkajsChecksum) return true;
  if (require.cache[require.resolve(KAFKAJS_RECORD_BATCH)]) return false;
  const mod = new Module(path);
  mod.filename = path;
  mod.loaded = true;
  mod.exports = kafkajsChecksum;
  require.cache[path] = mod;
  return true;
}
