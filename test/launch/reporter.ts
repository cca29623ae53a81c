// A mocha reporter that prints what the spec reporter prints (the log CI keeps) and, when told where,
// writes the run's summary as JSON (./results.ts): `--reporter out/test/launch/reporter.js` with
// `--reporter-option output=FILE` or env AQ_RESULTS_FILE; in code, `new Mocha({ reporter })`.
import Mocha from 'mocha';
import { RESULTS_FILE_ENV, writeSummary, type TestFailure } from './results';

const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

/** How many stack frames of a failure its summary keeps. */
const FRAMES = 2;

function failureOf(test: Mocha.Runnable, error: unknown): TestFailure {
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? error.stack ?? '' : '';
  const where = stack.split('\n').map((line) => line.trim()).filter((line) => line.startsWith('at ')).slice(0, FRAMES);
  return { title: test.fullTitle(), message, where };
}

/** The spec reporter, plus a JSON summary (passed, failed, pending, each failure's title and message) at the end. */
class ResultsReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const reporterOptions = (options?.reporterOptions ?? {}) as { output?: unknown };
    const output = typeof reporterOptions.output === 'string' && reporterOptions.output !== '' ? reporterOptions.output : process.env[RESULTS_FILE_ENV];
    if (output === undefined || output === '') return;
    const failures: TestFailure[] = [];
    runner.on(EVENT_TEST_FAIL, (test, error) => failures.push(failureOf(test, error)));
    runner.once(EVENT_RUN_END, () => {
      const stats = this.stats;
      writeSummary(output, { passed: stats.passes, failed: stats.failures, pending: stats.pending, failures });
    });
  }
}

export = ResultsReporter;
