// The end-to-end lane: the e2e mocha suite (plain Node, Playwright driving a real workbench) once per
// VS Code version, each in its own process so a failure on one version does not hide the other.
// Env AQ_VSCODE_VERSIONS narrows the versions; extra arguments go to mocha (e.g. --grep smoke).
// Each version's run leaves a JSON summary; the lane's, merged, goes to env AQ_RESULTS_FILE (default
// test-results/summary/e2e.json).
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { ensureCodeServer, selectVersions, VSCODE_VERSION_OF, type CodeServerVersion } from './codeServer';
import { brokenRun, mergeSummaries, partFile, readSummary, RESULTS_FILE_ENV, summaryFile, writeSummary, type ResultSummary } from './results';
import { cleanEnv, killGroup, killGroupOnExit, lineSplitter, onTerminate, repoRoot, secondsSince } from './util';

/** A stuck suite ends here; generous, since a busy machine runs the growing suite slower (CI's own limit is far above). */
const GUARD_MS = 25 * 60_000;

/** Runs the suite against one version; its summary goes to `resultsFile`. */
function runSuite(version: CodeServerVersion, mochaArgs: readonly string[], resultsFile: string): Promise<number> {
  const root = repoRoot();
  const prefix = `[${VSCODE_VERSION_OF[version]}] `;
  const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const reporter = path.join(root, 'out', 'test', 'launch', 'reporter.js');
  const args = [mocha, '--no-config', '--reporter', reporter, '--timeout', '180000', '--exit', ...mochaArgs, 'out/test/e2e/**/*.test.js'];
  return new Promise((resolve) => {
    const env = cleanEnv({ AQ_VSCODE_VERSION: version, [RESULTS_FILE_ENV]: resultsFile });
    const child = spawn(process.execPath, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const forget = killGroupOnExit(child);
    const forgetStep = onTerminate(() => killGroup(child));
    const print = lineSplitter((line) => console.log(`${prefix}${line}`));
    child.stdout.on('data', (chunk: Buffer) => print(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => print(chunk.toString('utf8')));
    const guard = setTimeout(() => {
      console.log(`${prefix}timed out after ${GUARD_MS / 60_000} min; stopping the suite`);
      void killGroup(child);
    }, GUARD_MS);
    child.once('error', (error) => {
      clearTimeout(guard);
      console.log(`${prefix}could not start mocha: ${error.message}`);
      resolve(1);
    });
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      forget();
      forgetStep();
      print(null);
      resolve(code ?? (signal !== null ? 1 : 0));
    });
  });
}

async function main(): Promise<number> {
  const root = repoRoot();
  for (const file of ['dist/extension.js', 'out/test/support/workbench/launch.js', 'out/test/launch/reporter.js']) {
    if (!existsSync(path.join(root, file))) throw new Error(`${file} is missing: run "npm run build && npm run compile-tests" first`);
  }
  const versions = selectVersions(process.env.AQ_VSCODE_VERSIONS);
  const laneFile = process.env[RESULTS_FILE_ENV] || summaryFile('e2e');
  const results: { version: CodeServerVersion; code: number; seconds: string; summary: ResultSummary }[] = [];
  for (const version of versions) {
    console.log(`\n=== End-to-end: VS Code ${VSCODE_VERSION_OF[version]} (code-server ${version}) ===`);
    const started = Date.now();
    const file = partFile(laneFile, VSCODE_VERSION_OF[version]);
    rmSync(file, { force: true });
    let code: number;
    let broke: string | undefined;
    try {
      // Installing here keeps a first-run install out of the suite's own timeouts.
      await ensureCodeServer(version);
      code = await runSuite(version, process.argv.slice(2), file);
    } catch (error) {
      broke = error instanceof Error ? error.message : String(error);
      console.log(broke);
      code = 1;
    }
    const summary = readSummary(file) ?? brokenRun('the e2e suite', broke ?? `exited with code ${code} before mocha reported`);
    results.push({ version, code, seconds: secondsSince(started), summary });
  }
  writeSummary(laneFile, mergeSummaries(results.map((r) => ({ label: VSCODE_VERSION_OF[r.version], summary: r.summary }))));
  console.log('\nEnd-to-end summary:');
  for (const r of results) console.log(`  VS Code ${VSCODE_VERSION_OF[r.version]}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds} s`);
  return results.every((r) => r.code === 0) ? 0 : 1;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
