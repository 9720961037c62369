import { randomBytes } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { murmur2, partitionForKey } from './partition.js';

describe('partitionForKey()', () => {
  it('matches kafkajs DefaultPartitioner for keys of every length mod 4 and several partition counts', () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    const keys = ['', 'a', 'ab', 'abc', '0:8000000000000000:42', '0:' + 'AB'.repeat(32), 'ü✓🚀', 'ü'.repeat(300), 'abc', ...Array.from({ length: 300 }, (_, i) => randomBytes(i % 61).toString('base64'))];
    for (const partitions of [1, 3, 4, 16]) {
      const partitionMetadata = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));
      for (const key of keys) {
        expect(partitionForKey(key, partitions), `${key} / ${partitions}`).toBe(kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }));
      }
    }
  });

  it('gives the Java client murmur2 values', () => {
    // Kafka's UtilsTest: murmur2("21") = -973932308, murmur2("foobar") = -790332482, murmur2("a-little-bit-long-string") = -985981536.
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
  });
});
