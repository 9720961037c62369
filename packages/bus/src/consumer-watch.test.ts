import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { watchConsumer } from './consumer-watch.js';

/** The instrumentation events of a kafkajs consumer, emitted by hand (kafkajs's own names and payloads). */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const events = { GROUP_JOIN: 'consumer.group_join', FETCH_START: 'consumer.fetch_start', FETCH: 'consumer.fetch', CRASH: 'consumer.crash' };
  const consumer = { events, on: (name: string, listener: (e: unknown) => void) => emitter.on(name, listener) } as unknown as Consumer;
  const emit = (name: keyof typeof events, payload: object = {}) => emitter.emit(events[name], { type: events[name], payload });
  return { consumer, emit };
}
const logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('watchConsumer', () => {
  it('is degraded until the consumer joins its group, then ok while fetches complete', () => {
    const { consumer, emit } = fakeConsumer();
    const watch = watchConsumer(consumer, logger);
    expect(watch.health()).toEqual({ status: 'degraded', reasons: ['consumer not in its group yet'] });
    emit('GROUP_JOIN');
    for (const type of ['FETCH_START', 'FETCH', 'FETCH_START', 'FETCH'] as const) emit(type, { nodeId: 1 });
    expect(watch.health()).toEqual({ status: 'ok', reasons: [] });
  });

  it('says fetches are failing as soon as a fetch starts again without the last one finishing, until one does', () => {
    const { consumer, emit } = fakeConsumer();
    const watch = watchConsumer(consumer, logger);
    emit('GROUP_JOIN');
    emit('FETCH_START', { nodeId: 1 });
    emit('FETCH_START', { nodeId: 2 });
    expect(watch.health().status).toBe('ok');
    emit('FETCH_START', { nodeId: 1 });
    expect(watch.health()).toEqual({ status: 'degraded', reasons: [expect.stringMatching(/^consumer fetches failing for \d+ s/)] });
    emit('FETCH', { nodeId: 2 });
    expect(watch.health().status).toBe('degraded');
    emit('FETCH', { nodeId: 1 });
    expect(watch.health().status).toBe('ok');
  });

  it('is degraded while kafkajs restarts a crashed consumer, ok once it rejoined, and gone for good if it crashes again before', async () => {
    const { consumer, emit } = fakeConsumer();
    const watch = watchConsumer(consumer, logger);
    let stopped: Error | undefined;
    watch.stopped.catch((err: Error) => (stopped = err));
    emit('GROUP_JOIN');
    emit('CRASH', { error: new Error('This server does not host this topic-partition'), restart: true });
    expect(watch.health()).toEqual({ status: 'degraded', reasons: ['consumer crashed, kafkajs restarts it: This server does not host this topic-partition'] });
    emit('GROUP_JOIN');
    expect(watch.health().status).toBe('ok');
    emit('CRASH', { error: new Error('Connection timeout'), restart: true });
    emit('CRASH', { error: new Error('Connection timeout'), restart: true });
    expect(watch.health()).toEqual({ status: 'error', reasons: ['consumer crashed again before it rejoined its group: Connection timeout'] });
    await Promise.resolve();
    expect(stopped?.message).toBe('consumer crashed again before it rejoined its group: Connection timeout');
    emit('GROUP_JOIN');
    expect(watch.health().status).toBe('error');
  });

  it('is in error, and stopped, when kafkajs does not restart the consumer', async () => {
    const { consumer, emit } = fakeConsumer();
    const watch = watchConsumer(consumer, logger);
    emit('GROUP_JOIN');
    emit('CRASH', { error: new TypeError("Cannot read properties of undefined (reading 'hash')"), restart: false });
    expect(watch.health()).toEqual({ status: 'error', reasons: ["consumer crashed and kafkajs does not restart it: Cannot read properties of undefined (reading 'hash')"] });
    await expect(watch.stopped).rejects.toThrow(/does not restart it/);
  });
});
