import { describe, expect, it } from 'vitest';
import { createLitePool, GoneEverywhereError, type LiteFunction, LiteQueryError, type QueryEngine, type QueryEvent } from './pool.js';
import { AbortedError } from './retry.js';

type Behaviour = 'ok' | 'error' | 'hang' | 'gone';

/** An engine that answers by a script of behaviours, then repeats the last one. */
function fakeEngine(name: string, script: Behaviour[], log: string[], ready = true): QueryEngine & { closed: boolean } {
  let i = 0;
  const engine = {
    closed: false,
    isReady: () => ready,
    close: () => {
      engine.closed = true;
    },
    query: (async (_f: unknown, req: unknown) => {
      const b = script[Math.min(i++, script.length - 1)];
      log.push(`${name}:${b}`);
      if (b === 'error') throw new Error(`${name} says no`);
      if (b === 'gone') throw new Error(`${name}: not here`);
      if (b === 'hang') return new Promise(() => {});
      return { from: name, req };
    }) as QueryEngine['query'],
  };
  return engine;
}

const fn = {} as LiteFunction<{ x: number }, { from: string }>;
const noSleep = async () => {};

describe('createLitePool()', () => {
  it('rotates over servers round robin', async () => {
    const log: string[] = [];
    const pool = createLitePool({ servers: ['a', 'b', 'c'].map((n) => ({ name: n, engine: fakeEngine(n, ['ok'], log) })), sleep: noSleep });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await pool.query('m', fn, { x: i })).from);
    expect(answers).toEqual(['a', 'b', 'c', 'a']);
  });

  it('retries a failed query on the next server and reports every attempt', async () => {
    const log: string[] = [];
    const events: QueryEvent[] = [];
    const pool = createLitePool({
      servers: [
        { name: 'a', engine: fakeEngine('a', ['error'], log) },
        { name: 'b', engine: fakeEngine('b', ['ok'], log) },
      ],
      sleep: noSleep,
      observer: { observeQuery: (e) => events.push(e) },
    });
    expect((await pool.query('getBlock', fn, { x: 1 })).from).toBe('b');
    expect(log).toEqual(['a:error', 'b:ok']);
    expect(events.map((e) => [e.server, e.method, e.result, e.attempt])).toEqual([
      ['a', 'getBlock', 'error', 0],
      ['b', 'getBlock', 'ok', 1],
    ]);
  });

  it('skips a server that failed while it cools down, then tries it again', async () => {
    let t = 0;
    const log: string[] = [];
    const pool = createLitePool({
      servers: [
        { name: 'a', engine: fakeEngine('a', ['error', 'ok'], log) },
        { name: 'b', engine: fakeEngine('b', ['ok'], log) },
      ],
      cooldownMs: 1_000,
      now: () => t,
      sleep: noSleep,
    });
    await pool.query('m', fn, { x: 0 }); // a fails, b answers
    await pool.query('m', fn, { x: 1 }); // a is cooling down: b
    await pool.query('m', fn, { x: 2 });
    expect(log).toEqual(['a:error', 'b:ok', 'b:ok', 'b:ok']);
    expect(pool.health().servers.map((s) => [s.name, s.failures, s.usable])).toEqual([
      ['a', 1, false],
      ['b', 0, true],
    ]);
    t = 1_001;
    await pool.query('m', fn, { x: 3 });
    await pool.query('m', fn, { x: 4 });
    expect(log.slice(4)).toEqual(['a:ok', 'b:ok']);
    expect(pool.health().allFailing).toBe(false);
  });

  it('prefers connected servers and skips ones not ready', async () => {
    const log: string[] = [];
    const pool = createLitePool({
      servers: [
        { name: 'down', engine: fakeEngine('down', ['ok'], log, false) },
        { name: 'up', engine: fakeEngine('up', ['ok'], log) },
      ],
      sleep: noSleep,
    });
    for (let i = 0; i < 3; i++) await pool.query('m', fn, { x: i });
    expect(log).toEqual(['up:ok', 'up:ok', 'up:ok']);
  });

  it('times a hanging server out and moves on', async () => {
    const log: string[] = [];
    const events: QueryEvent[] = [];
    const pool = createLitePool({
      servers: [
        { name: 'slow', engine: fakeEngine('slow', ['hang'], log) },
        { name: 'fast', engine: fakeEngine('fast', ['ok'], log) },
      ],
      timeoutMs: 20,
      sleep: noSleep,
      observer: { observeQuery: (e) => events.push(e) },
    });
    expect((await pool.query('m', fn, { x: 1 })).from).toBe('fast');
    expect(events[0]).toMatchObject({ server: 'slow', result: 'timeout' });
  });

  it('gives up after `attempts` with every server and error named, backing off between attempts', async () => {
    const log: string[] = [];
    const delays: number[] = [];
    const pool = createLitePool({
      servers: [
        { name: 'a', engine: fakeEngine('a', ['error'], log) },
        { name: 'b', engine: fakeEngine('b', ['error'], log) },
      ],
      attempts: 4,
      backoff: { baseMs: 100, maxMs: 250 },
      random: () => 1,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    const err = await pool.query('getAccountState', fn, { x: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteQueryError);
    expect((err as LiteQueryError).attempts.map((a) => a.server)).toEqual(['a', 'b', 'a', 'b']);
    expect((err as Error).message).toContain('getAccountState failed 4 time(s): a: a says no; b: b says no');
    expect(delays).toEqual([100, 200, 250]);
    expect(pool.health().allFailing).toBe(true);
  });

  it('limits queries in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const engine: QueryEngine = {
      isReady: () => true,
      close: () => {},
      query: (async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return {};
      }) as QueryEngine['query'],
    };
    const pool = createLitePool({ servers: [{ name: 'a', engine }], concurrency: 3 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => pool.query('m', fn, { x: i })));
    expect(peak).toBe(3);
  });

  it('stops retrying once aborted, and close() closes every engine', async () => {
    const log: string[] = [];
    const ctl = new AbortController();
    const a = fakeEngine('a', ['error'], log);
    const pool = createLitePool({
      servers: [{ name: 'a', engine: a }],
      signal: ctl.signal,
      sleep: async () => {
        ctl.abort();
      },
    });
    await expect(pool.query('m', fn, { x: 1 })).rejects.toBeInstanceOf(AbortedError);
    expect(log).toEqual(['a:error']);
    pool.close();
    expect(a.closed).toBe(true);
  });
});

