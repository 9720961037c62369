import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the test files of every project longest first, by the seconds each took in a recent full run
 * (`test/suite-durations.json`, rewritten by `npm run test:durations`). A fresh clone has no vitest
 * cache, so vitest's own order would be project by project, and a 3-minute suite started last ends
 * the run alone on one core; longest first lets the short files fill the gaps at the end.
 */
const TABLE = new URL('../suite-durations.json', import.meta.url);
/** A suite missing from the table: one with servers is guessed at a minute, a unit file at nothing. */
const GUESS_S = { unit: 0, other: 60 };

export default class LongestFirst extends BaseSequencer {
  private readonly seconds: Record<string, number> = JSON.parse(readFileSync(TABLE, 'utf8'));

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const expected = (f: TestSpecification) =>
      this.seconds[`${f.project.name}:${f.moduleId.slice(root.length + 1)}`] ?? (f.project.name === 'unit' ? GUESS_S.unit : GUESS_S.other);
    return [...files].sort((a, b) => expected(b) - expected(a));
  }
}
