/** How a transport frames a notification (SSE `id:`/`event:`/`data:` lines, a WebSocket text frame's payload). */
export type Framer = (json: string, cursor: string) => string;

/**
 * One transport's framing of the last notification, encoded once: the fan-out hands an event's JSON
 * to every matching client in a row, so their sockets queue the same Buffer by reference instead of
 * each encoding (and, when it cannot write at once, keeping) its own copy.
 */
export function createFrameCache(frame: Framer): (json: string, cursor: string) => Buffer {
  let lastJson: string | null = null;
  let lastCursor = '';
  let last = Buffer.alloc(0);
  return (json, cursor) => {
    if (json !== lastJson || cursor !== lastCursor) {
      last = Buffer.from(frame(json, cursor), 'utf8');
      lastJson = json;
      lastCursor = cursor;
    }
    return last;
  };
}
