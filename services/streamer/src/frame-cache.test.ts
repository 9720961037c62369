import { describe, expect, it } from 'vitest';
import { createFrameCache } from './frame-cache.js';
import { sseFrame } from './sse.js';

describe('createFrameCache()', () => {
  it('encodes a notification once for the clients it goes to in a row, and anew for the next one', () => {
    let framed = 0;
    const frames = createFrameCache((json, cursor) => (framed++, sseFrame(json, cursor)));
    const a = frames('{"comment":"€ 1"}', 'c5.0f4');
    expect(frames('{"comment":"€ 1"}', 'c5.0f4')).toBe(a);
    expect(framed).toBe(1);
    // UTF-8 bytes as a client reads them: the euro sign is three bytes.
    expect(a.toString('utf8')).toBe('id: c5.0f4\nevent: event\ndata: {"comment":"€ 1"}\n\n');
    expect(a.length).toBe(Buffer.byteLength('id: c5.0f4\nevent: event\ndata: {"comment":"€ 1"}\n\n'));
    const b = frames('{"comment":"€ 1"}', 'c5.1f4');
    expect(b).not.toBe(a);
    expect(b.toString('utf8')).toContain('id: c5.1f4\n');
    expect(frames('{"x":2}', '').toString('utf8')).toBe('event: event\ndata: {"x":2}\n\n');
  });
});
