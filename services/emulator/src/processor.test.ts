import { Address, beginCell, external, storeMessage } from '@ton/core';
import type { EmulationOutcome, TraceEmulator } from '@tonstream/emulation';
import { parseExternal } from '@tonstream/emulation';
import type { TransactionRecord } from '@tonstream/records';
import { createLogger } from '@tonstream/runtime';
import { pendingKeys } from '@tonstream/store';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createAdmission } from './admission.js';
import { createEmulatorMetrics } from './metrics.js';
import { createProcessor, StoppedError } from './processor.js';

const TTL_MS = 60_000;
const NOW = 1_700_000_000_000;
const to = Address.parseRaw(`0:${'cd'.repeat(32)}`);

function externalBoc(n: number): Buffer {
  return beginCell().store(storeMessage(external({ to, body: beginCell().storeUint(n, 32).endCell() }))).endCell().toBoc();
}

function value(boc: Buffer, receivedAt = NOW): Buffer {
  return Buffer.from(JSON.stringify({ hash: 'x', hash_norm: 'y', boc: boc.toString('base64'), received_at: receivedAt }));
}

/** Redis as the processor uses it: EXISTS, and MULTI whose EXEC fails while `down`. */
function fakeRedis() {
  const state = { down: 0, stored: new Set<string>(), execs: 0 };
  const redis = {
    exists: async (key: string) => (state.stored.has(key) ? 1 : 0),
    multi() {
      const keys: string[] = [];
      const chain = new Proxy({} as Record<string, unknown>, {
        get(_t, name) {
          if (name === 'exec') {
            return async () => {
              state.execs++;
              if (state.down > 0) {
                state.down--;
                throw new Error('Connection is closed.');
              }
              for (const k of keys) state.stored.add(k);
              return [];
            };
          }
          return (...args: unknown[]) => {
            if (name === 'hset') keys.push(String(args[0]));
            return chain;
          };
        },
      });
      return chain;
    },
  };
  return { redis: redis as unknown as Redis, state };
}

function emulatedOutcome(boc: Buffer): EmulationOutcome {
  const external = parseExternal(boc);
  const record = { account: external.destination, hash: 'dHg=', lt: '10', now: 1, mc_block_seqno: 2, in_msg: { hash: external.hash }, out_msgs: [] } as unknown as TransactionRecord;
  const head = { seqno: 1, shard: '8000000000000000', rootHash: '', fileHash: '', utime: 1 };
  return { kind: 'emulated', external, head, transactions: [{ record, depth: 0, parent: null }], limitExceeded: false, interfaces: {}, finalStates: new Map(), durationMs: 1 };
}

function setup(outcome: (boc: Buffer) => EmulationOutcome = emulatedOutcome) {
  const { redis, state } = fakeRedis();
  const calls: number[] = [];
  const emulator: TraceEmulator = {
    async emulate(boc) {
      calls.push(1);
      return outcome(Buffer.from(boc));
    },
  };
  const metrics = createEmulatorMetrics(new Registry());
  const processor = createProcessor({
    emulator,
    redis,
    keys: pendingKeys('t:'),
    admission: createAdmission({ rate: 100, windowMs: 10_000, dedupeMs: TTL_MS }),
    ttlMs: TTL_MS,
    metrics,
    logger: createLogger({ level: 'error' }),
    now: () => NOW,
  });
  const heartbeats: number[] = [];
  const control = { running: true, heartbeat: async () => void heartbeats.push(1), isRunning: () => control.running };
  return { processor, state, calls, control, heartbeats, metrics };
}

describe('createProcessor()', () => {
  it('skips what is not an external, and externals older than the TTL, without emulating', async () => {
    const { processor, calls, control } = setup();
    expect(await processor.process(Buffer.from('{"boc":"AAAA","received_at":1}'), control)).toBe('invalid');
    expect(await processor.process(null, control)).toBe('invalid');
    expect(await processor.process(value(externalBoc(1), NOW - TTL_MS - 1), control)).toBe('stale');
    expect(calls).toHaveLength(0);
  });

  it('retries a failed emulation, but not a programming error', async () => {
    const failing = setup(() => {
      throw new Error('liteserver timeout');
    });
    expect(await failing.processor.process(value(externalBoc(7)), failing.control)).toBe('failed');
    expect(failing.calls).toHaveLength(3);
    const buggy = setup((boc) => (undefined as unknown as { of: (b: Buffer) => EmulationOutcome }).of(boc));
    expect(await buggy.processor.process(value(externalBoc(8)), buggy.control)).toBe('failed');
    expect(buggy.calls).toHaveLength(1);
  });

  it('emulates and stores an external once; a repeat is a duplicate, also after a restart (found in Redis)', async () => {
    const first = setup();
    const boc = externalBoc(2);
    expect(await first.processor.process(value(boc), first.control)).toBe('emulated');
    expect(await first.processor.process(value(boc), first.control)).toBe('duplicate');
    expect(first.calls).toHaveLength(1);
    // A new process (fresh admission) over the same Redis.
    const second = setup();
    second.state.stored = first.state.stored;
    expect(await second.processor.process(value(boc), second.control)).toBe('duplicate');
    expect(second.calls).toHaveLength(0);
  });

  it('stores nothing for an external its destination rejects', async () => {
    const { processor, state, control } = setup((boc) => {
      const { external, head } = emulatedOutcome(boc);
      return { kind: 'rejected', external, head, reason: 'External message not accepted', exitCode: 33 };
    });
    expect(await processor.process(value(externalBoc(3)), control)).toBe('rejected');
    expect(state.execs).toBe(0);
  });

  it('retries a Redis write until it succeeds, heartbeating meanwhile, and resolves only then', async () => {
    const { processor, state, control, heartbeats, metrics } = setup();
    state.down = 2;
    expect(await processor.process(value(externalBoc(4)), control)).toBe('emulated');
    expect(state.execs).toBe(3);
    expect(heartbeats.length).toBeGreaterThanOrEqual(2);
    expect((await metrics.redisErrors.get()).values[0].value).toBe(2);
  });

  it('gives up with StoppedError when the service stops while Redis is down, so the offset is not committed', async () => {
    const { processor, state, control } = setup();
    state.down = 1_000;
    control.running = false;
    await expect(processor.process(value(externalBoc(5)), control)).rejects.toBeInstanceOf(StoppedError);
    expect(state.stored.size).toBe(0);
  });
});
