import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

/**
 * Prints each failure the moment it happens, beside vitest's own reporter (which prints them only at
 * the end of the run): a CI log cut short, or read while the run goes on, still says what failed and why.
 */
type Failed = { message: string; stack?: string };

function print(where: string, errors: readonly Failed[]): void {
  if (errors.length === 0) return;
  const body = errors.map((e) => e.stack ?? e.message).join('\n');
  process.stderr.write(`\n--- FAILED ${where}\n${body}\n---\n`);
}

export default class FailuresAsTheyHappen implements Reporter {
  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    if (result.state === 'failed') print(`${test.module.moduleId} > ${test.fullName}`, result.errors);
  }

  onTestSuiteResult(suite: TestSuite): void {
    print(`${suite.module.moduleId} > ${suite.fullName} (hook)`, suite.errors());
  }

  onTestModuleEnd(module: TestModule): void {
    print(`${module.moduleId} (file or hook)`, module.errors());
  }
}
