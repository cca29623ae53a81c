// Runs a mocha suite inside the extension host of a real VS Code (code-server), the test-electron
// contract, with the test build of the extension loaded: the integration lane runs its suite this
// way, the extension-host benchmarks theirs.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { startCodeServer, openWorkbench, VSCODE_VERSION_OF, ensureCodeServer, type CodeServerVersion } from './codeServer';
import { RESULTS_FILE_ENV } from './results';
import { SuiteLog } from './automationLog';
import { onTerminate, repoRoot, secondsSince } from './util';
import { integrationWorkspaceFiles, makeWorkspace, serviceUserSettings } from './workspace';

const GUARD_MS = 10 * 60_000;

/** Outcome of one version's run. */
export interface VersionResult {
  version: CodeServerVersion;
  code: number;
  seconds: string;
}

/** Files the run needs that the npm script builds first. */
export function requireBuilt(): { extensionPath: string; testsPath: string } {
  const root = repoRoot();
  const testsPath = path.join(root, 'out', 'test', 'integration', 'index.js');
  // The test build of the extension (esbuild.mjs): the product plus the suite's hooks, never shipped.
  const extensionPath = path.join(root, 'out', 'test-extension');
  const bundle = path.join(extensionPath, 'dist', 'extension.js');
  for (const file of [bundle, testsPath]) {
    if (!existsSync(file)) throw new Error(`${path.relative(root, file)} is missing: run "npm run build && npm run compile-tests" first`);
  }
  return { extensionPath, testsPath };
}

/** What else a suite run can be given (the benchmark runs its own suite in the extension host). */
export interface SuiteRunOptions {
  /** The suite module (test-electron contract: exports `run()`); default the integration suite. */
  testsPath?: string;
  /** The banner's first words; default "Integration". */
  title?: string;
  /** Sees every line the workbench logs (the extension host's console included). */
  onLog?: (type: string, message: string) => void;
  /** Where the suite writes its JSON summary (env AQ_RESULTS_FILE of the extension host). */
  resultsFile?: string;
}

/** Runs a suite inside the extension host of a code-server `version` with the extension loaded. */
export async function runVersion(
  version: CodeServerVersion,
  service: { url: string; applications: readonly { id: string; name: string }[] },
  options: SuiteRunOptions = {},
): Promise<VersionResult> {
  const label = VSCODE_VERSION_OF[version];
  const prefix = `[${label}] `;
  const started = Date.now();
  console.log(`\n=== ${options.title ?? 'Integration'}: VS Code ${label} (code-server ${version}) ===`);
  const built = requireBuilt();
  const extensionPath = built.extensionPath;
  const testsPath = options.testsPath ?? built.testsPath;
  await ensureCodeServer(version);
  const workspace = await makeWorkspace(integrationWorkspaceFiles());
  const serverLog: string[] = [];
  const consoleLog: string[] = [];
  const log = new SuiteLog((line) => console.log(`${prefix}${line}`));
  let server: Awaited<ReturnType<typeof startCodeServer>> | undefined;
  let opening: ReturnType<typeof openWorkbench> | undefined;
  let guard: NodeJS.Timeout | undefined;
  const cleanup = async (): Promise<void> => {
    await (await opening?.catch(() => undefined))?.close();
    await server?.close();
    await workspace.dispose();
  };
  const forgetCleanup = onTerminate(cleanup);
  try {
    const running = await startCodeServer({
      version,
      folder: workspace.folder,
      userSettings: serviceUserSettings(service),
      env: { AQ_SERVICE_URL: service.url, ...(options.resultsFile === undefined ? {} : { [RESULTS_FILE_ENV]: options.resultsFile }) },
      onOutput: (line) => serverLog.push(line),
      testPayload: true,
    });
    server = running;
    let settle: (code: number) => void = () => undefined;
    const exit = new Promise<number>((resolve) => { settle = resolve; });
    guard = setTimeout(() => {
      console.log(`${prefix}timed out after ${GUARD_MS / 60_000} min without a result`);
      settle(124);
    }, GUARD_MS);
    opening = openWorkbench(running.url, {
      folder: workspace.folder,
      extensionPath,
      testsPath,
      onLog: (type, message) => {
        options.onLog?.(type, message);
        log.add(type, message);
      },
      onExit: (code) => settle(code),
      onConsole: (type, text) => { if (type === 'error' || type === 'pageerror') consoleLog.push(`${type}: ${text}`); },
    });
    opening.catch((error: unknown) => {
      console.log(`${prefix}could not open the workbench: ${error instanceof Error ? error.message : String(error)}`);
      settle(1);
    });
    const code = await exit;
    // Test failures speak for themselves; the server's and browser's logs help when the suite never ran.
    if (code !== 0 && !log.suiteStarted) {
      console.log(`${prefix}--- the suite never started; workbench log (last 60 lines) ---`);
      for (const line of log.all.slice(-60)) console.log(`${prefix}${line}`);
      console.log(`${prefix}--- code-server output (last 40 lines) ---`);
      for (const line of serverLog.slice(-40)) console.log(`${prefix}${line}`);
      if (consoleLog.length > 0) {
        console.log(`${prefix}--- browser errors (last 20) ---`);
        for (const line of consoleLog.slice(-20)) console.log(`${prefix}${line}`);
      }
    }
    return { version, code, seconds: secondsSince(started) };
  } catch (error) {
    console.log(`${prefix}${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return { version, code: 1, seconds: secondsSince(started) };
  } finally {
    if (guard !== undefined) clearTimeout(guard);
    forgetCleanup();
    await cleanup();
  }
}
