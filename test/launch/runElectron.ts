// The same integration suite in desktop VS Code through @vscode/test-electron, for machines that
// can download VS Code. Settings reach it through a throwaway --user-data-dir, the service address
// through the environment, exactly as the code-server launcher does it.
// Env AQ_VSCODE_VERSIONS narrows the versions (as in runIntegration); AQ_ELECTRON_VERSION=stable
// (or any VS Code version) replaces them with one desktop version.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { startService } from '../../service/server';
import { QUIET_SETTINGS, selectVersions, VSCODE_VERSION_OF } from './codeServer';
import { requireBuilt } from './hostSuite';
import { secondsSince } from './util';
import { integrationWorkspaceFiles, LOAD_APPLICATIONS, makeWorkspace, serviceUserSettings } from './workspace';

function desktopVersions(): string[] {
  const single = process.env.AQ_ELECTRON_VERSION;
  if (single !== undefined && single !== '') return [single];
  return selectVersions(process.env.AQ_VSCODE_VERSIONS).map((v) => VSCODE_VERSION_OF[v]);
}

/** Downloads (or finds in .vscode-test/) desktop VS Code; undefined, after a clear message, when it cannot. */
async function download(version: string): Promise<string | undefined> {
  try {
    return await downloadAndUnzipVSCode({ version });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.log([
      `Could not download desktop VS Code ${version}: ${reason}`,
      'This launcher needs network access to update.code.visualstudio.com (and a display or xvfb on Linux).',
      'Offline, the same suite runs in a real VS Code through code-server: npm run test:integration',
    ].join('\n'));
    return undefined;
  }
}

async function runVersion(version: string, service: { url: string; applications: readonly { id: string; name: string }[] }): Promise<number> {
  console.log(`\n=== Integration (desktop, @vscode/test-electron): VS Code ${version} ===`);
  const { extensionPath, testsPath } = requireBuilt();
  const executable = await download(version);
  if (executable === undefined) return 2;
  const workspace = await makeWorkspace(integrationWorkspaceFiles());
  const profile = await mkdtemp(path.join(os.tmpdir(), 'aq-electron-'));
  try {
    const userDataDir = path.join(profile, 'ud');
    await mkdir(path.join(userDataDir, 'User'), { recursive: true });
    await mkdir(path.join(profile, 'ext'), { recursive: true });
    await writeFile(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...serviceUserSettings(service) }, null, 2));
    if (process.platform === 'linux' && process.env.DISPLAY === undefined && process.env.WAYLAND_DISPLAY === undefined) {
      console.log('(no DISPLAY: desktop VS Code needs a display; run under xvfb-run if it fails to start)');
    }
    return await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: extensionPath,
      extensionTestsPath: testsPath,
      launchArgs: [workspace.folder, '--user-data-dir', userDataDir, '--extensions-dir', path.join(profile, 'ext'), '--disable-extensions', '--disable-telemetry'],
      extensionTestsEnv: { AQ_SERVICE_URL: service.url },
    });
  } catch (error) {
    console.log(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    await workspace.dispose();
  }
}

async function main(): Promise<number> {
  requireBuilt();
  const versions = desktopVersions();
  const service = await startService({ paceMs: 5, quiet: true, loadApplications: LOAD_APPLICATIONS });
  const results: { version: string; code: number; seconds: string }[] = [];
  try {
    for (const version of versions) {
      const started = Date.now();
      const code = await runVersion(version, { url: service.url, applications: service.applications });
      results.push({ version, code, seconds: secondsSince(started) });
    }
  } finally {
    await service.close();
  }
  console.log('\nDesktop integration summary:');
  for (const r of results) {
    const outcome = r.code === 0 ? 'passed' : r.code === 2 ? 'NOT RUN (VS Code could not be downloaded)' : `FAILED (exit ${r.code})`;
    console.log(`  VS Code ${r.version}: ${outcome} in ${r.seconds} s`);
  }
  return results.every((r) => r.code === 0) ? 0 : 1;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exit(1);
  });
}
