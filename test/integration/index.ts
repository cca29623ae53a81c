// The integration suite's entry point, loaded by the extension host (code-server or desktop VS Code
// through @vscode/test-electron): the host calls `run()` and reports its outcome as the exit code.
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { SUITE_START_MARKER } from '../launch/automationLog';
import ResultsReporter from '../launch/reporter';

function testFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files.push(...testFiles(full));
    else if (name.endsWith('.test.js')) files.push(full);
  }
  return files;
}

/**
 * Runs every `*.test.js` next to this file (and below it) with mocha; rejects when a test fails.
 * Env `AQ_TEST_GREP` (a regular expression) runs only the matching tests. The report is mocha's spec
 * report; env AQ_RESULTS_FILE (set by the launcher) also gets a JSON summary (test/launch/results.ts).
 */
export function run(): Promise<void> {
  const grep = process.env.AQ_TEST_GREP;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, reporter: ResultsReporter, color: false, ...(grep ? { grep: new RegExp(grep) } : {}) });
  const files = testFiles(__dirname);
  // The launchers print the workbench's log only from this line on.
  console.log(SUITE_START_MARKER);
  for (const file of files) mocha.addFile(file);
  return new Promise((resolve, reject) => {
    if (files.length === 0) {
      reject(new Error(`no integration tests found under ${__dirname}`));
      return;
    }
    try {
      mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
        else resolve();
      });
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
