import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The project's virtualenv python (scripts/python-env.sh; `npm test` exports TONSTREAM_PYTHON).
 * Missing is an error, never a skip: a suite that did not run must not count as passing.
 */
export function venvPython(): string {
  const python = process.env.TONSTREAM_PYTHON ?? `${REPO_ROOT}.local/venv/bin/python`;
  if (!existsSync(python)) throw new Error(`no project python at ${python}: run \`bash scripts/python-env.sh\` (npm test does)`);
  return python;
}

export type PythonRun = { code: number | null; stdout: string; stderr: string };

/** Runs `python args...` from the repo root with extra environment; resolves when it exits. */
export function runPython(args: string[], env: Record<string, string> = {}, timeoutMs = 300_000): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(venvPython(), args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** One statement for test/python/chdb_run.py (current ClickHouse in-process): see that file. */
export type ChdbStep = { sql: string; settings: Record<string, string>; format: string | null; data?: string };
export type ChdbResult = { ok: true; rows: string[] } | { ok: false; error: string };

/** Runs the steps in one chdb session, in order; a failing step is reported in its result and does not stop the run. */
export async function runChdb(steps: ChdbStep[]): Promise<{ version: string; results: ChdbResult[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'tonstream-chdb-plan-'));
  try {
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ steps }));
    const run = await runPython(['test/python/chdb_run.py', plan]);
    if (run.code !== 0) throw new Error(`chdb_run.py exited ${run.code}: ${run.stderr.slice(-2000)}`);
    return JSON.parse(run.stdout) as { version: string; results: ChdbResult[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
