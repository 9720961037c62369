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
});
