// Launching the workbench under test: the reference service, a real VS Code (code-server) with the
// extension installed or loaded from source, a headless Chromium on it; and the mocha hooks of a
// suite that drives one. Env AQ_VSCODE_VERSION picks the version (runE2e.ts sets it).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startService, type ReferenceService, type ServiceOptions } from '../../../service/server';
import { isCodeServerVersion, openWorkbench, startCodeServer, VSCODE_VERSION_OF, type CodeServerVersion } from '../../launch/codeServer';
import { onTerminate, repoRoot, waitFor } from '../../launch/util';
import { makeWorkspace, serviceUserSettings } from '../../launch/workspace';
import { activationCount, captureFailure, extensionHostLog } from './diagnostics';
import { activityBarItem } from './views';

/** A workbench under test, with the reference service it talks to. */
export interface Workbench {
  page: Page;
  context: BrowserContext;
  /** The reference service (in this process); `keyFor(id)` gives valid keys, `requests` what it received. */
  service: ReferenceService;
  /** code-server's address. */
  serverUrl: string;
  /** The workspace folder the window shows. */
  folder: string;
  version: CodeServerVersion;
  /** "1.100.3" or "1.139.1". */
  vscodeVersion: string;
  /** The server's user-data-dir (settings, logs). */
  userDataDir: string;
  /** Everything the server printed (diagnostics). */
  serverOutput(): string;
  /** Browser console errors seen so far (diagnostics). */
  browserErrors: string[];
  /** Closes the browser, the server and (if the harness started it) the service, and removes temp folders. */
  close(): Promise<void>;
}

/** Options for {@link launchWorkbench}. */
export interface LaunchOptions {
  /** Merged over the defaults (baseUrl and every application of the service). */
  userSettings?: Readonly<Record<string, unknown>>;
  /** Remote machine settings (`<user-data-dir>/Machine/settings.json`). */
  machineSettings?: Readonly<Record<string, unknown>>;
  /** Written into a fresh workspace folder (relative path → text); a small default set otherwise. */
  files?: Readonly<Record<string, string>>;
  /** Use this service instead of starting one (it is then not closed by `close()`). */
  service?: ReferenceService;
  /** Options for the service the harness starts (default `{ paceMs: 5, quiet: true }`). */
  serviceOptions?: ServiceOptions;
  /** Defaults to env AQ_VSCODE_VERSION, else 4.100.3. */
  version?: CodeServerVersion;
  /** Extra environment for the server and its extension host. */
  env?: Readonly<Record<string, string>>;
  /**
   * How the extension is loaded. "installed" (default): linked into the server's extensions folder,
   * as a user has it; notification toasts show in every version. "development": from the URL
   * payload (Extension Development Host); on 1.139 this needs the smoke-test driver, which hides
   * notification toasts (they then only reach the notification center).
   */
  mode?: 'installed' | 'development';
  /** Installs this VSIX (code-server's `--install-extension`) instead of linking the working tree. */
  vsix?: string;
  /** Workspace Trust on, the folder untrusted (see {@link StartCodeServerOptions.workspaceTrust}). */
  workspaceTrust?: boolean;
  /** More extension folders installed beside it (see {@link StartCodeServerOptions.alsoInstall}). */
  alsoInstall?: readonly string[];
  /** Links this folder as the extension instead of the working tree ("installed" mode; a bench's copy of it, see bench/floor.ts). */
  extensionFolder?: string;
}

/** The files a workspace gets when the test names none. */
export const DEFAULT_FILES: Readonly<Record<string, string>> = {
  'src/sample.ts': [
    '// A small sample to query.',
    'export function fibonacci(n: number): number {',
    '  if (n < 2) return n;',
    '  return fibonacci(n - 1) + fibonacci(n - 2);',
    '}',
    '',
    'export const greeting = "Grüße, 世界";',
    '',
  ].join('\n'),
  'README.md': '# Sample\n\nA workspace for the end-to-end tests.\n',
};

/** The version the e2e lane runs against: env AQ_VSCODE_VERSION (code-server or VS Code number), default 4.100.3. */
export function e2eVersion(): CodeServerVersion {
  const raw = process.env.AQ_VSCODE_VERSION;
  if (raw === undefined || raw === '') return '4.100.3';
  if (isCodeServerVersion(raw)) return raw;
  const byVscode = (Object.keys(VSCODE_VERSION_OF) as CodeServerVersion[]).find((v) => VSCODE_VERSION_OF[v] === raw);
  if (byVscode === undefined) throw new Error(`AQ_VSCODE_VERSION=${raw} is not a supported version`);
  return byVscode;
}

