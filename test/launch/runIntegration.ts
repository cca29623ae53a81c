// The integration lane offline: the reference service in this process, then for each VS Code version
// a code-server whose extension host runs out/test/integration/index.js (the test-electron contract).
// Env AQ_VSCODE_VERSIONS narrows the versions ("4.139.1", "1.100", ...). Each version's suite leaves
// a JSON summary; the lane's, merged, goes to env AQ_RESULTS_FILE (default
// test-results/summary/integration.json).
import { rmSync } from 'node:fs';
import { startService } from '../../service/server';
import { brokenRun, mergeSummaries, partFile, readSummary, RESULTS_FILE_ENV, summaryFile, writeSummary, type ResultSummary } from './results';
import { selectVersions, VSCODE_VERSION_OF } from './codeServer';
import { requireBuilt, runVersion, type VersionResult } from './hostSuite';
import { LOAD_APPLICATIONS } from './workspace';

async function main(): Promise<number> {
  const versions = selectVersions(process.env.AQ_VSCODE_VERSIONS);
  requireBuilt();
  const laneFile = process.env[RESULTS_FILE_ENV] || summaryFile('integration');
  const service = await startService({ paceMs: 5, quiet: true, loadApplications: LOAD_APPLICATIONS });
  const url = service.url.replace(/\/+$/, '');
  const results: VersionResult[] = [];
  const summaries: { label: string; summary: ResultSummary }[] = [];
  try {
    for (const version of versions) {
      const resultsFile = partFile(laneFile, VSCODE_VERSION_OF[version]);
      rmSync(resultsFile, { force: true });
      const result = await runVersion(version, { url, applications: service.applications }, { resultsFile });
      results.push(result);
      const summary = readSummary(resultsFile) ?? brokenRun('the integration suite', `exited with code ${result.code} before mocha reported (see the log above)`);
      summaries.push({ label: VSCODE_VERSION_OF[version], summary });
    }
  } finally {
    await service.close();
    writeSummary(laneFile, mergeSummaries(summaries));
  }
  console.log('\nIntegration summary:');
  for (const r of results) console.log(`  VS Code ${VSCODE_VERSION_OF[r.version]}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds} s`);
  return results.every((r) => r.code === 0) ? 0 : 1;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
