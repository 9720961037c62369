/**
 * Two processes of a service behind its lease (LEASE=on): which one holds it, what the standby
 * reports, and the takeover when the holder is killed.
 */
import type { ServiceProcess } from './processes.js';

const ACQUIRED = /"msg":"lease acquired: starting"/;
const STANDING_BY = /"msg":"standby: waiting for the lease"/;

/** What a leased process reports: /healthcheck and its `tonstream_lease_held` gauge. */
export async function leaseReport(metricsPort: number): Promise<{ httpStatus: number; status: string; reasons: string[]; held: number | undefined }> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/healthcheck`);
  const health = (await res.json()) as { status: string; reasons: string[] };
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const held = /^tonstream_lease_held\{[^}]*\} (\d+)$/m.exec(metrics)?.[1];
  return { httpStatus: res.status, status: health.status, reasons: health.reasons, held: held === undefined ? undefined : Number(held) };
}

/** Resolves once `p` holds the lease (its log says so), with the line's fencing number. */
export async function leaseAcquired(p: ServiceProcess, timeoutMs = 60_000): Promise<{ fence: number; time: number }> {
  const line = JSON.parse(await p.waitFor(ACQUIRED, timeoutMs)) as { fence: number; time: string };
  return { fence: line.fence, time: Date.parse(line.time) };
}

export const standingBy = (p: ServiceProcess, timeoutMs = 60_000) => p.waitFor(STANDING_BY, timeoutMs);

/** Kills the holder with SIGKILL; the milliseconds from the kill to the standby's acquisition (the time its log line carries). */
export async function takeoverAfterKill9(holder: ServiceProcess, standby: ServiceProcess, timeoutMs = 60_000): Promise<{ takeoverMs: number; fence: number }> {
  const killedAt = Date.now();
  await holder.kill9();
  const { fence, time } = await leaseAcquired(standby, timeoutMs);
  return { takeoverMs: time - killedAt, fence };
}
