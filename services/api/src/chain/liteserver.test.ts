import { LiteQueryError, type QueryEngine, QueryTimeoutError } from '@tonstream/lite-client';
import { createLogger } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { connectLiteserver, createLiteserver, liteError, LiteClientError, noLiteserver } from './liteserver.js';

/** An engine that fails every query with `message`, counting them. */
function failingEngine(message: string) {
  const engine = { asked: 0, isReady: () => true, close: () => {}, query: (async () => {
    engine.asked++;
    throw new Error(message);
  }) as QueryEngine['query'] };
  return engine;
}

describe("the API's liteserver", () => {
  it('asks once and answers the status of the liteserver error, named by the lite_api method', async () => {
    const engine = failingEngine('block not found: (0,8000000000000000,5)');
    const lite = createLiteserver(engine);
    const err = await lite.blockHeader({} as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteClientError);
    expect(err).toMatchObject({ status: 404, message: 'LITE_SERVER_NOTREADY: block not found: (0,8000000000000000,5)' });
    expect(engine.asked).toBe(1);
    await expect(createLiteserver(failingEngine('Unknown constructor found 0x7bc19c36')).outMsgQueueSizes()).rejects.toMatchObject({
      status: 501,
      message: expect.stringMatching(/^LITE_SERVER_NOTIMPLEMENTED: getOutMsgQueueSizes is not supported/),
    });
  });

  it("reads the pool's failure by its cause: the pool's own timeout is 504 like ton-lite-client's", () => {
    const timedOut = new LiteQueryError('runSmcMethod', [{ server: 'a', error: 'timed out' }], { cause: new QueryTimeoutError('runSmcMethod timed out after 10000 ms') });
    expect(liteError(timedOut, 'runSmcMethod')).toMatchObject({ status: 504, message: 'LITE_SERVER_NETWORK: runSmcMethod timed out' });
  });

  it('answers 503 until the global config exists, and without one', async () => {
    const lite = connectLiteserver('/nonexistent/global.config.json', createLogger({ level: 'error' }));
    expect(() => lite.masterchainInfo()).toThrow(LiteClientError);
    expect(() => lite.masterchainInfo()).toThrow('liteserver unavailable: global config /nonexistent/global.config.json not found yet');
    lite.close();
    await expect(noLiteserver().sendMessage(Buffer.alloc(0))).rejects.toMatchObject({ status: 503, message: expect.stringContaining('set API_GLOBAL_CONFIG') });
  });
});
