/**
 * An earlier release built beside this checkout, for benches that compare it with today's code in the
 * same run: the tree at a git commit (`git archive`, no second worktree registered), its own
 * dependencies (`npm ci` from the npm cache) and `tsc -b`. Kept in the temp folder per commit and
 * reused while its build marker is there; `startService(…, build.root)` runs its services.
 */
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/processes.js';

export type BaselineBuild = { sha: string; root: string };

const BUILT_MARKER = '.tonstream-baseline-built';

/** The commit `ref` names in this repository, built under the temp folder (once per commit). */
export function baselineBuild(ref: string, log: (line: string) => void): BaselineBuild {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`git rev-parse ${ref}: unexpected answer ${JSON.stringify(sha)}`);
  const root = join(tmpdir(), `tonstream-baseline-${sha.slice(0, 12)}`);
  if (existsSync(join(root, BUILT_MARKER))) {
    log(`baseline ${sha.slice(0, 12)}: built in ${root}`);
    return { sha, root };
  }
  const started = performance.now();
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  log(`baseline ${sha.slice(0, 12)}: extracting into ${root}`);
  execSync(`git archive --format=tar ${sha} | tar -x -C '${root}'`, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  log(`baseline ${sha.slice(0, 12)}: npm ci`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  log(`baseline ${sha.slice(0, 12)}: tsc -b`);
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-b'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(join(root, BUILT_MARKER), `${sha}\n`);
  log(`baseline ${sha.slice(0, 12)}: built in ${Math.round((performance.now() - started) / 1000)} s`);
  return { sha, root };
}
