import { describe, expect, it } from 'vitest';
import { TonstreamError, isProgrammingError, isRetriable, recoverWith, rethrowBugs } from './index.js';

class Unavailable extends TonstreamError {
  readonly code = 'TEST_UNAVAILABLE';
  override readonly retriable = true;
}
class Rejected extends TonstreamError {
  readonly code = 'TEST_REJECTED';
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('TonstreamError', () => {
  it('carries code, retriable, cause and the subclass name', () => {
    const cause = new Error('socket closed');
    const err = new Unavailable('store away', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'Unavailable', code: 'TEST_UNAVAILABLE', retriable: true, message: 'store away', cause });
    expect(new Rejected('no').retriable).toBe(false);
    expect(String(new Rejected('bad input'))).toBe('Rejected: bad input');
  });
});

describe('isRetriable', () => {
  it('reads the retriable flag of ours and of other libraries (kafkajs) errors', () => {
    expect(isRetriable(new Unavailable('x'))).toBe(true);
    expect(isRetriable(new Rejected('x'))).toBe(false);
    expect(isRetriable(Object.assign(new Error('leader not available'), { retriable: true }))).toBe(true);
    expect(isRetriable(new Error('x'))).toBe(false);
    expect(isRetriable(undefined)).toBe(false);
    expect(isRetriable('retriable')).toBe(false);
  });
});

describe('isProgrammingError', () => {
  it('counts the engine TypeErrors and ReferenceErrors of broken code', () => {
    const nothing = undefined as unknown as { field: number };
    expect(isProgrammingError(thrown(() => nothing.field))).toBe(true);
    expect(isProgrammingError(thrown(() => (1 as unknown as () => void)()))).toBe(true);
    expect(isProgrammingError(thrown(() => (1n as unknown as number) + 1))).toBe(true);
    expect(isProgrammingError(thrown(() => JSON.stringify({ n: 1n })))).toBe(true);
    expect(isProgrammingError(new ReferenceError('x is not defined'))).toBe(true);
  });

  it('does not count failures that come from input or the network', async () => {
    expect(isProgrammingError(thrown(() => JSON.parse('{')))).toBe(false);
    expect(isProgrammingError(thrown(() => BigInt('12x')))).toBe(false);
    expect(isProgrammingError(thrown(() => Buffer.alloc(2).readUInt32BE(0)))).toBe(false);
    expect(isProgrammingError(thrown(() => new URL('not a url')))).toBe(false);
    expect(isProgrammingError(thrown(() => new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.of(0xff))))).toBe(false);
    expect(isProgrammingError(thrown(() => new Date(Number.NaN).toISOString()))).toBe(false);
    expect(isProgrammingError(await fetch('http://127.0.0.1:1/').catch((err: unknown) => err))).toBe(false);
    expect(isProgrammingError(new Error('Not enough bits'))).toBe(false);
    expect(isProgrammingError(new Rejected('x'))).toBe(false);
    expect(isProgrammingError('a string')).toBe(false);
  });
});

describe('rethrowBugs', () => {
  it('rethrows a programming error and lets an expected failure pass', () => {
    const bug = thrown(() => (undefined as unknown as { a: number }).a);
    expect(() => rethrowBugs(bug)).toThrow(bug as Error);
    expect(() => rethrowBugs(new Error('Not enough bits'))).not.toThrow();
  });
});

describe('recoverWith', () => {
  it('resolves to the value on an expected failure and rejects with a bug', async () => {
    expect(await Promise.reject(new Error('connection closed')).catch(recoverWith(false))).toBe(false);
    const bug = thrown(() => (undefined as unknown as { a: number }).a);
    await expect(Promise.reject(bug).catch(recoverWith(false))).rejects.toBe(bug);
  });
});
