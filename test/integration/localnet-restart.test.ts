/**
 * The local network resumes at the wall clock after a restart (issue 24, item 13): the service runs as
 * a process, is stopped (SIGTERM: it writes its snapshot), stays down until the wall clock is a few
 * seconds past its last block, and is started again. Its next block must carry the time of the restart,
 * not its old clock's (one round after the last block), so index lag does not keep the downtime; and
 * block times still only go forward. Oracle: the chain's own ledger (a line per round, written as the
 * round is produced) and the wall clock around the restart.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

/** Seconds the wall clock runs past the last block before the restart: the old clock would lag by about as much. */
const DOWNTIME_S = 4;

const dir = mkdtempSync(join(tmpdir(), 'tonstream-localnet-restart-'));
const ledgerPath = join(dir, 'ledger.jsonl');
let proc: ServiceProcess | undefined;

type Round = { mc_seqno: number; gen_utime: number };
const rounds = (): Round[] => readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Round);

async function startLocalnet(args: string[] = []): Promise<ServiceProcess> {
  const env = {
    LOCALNET_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    LOCALNET_STATE_DIR: join(dir, 'state'),
    LOCALNET_SEED: 'localnet-restart',
    LOCALNET_TRAFFIC_RATE: '2',
    LOCALNET_LEDGER: ledgerPath,
  };
  const p = startService('localnet', env, dir, args);
  await p.waitFor(/localnet serving/, 60_000);
  return p;
}

afterAll(async () => {
  await proc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('localnet restart', () => {
  it('resumes at the wall clock: the first block after a stop is at the restart time, later than the last one', async () => {
    proc = await startLocalnet(['--reset']);
    await eventually('three rounds', async () => (rounds().length >= 3 ? true : undefined), 60_000, 200);
    await proc.stop();
    proc = undefined;
    const last = rounds().at(-1)!;

    await eventually(`the wall clock ${DOWNTIME_S} s past the last block`, async () => (Date.now() / 1000 >= last.gen_utime + DOWNTIME_S ? true : undefined), 30_000, 100);
    const restartedAt = Math.floor(Date.now() / 1000);
    proc = await startLocalnet();
    const [first, second] = await eventually('two rounds after the restart', async () => {
      const after = rounds().filter((r) => r.mc_seqno > last.mc_seqno);
      return after.length >= 2 ? after : undefined;
    }, 60_000, 200);

    expect(first.mc_seqno).toBe(last.mc_seqno + 1);
    // The old clock would give last.gen_utime + 1, DOWNTIME_S - 1 seconds before the restart.
    expect(first.gen_utime).toBeGreaterThanOrEqual(restartedAt);
    expect(first.gen_utime).toBeGreaterThan(last.gen_utime);
    expect(second.gen_utime).toBeGreaterThan(first.gen_utime);
  });
});
