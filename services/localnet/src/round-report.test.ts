import type { RoundResult } from '@tonstream/localnet';
import { createLogger } from '@tonstream/runtime';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLocalnetMetrics } from './metrics.js';
import { createRoundReporter, PROGRESS_EVERY_ROUNDS } from './round-report.js';

function fakeRound(seqno: number, transactions: number): RoundResult {
  const block = { id: { workchain: -1, shard: 1n << 63n, seqno, rootHash: '', fileHash: '' } };
  return { mc: block, shards: [block, block], transactions, rejected: [{ kind: 'external' }], inFlight: 3, timing: { executeMs: 5, buildMs: 2 } } as unknown as RoundResult;
}

describe('createRoundReporter()', () => {
  it('counts rounds in metrics, logs each at debug and a progress line every 10 rounds at info', async () => {
    const lines: Record<string, unknown>[] = [];
    const registry = new Registry();
    let clock = 0;
    const reporter = createRoundReporter({
      logger: createLogger({ level: 'debug', write: (l) => lines.push(JSON.parse(l)) }),
      metrics: createLocalnetMetrics(registry),
      roundMs: 1000,
      now: () => clock,
    });
    for (let seqno = 1; seqno <= 2 * PROGRESS_EVERY_ROUNDS; seqno++) {
      clock += 1000;
      reporter.round(fakeRound(seqno, 5), 40, { internal: 7, external: 1 });
    }
    expect(lines.filter((l) => l.msg === 'round')).toHaveLength(20);
    const progress = lines.filter((l) => l.msg === 'progress');
    expect(progress.map((l) => [l.level, l.mc_seqno, l.transactions, l.tx_per_s])).toEqual([
      ['info', 10, 50, 5],
      ['info', 20, 50, 5],
    ]);
    const text = await registry.metrics();
    expect(text).toMatch(/tonstream_localnet_mc_seqno 20/);
    expect(text).toMatch(/tonstream_localnet_transactions_total 100/);
    expect(text).toMatch(/tonstream_localnet_pending_messages\{kind="internal"\} 7/);
    expect(text).toMatch(/tonstream_localnet_rejected_messages_total 20/);
    expect(text).toMatch(/tonstream_localnet_round_duration_seconds_count 20/);
  });

  it('reports degraded health when rounds stall or fail', () => {
    let clock = 0;
    const reporter = createRoundReporter({ logger: createLogger({ write: () => {} }), metrics: createLocalnetMetrics(new Registry()), roundMs: 1000, now: () => clock });
    expect(reporter.health()).toEqual({ status: 'ok', reasons: [] });
    reporter.failed(new Error('emulator crashed'), 12);
    clock = 6_000;
    expect(reporter.health()).toEqual({ status: 'degraded', reasons: ['no round for 6 s', 'last round failed: emulator crashed'] });
    reporter.round(fakeRound(12, 1), 10, { internal: 0, external: 0 });
    expect(reporter.health().status).toBe('ok');
  });
});
