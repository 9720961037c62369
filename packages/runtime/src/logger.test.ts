import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

describe('createLogger()', () => {
  it('writes one JSON line per event with bound fields and filters by level', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (l) => lines.push(l) }).child({ module: 'fetcher' });
    log.debug('hidden');
    log.info('block', { mc_seqno: 5, lt: 10n });
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0]);
    expect(rec).toMatchObject({ level: 'info', module: 'fetcher', msg: 'block', mc_seqno: 5, lt: '10' });
    expect(log.isEnabled('debug')).toBe(false);
  });

  it('logs an error with its code and retriable flag, when it has them, and its cause', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', write: (l) => lines.push(l) });
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
    log.warn('store away', { err: Object.assign(new Error('ping failed', { cause }), { code: 'STORE_UNAVAILABLE', retriable: true }) });
    log.warn('plain', { err: new Error('plain') });
    const [away, plain] = lines.map((l) => JSON.parse(l));
    expect(away.err).toMatchObject({ name: 'Error', message: 'ping failed', code: 'STORE_UNAVAILABLE', retriable: true, cause: { message: cause.message, code: 'ECONNREFUSED' } });
    expect(Object.keys(plain.err).sort()).toEqual(['message', 'name', 'stack']);
  });
});
