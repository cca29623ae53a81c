// `npm test` (after `pretest` built, type-checked, linted and compiled): every lane in order, each
// in its own process with its output streamed, then a summary per lane and one final line
// "N passed, N failed". Exits 1 if a lane failed or ran no tests.
// Env AQ_LANES (e.g. "unit,browser") runs only those lanes.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
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
}

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
    { name: 'unit', args: [mocha, '--config', '.mocharc.json'] },
    {
      name: 'browser',
      args: [mocha, '--no-config', '--reporter', 'spec', '--timeout', '60000', '--exit', 'out/test/browser/**/*.test.js'],
      skip: hasTests(path.join(root, 'out', 'test', 'browser')) ? undefined : 'no out/test/browser/**/*.test.js',
    },
    { name: 'integration', args: ['out/test/launch/runIntegration.js'] },
    { name: 'e2e', args: ['out/test/launch/runE2e.js'] },
    // After the lanes that use the development build: packaging rebuilds dist/ for production.
    { name: 'package', args: [mocha, '--no-config', '--reporter', 'spec', '--timeout', '600000', '--exit', 'out/test/package/**/*.test.js'] },
    {
      name: 'demo',
      args: ['out/scripts/demo.js'],
      singleCheck: true,
      env: { AQ_DEMO_EXIT_AFTER_READY: '1', AQ_DEMO_PORT: '0', AQ_DEMO_SERVICE_PORT: '0' },
      skip: existsSync(path.join(root, 'out', 'scripts', 'demo.js')) ? undefined : 'out/scripts/demo.js is missing',
    },
  ];
}

function runLane(root: string, lane: Lane): Promise<LaneResult> {
  const started = Date.now();
  const counts = { passed: 0, failed: 0, pending: 0 };
  console.log(`\n######## ${lane.name} ########`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, lane.args, { cwd: root, env: cleanEnv(lane.env ?? {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const forget = killGroupOnExit(child);
    const forgetStep = onTerminate(() => killGroup(child));
    const onLine = lineSplitter((line) => {
      console.log(line);
      // mocha's summary lines, possibly prefixed (e.g. "[1.100.3]   12 passing (3s)").
      const match = /(?:^|\s)(\d+) (passing|failing|pending)\b/.exec(line);
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
      resolve({ name: lane.name, ...counts, code, seconds: secondsSince(started) });
    };
    child.once('error', (error) => {
      console.log(`could not start the ${lane.name} lane: ${error.message}`);
      finish(1);
    });
    child.once('close', (code, signal) => finish(code ?? (signal !== null ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const root = repoRoot();
  const started = Date.now();
  const only = (process.env.AQ_LANES ?? '').split(/[\s,]+/).filter((name) => name !== '');
  const results: LaneResult[] = [];
  for (const lane of lanes(root)) {
    if (only.length > 0 && !only.includes(lane.name)) continue;
    if (lane.skip !== undefined) {
      console.log(`\n######## ${lane.name}: skipped (${lane.skip}) ########`);
      results.push({ name: lane.name, passed: 0, failed: 0, pending: 0, code: 0, seconds: '0.0', skipped: lane.skip });
      continue;
    }
    results.push(await runLane(root, lane));
  }

  console.log('\n======== Summary ========');
  let ok = true;
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
  const failed = results.reduce((sum, r) => sum + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  return ok && failed === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
