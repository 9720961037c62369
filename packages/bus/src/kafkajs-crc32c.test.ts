import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { kafkajsChecksum, useFastCrc32c } from './kafkajs-crc32c.js';

const require = createRequire(import.meta.url);

describe('useFastCrc32c()', () => {
  it('makes kafkajs\'s record batch encoder use a checksum equal to kafkajs\'s own', () => {
    expect(useFastCrc32c()).toBe(true);
    expect(useFastCrc32c()).toBe(true);
    const ours = require('kafkajs/src/protocol/recordBatch/crc32C/index.js') as (b: Buffer) => number;
    expect(ours).toBe(kafkajsChecksum);
    // kafkajs's byte-at-a-time implementation, loaded from its file (signed result).
    const theirs = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (b: Buffer) => number;
    for (const size of [0, 1, 3, 4, 5, 7, 64, 1000, 65_537]) {
      const bytes = randomBytes(size);
      expect(ours(bytes), `size ${size}`).toBe(theirs(bytes) >>> 0);
    }
    // The encoder, loaded after the swap, checksums with ours: firstOffset (8) and length (4), then
    // the batch: leader epoch (4), magic (1), CRC (4) over everything after it.
    const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as { RecordBatch: (o: object) => Promise<{ buffer: Buffer }> };
    return RecordBatch({ records: [] }).then(({ buffer }) => {
      expect(buffer.readUInt32BE(17)).toBe(theirs(buffer.subarray(21)) >>> 0);
    });
  });
});