/** Starts the service (unless given), code-server and Chromium, and waits until the workbench shows the extension. */
export async function launchWorkbench(options: LaunchOptions = {}): Promise<Workbench> {
  const root = repoRoot();
  if (!existsSync(path.join(root, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run "npm run build" first');
  const version = options.version ?? e2eVersion();
  const development = options.mode === 'development';
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async (): Promise<void> => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
    cleanups.length = 0;
    forgetCleanup();
  };
  // Ctrl+C or the lane's guard ending this process: still close the browser and remove temp folders.
  const forgetCleanup = onTerminate(cleanup);
  try {
    let service = options.service;
    if (service === undefined) {
      const started = await startService({ paceMs: 5, quiet: true, ...options.serviceOptions });
      cleanups.push(() => started.close());
      service = started;
    }
    const workspace = await makeWorkspace(options.files ?? DEFAULT_FILES, 'aq-e2e-');
    cleanups.push(() => workspace.dispose());
    const server = await startCodeServer({
      version,
      folder: workspace.folder,
      userSettings: { ...serviceUserSettings(service), ...options.userSettings },
      machineSettings: options.machineSettings,
      env: { AQ_SERVICE_URL: service.url, ...options.env },
      ...(options.workspaceTrust === true ? { workspaceTrust: true } : {}),
      ...(options.alsoInstall !== undefined ? { alsoInstall: options.alsoInstall } : {}),
      ...(development ? { testPayload: true } : options.vsix !== undefined ? { installVsix: options.vsix } : { installExtension: options.extensionFolder ?? root }),
    });
    cleanups.push(() => server.close());
    const browserErrors: string[] = [];
    const opened = await openWorkbench(server.url, {
      folder: workspace.folder,
      ...(development ? { extensionPath: root } : {}),
      onConsole: (type, text) => {
        if (type === 'error' || type === 'pageerror') browserErrors.push(`${type}: ${text}`);
      },
    });
    cleanups.push(() => opened.close());
    const workbench: Workbench = {
      page: opened.page,
      context: opened.context,
      service,
      serverUrl: server.url,
      folder: workspace.folder,
      version,
      vscodeVersion: VSCODE_VERSION_OF[version],
      userDataDir: server.userDataDir,
      serverOutput: () => server.output(),
      browserErrors,
      close: cleanup,
    };
    await waitForWorkbenchReady(workbench);
    return workbench;
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Waits until the workbench is rendered, the extension host runs and the extension's contributions are there. */
export async function waitForWorkbenchReady(workbench: Workbench): Promise<void> {
  const { page } = workbench;
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120_000 });
  await waitFor('the remote extension host to start', () => extensionHostLog(workbench) !== undefined, 120_000, 250);
  await activityBarItem(page, 'Application Query').waitFor({ state: 'visible', timeout: 120_000 });
  await page.locator('.part.editor').waitFor({ state: 'visible', timeout: 60_000 });
}

/**
 * Reloads the window, as Developer: Reload Window does, and waits until it is ready again. Returns
 * how many times the extension had been activated before (for `waitForActivation`: the new window
 * runs a new extension host, and the old host's log still says "activated").
 */
export async function reloadWindow(workbench: Workbench): Promise<number> {
  const before = activationCount(workbench);
  await workbench.page.reload();
  await waitForWorkbenchReady(workbench);
  return before;
}

/** What a suite adds to {@link useWorkbench}'s hooks. */
export interface SuiteHooks {
  /** Runs before each test (e.g. {@link clearNotifications}). */
  beforeEach?: (workbench: Workbench) => Promise<void>;
  /** Runs after the workbench closed (e.g. closing a capture server the launch started). */
  after?: () => Promise<void>;
}

/**
 * Registers the mocha hooks of a suite that drives one workbench: `launch` before the tests (it may
 * also prepare keys and views), a failure report after each failed test, closing at the end.
 * Returns the accessor the tests use; it throws if the launch failed.
 */
export function useWorkbench(launch: () => Promise<Workbench>, hooks: SuiteHooks = {}): () => Workbench {
  let workbench: Workbench | undefined;
  before(async function () {
    this.timeout(600_000);
    workbench = await launch();
  });
  const each = hooks.beforeEach;
  if (each !== undefined) {
    beforeEach(async () => {
      if (workbench !== undefined) await each(workbench);
    });
  }
  afterEach(async function () {
    await captureFailure(this.currentTest, workbench);
  });
  after(async () => {
    await workbench?.close();
    await hooks.after?.();
  });
  return () => {
    if (workbench === undefined) throw new Error('the workbench did not launch (see the "before all" hook)');
    return workbench;
  };
}
