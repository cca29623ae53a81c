// `npm test` (after `pretest` built, type-checked, linted and compiled): first the set-up the chosen
// lanes need (system packages, code-server installs), then every lane in order, each in its own
// process with its output streamed, then a summary per lane and phase and one final line
// "N passed, N failed". Exits 1 if set-up failed, a lane failed or a lane ran no tests.
// Env AQ_LANES (e.g. "unit,browser") runs only those lanes; AQ_VSCODE_VERSIONS narrows the versions.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ensureCodeServer, selectVersions, type CodeServerVersion } from './launch/codeServer';
import { ensureSystemPackages, type SystemPackage } from './launch/system';
import { cleanEnv, killGroup, killGroupOnExit, lineSplitter, onTerminate, repoRoot, secondsSince } from './launch/util';

/** One lane: a command, and how its result is counted. */
interface Lane {
  name: string;
  args: string[];
  /** Why the lane is skipped, if it is. */
  skip?: string;
  /** Counts as one check (passed when it exits 0) instead of counting mocha's tests. */
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
  /** Mocha's report of each failure (the lines after "N failing"), repeated in the summary. */
  failures: string[];
}

/** How many lines of a lane's failure report the summary repeats. */
const FAILURE_LINES = 80;

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
  return [
    { name: 'unit', args: [mocha, '--config', '.mocharc.json'], needs: {} },
    {
      name: 'browser',
      args: [mocha, '--no-config', '--reporter', 'spec', '--timeout', '60000', '--exit', 'out/test/browser/**/*.test.js'],
      skip: hasTests(path.join(root, 'out', 'test', 'browser')) ? undefined : 'no out/test/browser/**/*.test.js',
      needs: { chromium: true },
    },
    { name: 'integration', args: ['out/test/launch/runIntegration.js'], needs: { chromium: true, codeServer: 'all' } },
    { name: 'e2e', args: ['out/test/launch/runE2e.js'], needs: { chromium: true, codeServer: 'all' } },
    // After the lanes that use the development build: packaging rebuilds dist/ for production.
    { name: 'package', args: [mocha, '--no-config', '--reporter', 'spec', '--timeout', '600000', '--exit', 'out/test/package/**/*.test.js'], needs: { chromium: true, codeServer: '4.100.3' } },
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

function runLane(root: string, lane: Lane): Promise<LaneResult> {
  const started = Date.now();
  const counts = { passed: 0, failed: 0, pending: 0 };
  const failures: string[] = [];
  let reporting = false;
  let frames = 0;
  console.log(`\n######## ${lane.name} ########`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, lane.args, { cwd: root, env: cleanEnv(lane.env ?? {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const forget = killGroupOnExit(child);
    const forgetStep = onTerminate(() => killGroup(child));
    const onLine = lineSplitter((line) => {
      console.log(line);
      // mocha's summary lines, possibly prefixed (e.g. "[1.100.3]   12 passing (3s)").
      const match = /(?:^|\s)(\d+) (passing|failing|pending)\b/.exec(line);
      // A CI log keeps only its end: the failures are repeated in the summary, so they are never lost.
      // The report ends where the next run starts (e2e runs one VS Code version after another).
      if (match?.[2] === 'passing' || line.includes('✔') || /^=== /.test(line)) reporting = false;
      // Two stack frames of each failure say where; the rest would crowd out the next failure.
      frames = /^(\[[^\]]+\])?\s+at /.test(line) ? frames + 1 : 0;
      if (reporting && failures.length < FAILURE_LINES && line.trim() !== '' && frames <= 2) failures.push(line);
      if (match?.[2] === 'failing') reporting = true;
      if (match !== null) {
        const n = Number(match[1]);
        if (match[2] === 'passing') counts.passed += n;
        else if (match[2] === 'failing') counts.failed += n;
        else counts.pending += n;
      }
    });
    child.stdout.on('data', (chunk: Buffer) => onLine(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => onLine(chunk.toString('utf8')));
    const finish = (code: number): void => {
      forget();
      forgetStep();
      onLine(null);
      if (lane.singleCheck === true) {
        counts.passed = code === 0 ? 1 : 0;
        counts.failed = code === 0 ? 0 : 1;
      } else if (code !== 0 && counts.failed === 0) {
        // A lane that broke before mocha could report still counts as a failure.
        counts.failed = 1;
      }
      resolve({ name: lane.name, ...counts, code, seconds: secondsSince(started), failures });
    };
    child.once('error', (error) => {
      console.log(`could not start the ${lane.name} lane: ${error.message}`);
      finish(1);
    });
    child.once('close', (code, signal) => finish(code ?? (signal !== null ? 1 : 0)));
  });
}

/** A set-up step before the lanes, timed like one. */
interface Phase {
  name: string;
  seconds: string;
  error?: string;
}

/**
 * Everything the chosen lanes need beyond `npm install`, done once before any lane starts so that a
 * missing package stops the run at once with what to do, and the installs are timed on their own.
 */
async function setUp(chosen: readonly Lane[]): Promise<Phase[]> {
  const phases: Phase[] = [];
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
    if (!ok) return phases;
  }
  for (const version of [...versions].sort()) {
    const ok = await step(`code-server ${version}`, async () => {
      const { command } = await ensureCodeServer(version);
      console.log(`code-server ${version} is ready (${command === process.execPath ? 'Node ' + process.versions.node : 'Node 24 from .cache/node24'})`);
    });
    if (!ok) return phases;
  }
  return phases;
}

async function main(): Promise<number> {
  const root = repoRoot();
  const started = Date.now();
  const only = (process.env.AQ_LANES ?? '').split(/[\s,]+/).filter((name) => name !== '');
  const chosen = lanes(root).filter((lane) => only.length === 0 || only.includes(lane.name));
  const phases = await setUp(chosen.filter((lane) => lane.skip === undefined));
  const setUpFailed = phases.some((phase) => phase.error !== undefined);
  const results: LaneResult[] = [];
  for (const lane of setUpFailed ? [] : chosen) {
    if (lane.skip !== undefined) {
      console.log(`\n######## ${lane.name}: skipped (${lane.skip}) ########`);
      results.push({ name: lane.name, passed: 0, failed: 0, pending: 0, code: 0, seconds: '0.0', skipped: lane.skip, failures: [] });
      continue;
    }
    results.push(await runLane(root, lane));
  }

  for (const r of results.filter((result) => result.failures.length > 0)) {
    console.log(`\n======== What failed in ${r.name} ========`);
    for (const line of r.failures) console.log(line);
  }
  console.log('\n======== Summary ========');
  let ok = !setUpFailed;
  for (const phase of phases) {
    console.log(`  set-up: ${phase.name.padEnd(20)} ${phase.seconds.padStart(7)} s  ${phase.error === undefined ? 'ok' : `FAILED: ${phase.error}`}`);
  }
  if (setUpFailed) console.log('  no lane ran: the set-up above failed (its message says what to do)');
  for (const r of results) {
    let verdict: string;
    if (r.skipped !== undefined) verdict = `skipped (${r.skipped})`;
    else if (r.code !== 0) verdict = `FAILED (exit ${r.code})`;
    else if (r.passed + r.failed === 0) verdict = 'FAILED (ran no tests)';
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