describe('createLitePool() "not here" answers (isGone) and checks', () => {
  const isGone = (e: Error) => /not here/.test(e.message);
  const pool3 = (scripts: Record<string, Behaviour[]>, log: string[], extra: Partial<Parameters<typeof createLitePool>[0]> = {}) =>
    createLitePool({ servers: Object.entries(scripts).map(([name, script]) => ({ name, engine: fakeEngine(name, script, log) })), isGone, sleep: noSleep, ...extra });

  it('asks the next server when one answers "not here", without cooling it down', async () => {
    const log: string[] = [];
    const events: QueryEvent[] = [];
    const pool = pool3({ a: ['gone'], b: ['ok'] }, log, { observer: { observeQuery: (e) => events.push(e) } });
    expect((await pool.query('getAccountState', fn, { x: 1 })).from).toBe('b');
    expect(log).toEqual(['a:gone', 'b:ok']);
    expect(events.map((e) => e.result)).toEqual(['gone', 'ok']);
    expect(pool.health().servers[0]).toMatchObject({ name: 'a', failures: 0, usable: true });
  });

  it('is final only when every configured server said so, each asked once, with no backoff', async () => {
    const log: string[] = [];
    const delays: number[] = [];
    const pool = pool3({ a: ['gone'], b: ['gone'], c: ['gone'] }, log, { sleep: async (ms) => void delays.push(ms) });
    const err = await pool.query('getAccountState', fn, { x: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GoneEverywhereError);
    expect(err).toBeInstanceOf(LiteQueryError);
    expect((err as LiteQueryError).attempts).toEqual([
      { server: 'a', error: 'a: not here' },
      { server: 'b', error: 'b: not here' },
      { server: 'c', error: 'c: not here' },
    ]);
    expect(log).toEqual(['a:gone', 'b:gone', 'c:gone']);
    expect(delays).toEqual([]);
    expect(pool.health()).toMatchObject({ allFailing: false });
  });

  it('"not here" answers use none of the attempts: the one server that has it is still reached', async () => {
    const log: string[] = [];
    const pool = pool3({ a: ['gone'], b: ['gone'], c: ['ok'] }, log, { attempts: 1 });
    expect((await pool.query('getAccountState', fn, { x: 1 })).from).toBe('c');
  });

  it('fails retriably (not GoneEverywhereError) when a server fails otherwise while the rest say "not here"', async () => {
    const log: string[] = [];
    const pool = pool3({ a: ['gone'], b: ['error'] }, log, { attempts: 3 });
    const err = await pool.query('getAccountState', fn, { x: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteQueryError);
    expect(err).not.toBeInstanceOf(GoneEverywhereError);
    // a is not asked again once it said "not here"; b gets every attempt.
    expect(log).toEqual(['a:gone', 'b:error', 'b:error', 'b:error']);
  });

  it('never takes a timeout for "not here"', async () => {
    const log: string[] = [];
    const pool = pool3({ slow: ['hang'] }, log, { isGone: () => true, timeoutMs: 10, attempts: 2 });
    const err = await pool.query('getAccountState', fn, { x: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteQueryError);
    expect(err).not.toBeInstanceOf(GoneEverywhereError);
    expect(log).toEqual(['slow:hang', 'slow:hang']);
  });

  it('passes the method to isGone, so the rule can be kept to one method', async () => {
    const log: string[] = [];
    const pool = pool3({ a: ['gone'] }, log, { isGone: (e, method) => method === 'getAccountState' && isGone(e), attempts: 2 });
    await expect(pool.query('getAccountState', fn, { x: 1 })).rejects.toBeInstanceOf(GoneEverywhereError);
    const other = await pool.query('getBlock', fn, { x: 1 }).catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(GoneEverywhereError);
    expect((other as LiteQueryError).attempts).toHaveLength(2);
  });

  it('treats a failed check of the answer as that server failing and asks the next one', async () => {
    const log: string[] = [];
    const pool = createLitePool({
      servers: [
        { name: 'bad', engine: fakeEngine('bad', ['ok'], log) },
        { name: 'good', engine: fakeEngine('good', ['ok'], log) },
      ],
      sleep: noSleep,
    });
    const out = await pool.query('getBlock', fn, { x: 1 }, (res) => {
      if (res.from === 'bad') throw new Error('root hash mismatch');
      return `${res.from} verified`;
    });
    expect(out).toBe('good verified');
    expect(pool.health().servers.map((s) => [s.name, s.failures, s.lastError])).toEqual([
      ['bad', 1, 'root hash mismatch'],
      ['good', 0, undefined],
    ]);
  });
});
