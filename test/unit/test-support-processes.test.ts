/**
 * The test support that starts and watches processes (test/support/processes.ts, ports.ts): ports
 * that cannot collide, output matched by whole lines.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPortAllocator, ephemeralRange, reservableRange } from '../support/ports.js';
import { freePort, watchProcess } from '../support/processes.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'tonstream-support-test-'));

describe('freePort', () => {
  it('gives ports the kernel never hands out by itself (outside the ephemeral range), on which a server can listen', async () => {
    const [lo, hi] = ephemeralRange();
    const port = await freePort();
    expect(port < lo || port > hi, `port ${port} is inside the ephemeral range ${lo}-${hi}`).toBe(true);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await new Promise((r) => server.close(r));
  });

  it('never gives the same port twice while the process that took it lives', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(ports.length - new Set(ports).size).toBe(0);
  });
});

describe('port allocators sharing a lock directory (as test processes on one machine do)', () => {
  it('two taking at once never get the same port', async () => {
    const lockDir = scratch();
    const [, top] = reservableRange();
    const range = () => [top - 199, top] as const;
    const [a, b] = [createPortAllocator({ lockDir, range }), createPortAllocator({ lockDir, range })];
    const taken = await Promise.all(Array.from({ length: 160 }, (_, i) => (i % 2 === 0 ? a : b).take()));
    expect(new Set(taken).size).toBe(taken.length);
    for (const p of taken) expect(p >= top - 199 && p <= top).toBe(true);
  });

  it('a port locked by a live process is not given; one left by a process that died is', async () => {
    const port = await freePort();
    const range = () => [port, port] as const;
    const live = scratch();
    writeFileSync(join(live, String(port)), `${process.pid}-other`);
    await expect(createPortAllocator({ lockDir: live, range }).take()).rejects.toThrow(/no free port/);

    const dead = spawn(process.execPath, ['-e', '']);
    await once(dead, 'exit');
    const stale = scratch();
    writeFileSync(join(stale, String(port)), `${dead.pid}-gone`);
    expect(await createPortAllocator({ lockDir: stale, range }).take()).toBe(port);
  });

  it('a port something else listens on is skipped', async () => {
    const port = await freePort();
    const range = () => [port, port] as const;
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await expect(createPortAllocator({ lockDir: scratch(), range }).take()).rejects.toThrow(/no free port/);
    await new Promise((r) => server.close(r));
    expect(await createPortAllocator({ lockDir: scratch(), range }).take()).toBe(port);
  });
});

describe('watchProcess waitFor', () => {
  /**
   * A child that writes `first`, and `second` only once told to (stdin), so the two arrive in two
   * reads; `waitFor(pattern)` is asked in between. Resolves with what it matched.
   */
  async function matchAcrossReads(first: Buffer, second: Buffer, pattern: RegExp): Promise<string> {
    const script = `process.stdout.write(Buffer.from('${first.toString('hex')}', 'hex'));
      process.stdin.once('data', () => { process.stdout.write(Buffer.from('${second.toString('hex')}', 'hex')); process.stdin.destroy(); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    const watched = watchProcess('split', child, join(scratch(), 'split.log'));
    await once(child.stdout!, 'data');
    const matched = watched.waitFor(pattern, 20_000);
    child.stdin!.write('go');
    try {
      return await matched;
    } finally {
      await watched.stop();
    }
  }

  it('matches a line that arrives in two reads', async () => {
    expect(await matchAcrossReads(Buffer.from('{"msg":"api list'), Buffer.from('ening","port":1}\n'), /api listening/)).toBe('{"msg":"api listening","port":1}');
  });

  it('matches only whole lines: not the first part of a line that goes on', async () => {
    expect(await matchAcrossReads(Buffer.from('port 12'), Buffer.from('345\n'), /port \d+/)).toBe('port 12345');
  });

  it('keeps a character split between two reads whole', async () => {
    const text = Buffer.from('price 5 €\n');
    const cut = text.length - 3; // inside the three bytes of '€'
    expect(await matchAcrossReads(text.subarray(0, cut), text.subarray(cut), /price 5 €/)).toBe('price 5 €');
  });
});

describe('watchProcess exited', () => {
  it("resolves with the child's exit code, also when asked after the exit, and null for a signal", async () => {
    const exiting = watchProcess('exits', spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: ['ignore', 'pipe', 'pipe'] }), join(scratch(), 'exits.log'));
    expect(await exiting.exited()).toBe(3);
    expect(await exiting.exited()).toBe(3);
    const killed = watchProcess('killed', spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'pipe'] }), join(scratch(), 'killed.log'));
    await killed.kill9();
    expect(await killed.exited()).toBeNull();
  });
});
