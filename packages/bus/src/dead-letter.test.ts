import { describe, expect, it } from 'vitest';
import { deadLetterChunks, recordBytes, TRUNCATED_FROM_HEADER } from './dead-letter.js';

const LIMIT = 64 * 1024;
const headers = { error: 'x'.repeat(1000), source_topic: 'ton.blocks', source_partition: '0', source_offset: '42', block_key: '0:8000000000000000:1' };

describe('deadLetterChunks', () => {
  it('leaves dead letters that fit alone, in one chunk, in order', () => {
    const messages = [1, 2, 3].map((i) => ({ key: `k${i}`, value: Buffer.alloc(1000, i), headers }));
    expect(deadLetterChunks(messages, LIMIT)).toEqual([messages]);
  });

  it('splits dead letters over several produces, none over the limit, none lost or reordered', () => {
    const messages = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(20_000), headers }));
    const chunks = deadLetterChunks(messages, LIMIT);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.reduce((n, m) => n + recordBytes(m), 0)).toBeLessThanOrEqual(LIMIT);
    expect(chunks.flat()).toEqual(messages);
  });

  it('cuts a dead letter too big alone, keeping its key, reason and origin and saying how big it was', () => {
    const value = Buffer.alloc(LIMIT, 7);
    const [[cut], ...rest] = deadLetterChunks([{ key: 'block', value, headers }], LIMIT);
    expect(rest).toEqual([]);
    expect(cut.key).toBe('block');
    expect(cut.headers).toEqual({ ...headers, [TRUNCATED_FROM_HEADER]: String(LIMIT) });
    expect(recordBytes(cut)).toBeLessThanOrEqual(LIMIT);
    expect(value.subarray(0, (cut.value as Buffer).length).equals(cut.value as Buffer)).toBe(true);
    expect((cut.value as Buffer).length).toBeGreaterThan(LIMIT - 4096);
  });

  it('cuts text values by bytes', () => {
    const [[cut]] = deadLetterChunks([{ key: null, value: 'é'.repeat(LIMIT), headers: {} }], LIMIT);
    expect(cut.headers?.[TRUNCATED_FROM_HEADER]).toBe(String(2 * LIMIT));
    expect(recordBytes(cut)).toBeLessThanOrEqual(LIMIT);
  });
});
