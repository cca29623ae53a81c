// `npm test` (after `pretest` built, type-checked, linted and compiled): first the system packages the
// chosen lanes need, then every lane in order (the code-server installs run beside the lanes that
// need no VS Code, and the first lane that needs one waits for them), each in its own
// process with its output streamed (mocha's spec report, which CI keeps), then a recap of what failed
// and a summary per lane and phase, and one final line "N passed, N failed". The counts and the
// recap come from the JSON summary each lane leaves in test-results/summary/<lane>.json (see
// test/launch/results.ts), never from the log's text. Exits 1 if set-up failed, a lane failed or a
// lane ran no tests.
// Env AQ_LANES (e.g. "unit,browser") runs only those lanes; AQ_VSCODE_VERSIONS narrows the versions.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ensureCodeServer, selectVersions, type CodeServerVersion } from './launch/codeServer';
import { ensureSystemPackages, type SystemPackage } from './launch/system';
import { cleanEnv, killGroup, killGroupOnExit, lineSplitter, onTerminate, repoRoot, secondsSince } from './launch/util';
import { brokenRun, readSummary, RESULTS_FILE_ENV, summaryFile, type ResultSummary, type TestFailure } from './launch/results';

/** One lane: a command, and how its result is counted. */
interface Lane {
  name: string;
  args: string[];
  /** Why the lane is skipped, if it is. */
  skip?: string;
  /** Counts as one check (passed when it exits 0) instead of reading the lane's summary of mocha's tests. */
  singleCheck?: boolean;
  env?: Record<string, string>;
  /** What the lane needs beyond npm: Chromium, and code-server (all versions under test, or the demo's). */
  needs: { chromium?: boolean; codeServer?: 'all' | CodeServerVersion };
}

/** What a lane did. */
interface LaneResult {
  name: string;
  passed: number;
  failed: number;
  pending: number;
  code: number;
  seconds: string;
  skipped?: string;
  /** Each failure, from the lane's JSON summary, repeated at the end of the log. */
  failures: TestFailure[];
}

/** How many lines of one failure's message the recap repeats. */
const MESSAGE_LINES = 8;
/** How many failures of one lane the recap repeats (the log above has them all). */
const RECAP_FAILURES = 20;

function hasTests(dir: string): boolean {
  if (!existsSync(dir)) return false;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory() ? hasTests(full) : name.endsWith('.test.js')) return true;
  }
  return false;
}

function lanes(root: string): Lane[] {
  const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
  // The spec report on the console and a JSON summary in the file env AQ_RESULTS_FILE names.
  const reporter = ['--reporter', path.join(root, 'out', 'test', 'launch', 'reporter.js')];
  return [
    { name: 'unit', args: [mocha, '--config', '.mocharc.json', ...reporter], needs: {} },
    // The command line packed, installed into an empty folder with npm, and run against the reference service.
    { name: 'cli', args: [mocha, '--no-config', ...reporter, '--timeout', '300000', '--exit', 'out/test/cli/**/*.test.js'], needs: {} },
    {
      name: 'browser',
      args: [mocha, '--no-config', ...reporter, '--timeout', '60000', '--exit', 'out/test/browser/**/*.test.js'],
      skip: hasTests(path.join(root, 'out', 'test', 'browser')) ? undefined : 'no out/test/browser/**/*.test.js',
      needs: { chromium: true },
    },
    // These launchers run mocha once per VS Code version and merge the summaries into AQ_RESULTS_FILE.
    { name: 'integration', args: ['out/test/launch/runIntegration.js'], needs: { chromium: true, codeServer: 'all' } },
    { name: 'e2e', args: ['out/test/launch/runE2e.js'], needs: { chromium: true, codeServer: 'all' } },
    // After the lanes that use the development build: packaging rebuilds dist/ for production.
    { name: 'package', args: [mocha, '--no-config', ...reporter, '--timeout', '600000', '--exit', 'out/test/package/**/*.test.js'], needs: { chromium: true, codeServer: '4.100.3' } },
    {
      name: 'demo',
      args: ['out/scripts/demo.js'],
      singleCheck: true,
      env: { AQ_DEMO_EXIT_AFTER_READY: '1', AQ_DEMO_PORT: '0', AQ_DEMO_SERVICE_PORT: '0' },
      skip: existsSync(path.join(root, 'out', 'scripts', 'demo.js')) ? undefined : 'out/scripts/demo.js is missing',
      needs: { codeServer: '4.100.3' },
    },
  ];
}

/**
 * What a lane did, from the summary it left in `file`: a lane that exits non-zero without a failure
 * on record, or that left no summary, counts as one failure that says so.
 */
function laneSummary(lane: Lane, file: string, code: number): ResultSummary {
  if (lane.singleCheck === true) {
    return code === 0 ? { passed: 1, failed: 0, pending: 0, failures: [] } : brokenRun(lane.name, `exited with code ${code}`);
  }
  const summary = readSummary(file);
  const where = path.relative(repoRoot(), file);
  if (summary === undefined) return brokenRun(`the ${lane.name} lane`, `exited with code ${code} and left no results in ${where}`);
  if (code !== 0 && summary.failed === 0) {
    return { ...summary, failed: 1, failures: [{ title: `the ${lane.name} lane`, message: `exited with code ${code}, though ${where} records no failure`, where: [] }] };
  }
  return summary;
}

function runLane(root: string, lane: Lane): Promise<LaneResult> {
  const started = Date.now();
  const file = summaryFile(lane.name);
  // A summary left by an earlier run must never be read as this run's.
  rmSync(file, { force: true });
  console.log(`\n######## ${lane.name} ########`);
  return new Promise((resolve) => {
    const env = cleanEnv({ ...lane.env, [RESULTS_FILE_ENV]: file });
    const child = spawn(process.execPath, lane.args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const forget = killGroupOnExit(child);
    const forgetStep = onTerminate(() => killGroup(child));
    const print = lineSplitter((line) => console.log(line));
    child.stdout.on('data', (chunk: Buffer) => print(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => print(chunk.toString('utf8')));
    let finished = false;
    const finish = (code: number): void => {
      if (finished) return;
      finished = true;
      forget();
      forgetStep();
      print(null);
      const { passed, failed, pending, failures } = laneSummary(lane, file, code);
      resolve({ name: lane.name, passed, failed, pending, code, seconds: secondsSince(started), failures });
    };
    child.once('error', (error) => {
      console.log(`could not start the ${lane.name} lane: ${error.message}`);
      finish(1);
    });
    child.once('close', (code, signal) => finish(code ?? (signal !== null ? 1 : 0)));
  });
}

/** The recap of one failure: its title, the first lines of its message, where it was thrown. */
function recapLines(failure: TestFailure, index: number): string[] {
  const message = failure.message.split('\n');
  const shown = message.slice(0, MESSAGE_LINES).map((line) => `     ${line}`);
  if (message.length > MESSAGE_LINES) shown.push(`     … (${message.length - MESSAGE_LINES} more lines in the log above)`);
  return [`  ${index + 1}) ${failure.title}`, ...shown, ...failure.where.map((frame) => `       ${frame}`)];
}

/** A set-up step before the lanes, timed like one. */
interface Phase {
  name: string;
  seconds: string;
  error?: string;
}

/**
 * Everything the chosen lanes need beyond `npm install`, done once so that a missing package stops
 * the run with what to do, and the installs are timed on their own: the system packages before any
 * lane, the code-server installs (`installs`, true when they succeeded) started alongside.
 */
async function setUp(chosen: readonly Lane[]): Promise<{ phases: Phase[]; installs: Promise<boolean> }> {
  const phases: Phase[] = [];
  let installs = Promise.resolve(true);
  const step = async (name: string, work: () => Promise<void>): Promise<boolean> => {
    const started = Date.now();
    console.log(`\n######## set-up: ${name} ########`);
    try {
      await work();
      phases.push({ name, seconds: secondsSince(started) });
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.log(message);
      phases.push({ name, seconds: secondsSince(started), error: message.split('\n')[0] });
      return false;
    }
  };
  const versions = new Set<CodeServerVersion>();
  const packages = new Set<SystemPackage>();
  for (const lane of chosen) {
    if (lane.needs.chromium === true) packages.add('chromium');
    const wanted = lane.needs.codeServer === 'all' ? selectVersions(process.env.AQ_VSCODE_VERSIONS) : lane.needs.codeServer === undefined ? [] : [lane.needs.codeServer];
    for (const version of wanted) versions.add(version);
  }
  if (versions.size > 0) packages.add('libkrb5-dev');
  if (versions.has('4.100.3')) packages.add('ripgrep');
  if (packages.size > 0) {
    const ok = await step('system packages', async () => {
      await ensureSystemPackages(packages, 'npm test');
      console.log(`present: ${[...packages].sort().join(', ')}`);
    });
    if (!ok) return { phases, installs };
  }
  const wanted = [...versions].sort();
  if (wanted.length > 0) {
    // The installs mostly wait for the registry and the disk, so they run while the lanes that need
    // no VS Code do; a lane that needs one waits for them (see main).
    installs = step(`code-server ${wanted.join(', ')}`, async () => {
      const results = await Promise.allSettled(
        wanted.map(async (version) => {
          const { command } = await ensureCodeServer(version);
          console.log(`code-server ${version} is ready (${command === process.execPath ? 'Node ' + process.versions.node : 'Node 24 from .cache/node24'})`);
        }),
      );
      const problems = results.flatMap((result) => (result.status === 'rejected' ? [result.reason instanceof Error ? result.reason.message : String(result.reason)] : []));
      if (problems.length > 0) throw new Error(problems.join('\n\n'));
    });
  }
  return { phases, installs };
}

async function main(): Promise<number> {
  const root = repoRoot();
  const started = Date.now();
  const only = (process.env.AQ_LANES ?? '').split(/[\s,]+/).filter((name) => name !== '');
  const chosen = lanes(root).filter((lane) => only.length === 0 || only.includes(lane.name));
  const { phases, installs } = await setUp(chosen.filter((lane) => lane.skip === undefined));
  const results: LaneResult[] = [];
  let setUpFailed = phases.some((phase) => phase.error !== undefined);
  for (const lane of setUpFailed ? [] : chosen) {
    if (lane.skip !== undefined) {
      console.log(`\n######## ${lane.name}: skipped (${lane.skip}) ########`);
      results.push({ name: lane.name, passed: 0, failed: 0, pending: 0, code: 0, seconds: '0.0', skipped: lane.skip, failures: [] });
      continue;
    }
    if (lane.needs.codeServer !== undefined && !(await installs)) {
      setUpFailed = true;
      break;
    }
    results.push(await runLane(root, lane));
  }
  // A run whose lanes needed no VS Code still reports an install that failed, once it has ended.
  if (!(await installs)) setUpFailed = true;

  // A CI log keeps only its end: the failures are repeated here, so they are never lost.
  for (const r of results.filter((result) => result.failures.length > 0)) {
    console.log(`\n======== What failed in ${r.name} ========`);
    r.failures.slice(0, RECAP_FAILURES).forEach((failure, index) => {
      for (const line of recapLines(failure, index)) console.log(line);
    });
    if (r.failures.length > RECAP_FAILURES) console.log(`  … and ${r.failures.length - RECAP_FAILURES} more (see the log above)`);
  }
  console.log('\n======== Summary ========');
  let ok = !setUpFailed;
  for (const phase of phases) {
    console.log(`  set-up: ${phase.name.padEnd(28)} ${phase.seconds.padStart(7)} s  ${phase.error === undefined ? 'ok' : `FAILED: ${phase.error}`}`);
  }
  if (setUpFailed) console.log('  the lanes after a failed set-up step did not run (its message above says what to do)');
  for (const r of results) {
    let verdict: string;
    if (r.skipped !== undefined) verdict = `skipped (${r.skipped})`;
    else if (r.code !== 0) verdict = `FAILED (exit ${r.code})`;
    else if (r.passed + r.failed === 0) verdict = 'FAILED (ran no tests)';
    else if (r.failed > 0) verdict = 'FAILED';
    else verdict = 'ok';
    if (r.skipped === undefined && (r.code !== 0 || r.passed + r.failed === 0)) ok = false;
    const pending = r.pending > 0 ? `, ${r.pending} pending` : '';
    // Worded unlike the final line so that a search for "N passed, N failed" finds only that one.
    console.log(`  ${r.name.padEnd(12)} passed ${String(r.passed).padStart(4)}  failed ${String(r.failed).padStart(3)}${pending}  ${r.seconds.padStart(7)} s  ${verdict}`);
  }
  console.log(`  total time ${secondsSince(started)} s`);
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  // A set-up step that failed counts once, so the closing line never reads as a clean run.
  const failed = results.reduce((sum, r) => sum + r.failed, 0) + phases.filter((phase) => phase.error !== undefined).length;
  console.log(`${passed} passed, ${failed} failed`);
  return ok && failed === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
