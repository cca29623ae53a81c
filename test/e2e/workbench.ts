// The end-to-end harness: a real VS Code (code-server) with the extension loaded from source, a real
// headless Chromium, and helpers that drive it the way a person does (palette, quick picks, context
// menu, notifications, output, webviews). Env AQ_VSCODE_VERSION picks the version (runE2e.ts sets it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import { startService, type ReferenceService, type ServiceOptions } from '../../service/server';
import { isCodeServerVersion, openWorkbench, startCodeServer, VSCODE_VERSION_OF, type CodeServerVersion } from '../launch/codeServer';
import { delay, onTerminate, repoRoot, waitFor } from '../launch/util';
import { makeWorkspace, serviceUserSettings } from '../launch/workspace';

export type { ReferenceService } from '../../service/server';

/** The extension's id (publisher.name). */
export const EXTENSION_ID = 'application-query.application-query';

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
      ...(development ? { testPayload: true } : options.vsix !== undefined ? { installVsix: options.vsix } : { installExtension: root }),
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

/** Clears every notification: toasts of earlier tests stay while the headless window has no focus, and only three show at once. */
export async function clearNotifications(workbench: Pick<Workbench, 'page'>): Promise<void> {
  await runCommand(workbench.page, 'Notifications: Clear All Notifications');
}

/** The activity bar entry of a view container, by its title. */
export function activityBarItem(page: Page, title: string): Locator {
  return page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${cssString(title)}"]`).first();
}

/** Waits until the workbench is rendered, the extension host runs and the extension's contributions are there. */
export async function waitForWorkbenchReady(workbench: Workbench): Promise<void> {
  const { page } = workbench;
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120_000 });
  await waitFor('the remote extension host to start', () => extensionHostLog(workbench) !== undefined, 120_000, 250);
  await activityBarItem(page, 'Application Query').waitFor({ state: 'visible', timeout: 120_000 });
  await page.locator('.part.editor').waitFor({ state: 'visible', timeout: 60_000 });
}

/** The remote extension host's log text, or undefined while it has not started. */
export function extensionHostLog(workbench: Pick<Workbench, 'userDataDir'>): string | undefined {
  const logs = path.join(workbench.userDataDir, 'logs');
  if (!existsSync(logs)) return undefined;
  const texts: string[] = [];
  for (const session of readdirSync(logs)) {
    const sessionDir = path.join(logs, session);
    let hosts: string[];
    try {
      hosts = readdirSync(sessionDir).filter((name) => name.startsWith('exthost'));
    } catch {
      continue;
    }
    for (const host of hosts) {
      const file = path.join(sessionDir, host, 'remoteexthost.log');
      if (existsSync(file)) texts.push(readFileSync(file, 'utf8'));
    }
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** Whether the extension host has activated this extension (read from its log; no UI involved). */
export function isExtensionActivated(workbench: Pick<Workbench, 'userDataDir'>): boolean {
  return extensionHostLog(workbench)?.includes(`_doActivateExtension ${EXTENSION_ID}`) === true;
}

/** Waits until the extension is activated (something must trigger it: a command, its view). */
export async function waitForActivation(workbench: Pick<Workbench, 'userDataDir'>, timeoutMs = 60_000): Promise<void> {
  await waitFor(`${EXTENSION_ID} to activate`, () => isExtensionActivated(workbench), timeoutMs, 250);
}

/** Opens a view container from the activity bar (unless it is already showing) and returns the side bar. */
export async function openViewContainer(page: Page, title: string): Promise<Locator> {
  const item = activityBarItem(page, title);
  await item.waitFor({ state: 'visible' });
  const tab = page.locator('.part.activitybar li.action-item').filter({ has: page.locator(`a.action-label[aria-label^="${cssString(title)}"]`) }).first();
  const sidebar = page.locator('.part.sidebar');
  const showing = async (): Promise<boolean> => (await tab.getAttribute('class'))?.split(/\s+/).includes('checked') === true && (await sidebar.isVisible());
  // Clicking the entry of the container that is showing would close the side bar, so click only
  // while it is not showing, and again if a click was lost (e.g. while the window restores).
  let lastClick = 0;
  await waitFor(`the "${title}" view container to show`, async () => {
    if (await showing()) return true;
    if (Date.now() - lastClick > 5000) {
      lastClick = Date.now();
      await item.click({ timeout: 5000 });
    }
    return false;
  }, 30_000, 300);
  return sidebar;
}

/** The header of a view in the side bar (e.g. "Chat", "Applications"). */
export function viewHeader(page: Page, name: string): Locator {
  return page.locator('.part.sidebar .pane-header').filter({ has: page.locator('h3.title', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`, 'i') }) }).first();
}

// ---------------------------------------------------------------------------------------------
// Quick input (command palette, quick picks, input boxes)

const QUICK_INPUT = '.quick-input-widget';

/** The visible quick input widget. */
export function quickInput(page: Page): Locator {
  return page.locator(QUICK_INPUT).filter({ visible: true }).first();
}

function quickInputBox(page: Page): Locator {
  return quickInput(page).locator('.quick-input-box input').first();
}

/** The rows of the open quick pick. */
export function quickPickRows(page: Page): Locator {
  return quickInput(page).locator('.quick-input-list .monaco-list-row');
}

/** Labels of the rows the open quick pick shows right now. */
export async function quickPickLabels(page: Page): Promise<string[]> {
  const labels = await quickPickRows(page).locator('.quick-input-list-row .label-name').allTextContents();
  return labels.map(normalizeLabel);
}

/** Whitespace collapsed and "..." written as "…", so titles compare however they were typed. */
export function normalizeLabel(text: string): string {
  return text.replace(/\.\.\./g, '…').replace(/\s+/g, ' ').trim();
}

async function closeQuickInput(page: Page): Promise<void> {
  for (let i = 0; i < 3 && (await quickInput(page).isVisible()); i++) {
    await page.keyboard.press('Escape');
    await delay(150);
  }
}

/** Moves keyboard focus out of a webview (whose frame would swallow workbench keybindings). */
async function focusWorkbench(page: Page): Promise<void> {
  await page.evaluate(() => {
    const active = document.activeElement;
    if (active instanceof HTMLElement && active.tagName === 'IFRAME') active.blur();
  });
}

async function openPalette(page: Page, prefix: string): Promise<void> {
  const box = quickInputBox(page);
  let problem = 'it did not open';
  // Something taking the focus (a webview finishing its load, say) closes the palette; try again.
  for (const key of ['F1', 'Control+Shift+P', 'F1', 'Control+Shift+P']) {
    await closeQuickInput(page);
    await focusWorkbench(page);
    await page.keyboard.press(key);
    if (!(await quickInput(page).waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false))) continue;
    try {
      // Typing key by key loses characters on a busy machine; fill sets the value in one step.
      await box.fill(prefix, { timeout: 5000 });
      await waitFor('the palette to take the text', async () => (await box.inputValue({ timeout: 1000 })) === prefix, 5000, 100);
      return;
    } catch (error) {
      problem = error instanceof Error ? error.message.split('\n')[0] : String(error);
    }
  }
  const shot = await screenshot(page, 'palette-did-not-open').catch(() => 'no screenshot');
  throw new Error(`the command palette did not take "${prefix}": ${problem} (${shot})`);
}

/** Rows whose label equals `label` (ellipsis and whitespace normalised), or whose label is "<Category>: label". */
async function findRow(page: Page, label: string, allowCategory: boolean): Promise<Locator | undefined> {
  const wanted = normalizeLabel(label);
  const rows = quickPickRows(page);
  const count = await rows.count();
  let categoryMatch: Locator | undefined;
  for (let i = 0; i < count; i++) {
    const row = rows.nth(i);
    const text = await row.locator('.quick-input-list-row .label-name').first().textContent({ timeout: 1000 }).catch(() => null);
    if (text === null) continue;
    const got = normalizeLabel(text);
    if (got === wanted) return row;
    if (allowCategory && categoryMatch === undefined && got.endsWith(`: ${wanted}`)) categoryMatch = row;
  }
  return categoryMatch;
}

/**
 * Accepts `row` of the open quick pick with the keyboard: arrows until it has the focus, then Enter.
 * (A mouse click on a row is not reliable in every version: the widget may close on the mouse down.)
 */
async function acceptRow(page: Page, row: Locator): Promise<void> {
  const target = Number(await row.getAttribute('data-index'));
  if (!Number.isInteger(target)) throw new Error('a quick pick row without data-index');
  const rows = quickPickRows(page);
  await quickInputBox(page).focus();
  for (let step = 0; step < 200; step++) {
    const focused = Number(await rows.and(page.locator('.focused')).first().getAttribute('data-index', { timeout: 2000 }).catch(() => 'NaN'));
    if (focused === target) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press(Number.isInteger(focused) && focused > target ? 'ArrowUp' : 'ArrowDown');
  }
  throw new Error(`could not move the quick pick focus to row ${target}`);
}

/**
 * Runs a command from the palette as a person does: F1, ">title", the row whose label is exactly
 * `title` (or "<Category>: title"), click. Retries when the palette is slow to fill.
 */
export async function runCommand(page: Page, title: string): Promise<void> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await openPalette(page, `>${title}`);
      const row = await waitFor(`the palette to list "${title}"`, () => findRow(page, title, true), 15_000, 200);
      await acceptRow(page, row);
      // The palette either closes or turns into the command's own quick input. A box read while the
      // palette closes finds no visible widget: a short timeout (not the page's 30 s) says it closed.
      await waitFor(`the palette to run "${title}"`, async () => !(await quickInput(page).isVisible()) || (await quickInputBox(page).inputValue({ timeout: 1000 }).catch(() => '')) !== `>${title}`, 10_000, 100);
      return;
    } catch (error) {
      lastError = error;
    }
  }
  await closeQuickInput(page);
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** Whether the palette lists a command titled `title` (exactly, or "<Category>: title") within `timeoutMs`. */
export async function paletteHasCommand(page: Page, title: string, timeoutMs = 10_000): Promise<boolean> {
  await openPalette(page, `>${title}`);
  try {
    return (await waitFor(`the palette to list "${title}"`, () => findRow(page, title, true), timeoutMs, 200).catch(() => undefined)) !== undefined;
  } finally {
    await closeQuickInput(page);
  }
}

/** Chooses the item labelled `label` in the open quick pick (filtering by typing if it is not in view). */
export async function quickPick(page: Page, label: string): Promise<void> {
  await quickInput(page).waitFor({ state: 'visible', timeout: 30_000 });
  let row = await waitFor(`"${label}" in the quick pick`, () => findRow(page, label, false), 3000, 150).catch(() => undefined);
  if (row === undefined) {
    await quickInputBox(page).fill(label);
    row = await waitFor(`"${label}" in the quick pick (filtered)`, () => findRow(page, label, false), 30_000, 200).catch(async (error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; it shows: ${JSON.stringify(await quickPickLabels(page))}`);
    });
  }
  await acceptRow(page, row);
}

/** Types `text` into the open input box (or quick pick filter) and presses Enter. */
export async function typeInQuickInput(page: Page, text: string, options: { password?: boolean } = {}): Promise<void> {
  await quickInput(page).waitFor({ state: 'visible', timeout: 30_000 });
  const box = quickInputBox(page);
  await box.waitFor({ state: 'visible' });
  if (options.password === true) {
    await waitFor('a password box', async () => (await box.getAttribute('type', { timeout: 1000 })) === 'password', 10_000, 100);
  }
  await box.fill(text);
  await waitFor('the input to take the text', async () => (await box.inputValue({ timeout: 1000 })) === text, 5000, 100);
  await box.press('Enter');
  // Wait until the box has taken the Enter (it closes, or the next prompt replaces the text):
  // an Escape sent before that, by the next palette command say, would cancel the input instead.
  await waitFor('the input box to accept', async () => !(await quickInput(page).isVisible()) || (await box.inputValue({ timeout: 1000 }).catch(() => '')) !== text, 10_000, 100);
}

/**
 * Stores a key as a person does (palette, Set API Key…, the application, the password box) and
 * waits until the service has seen the key check (GET /api/applications/{id}) with that key.
 */
export async function setApiKey(workbench: Pick<Workbench, 'page' | 'service'>, applicationName: string, applicationId: string, key?: string): Promise<void> {
  const { page, service } = workbench;
  const value = key ?? service.keyFor(applicationId);
  const already = service.requests.length;
  await runCommand(page, 'Application Query: Set API Key…');
  await quickPick(page, applicationName);
  await typeInQuickInput(page, value, { password: true });
  await waitFor(`the key check of ${applicationId}`, () => service.requests.slice(already).some((r) => r.method === 'GET' && r.path === `/api/applications/${applicationId}` && r.headers.authorization === `Bearer ${value}`) || undefined, 60_000);
}

/** The palette flow: *Query Application*, pick the application, send `question` (no selection needed). */
export async function queryFromPalette(page: Page, applicationName: string, question: string): Promise<void> {
  await runCommand(page, 'Application Query: Query Application');
  await quickPick(page, applicationName);
  await typeInQuickInput(page, question);
}

/**
 * The right-click flow: opens `file`, selects lines `from`..`to`, runs *Query Application with
 * Selection* from the editor's context menu, picks the application and sends `question`.
 */
export async function queryRightClickSelection(page: Page, file: string, lines: readonly [number, number], applicationName: string, question: string): Promise<void> {
  await openFile(page, file);
  await selectLines(page, lines[0], lines[1]);
  await editorContextMenu(page, 'Query Application with Selection');
  await quickPick(page, applicationName);
  await typeInQuickInput(page, question);
}

/** The prompt or validation message under the open input box. */
export async function quickInputMessage(page: Page): Promise<string> {
  return normalizeLabel((await quickInput(page).locator('.quick-input-message').textContent()) ?? '');
}

// ---------------------------------------------------------------------------------------------
// Editors

/** The active editor's Monaco element. */
export function activeEditor(page: Page): Locator {
  return page.locator('.part.editor .editor-group-container.active .editor-instance .monaco-editor').first();
}

/** Opens a workspace file via Quick Open (Ctrl+P) and waits until its editor is active. */
export async function openFile(page: Page, relPath: string): Promise<void> {
  const base = path.posix.basename(relPath);
  await openPalette(page, relPath);
  const row = await waitFor(`Quick Open to list ${relPath}`, () => findRow(page, base, false), 30_000, 200);
  await acceptRow(page, row);
  await page.locator(`.part.editor .editor-group-container.active .tab.active[aria-label^="${cssString(base)}"]`).first().waitFor({ state: 'visible', timeout: 30_000 });
  await activeEditor(page).locator('.view-lines').waitFor({ state: 'visible' });
}

/** Selects whole lines `from`..`to` (1-based, inclusive) in the active editor. */
export async function selectLines(page: Page, from: number, to: number): Promise<void> {
  if (from < 1 || to < from) throw new Error(`bad line range ${from}-${to}`);
  await openPalette(page, `:${from}`);
  await page.keyboard.press('Enter');
  await quickInput(page).waitFor({ state: 'hidden' });
  // Go to Line hands the focus back to the editor; the keys below need it there.
  await page.locator('.part.editor .editor-group-container.active .monaco-editor.focused').first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Home');
  // Home alternates between column 1 and the first non-blank; make sure we are at column 1.
  if (!(await cursorAtColumnOne(page))) await page.keyboard.press('Home');
  for (let line = from; line < to; line++) await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+End');
  await activeEditor(page).locator('.selected-text').first().waitFor({ state: 'visible', timeout: 10_000 });
}

async function cursorAtColumnOne(page: Page): Promise<boolean> {
  const status = await page.locator('.part.statusbar [id="status.editor.selection"]').first().textContent({ timeout: 2000 }).catch(() => null);
  return status === null || /Col 1\b/.test(status);
}

/**
 * Opens the active editor's context menu and runs `entry`. With the editor focused it uses
 * Shift+F10 (the keyboard's right-click: same menu, and the selection cannot move under the
 * pointer); otherwise it right-clicks on the selection (or the cursor) so the selection is kept.
 */
export async function editorContextMenu(page: Page, entry: string): Promise<void> {
  const editor = activeEditor(page);
  const menu = page.locator('.context-view .monaco-menu').filter({ visible: true }).first();
  const focused = await page.locator('.part.editor .editor-group-container.active .monaco-editor.focused').first().isVisible();
  let opened = false;
  if (focused) {
    await page.keyboard.press('Shift+F10');
    opened = await menu.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, () => false);
  }
  if (!opened) {
    const selected = editor.locator('.selected-text').first();
    const target = (await selected.isVisible()) ? selected : editor.locator('.cursor').first();
    const box = await target.boundingBox();
    if (box !== null) {
      await page.mouse.click(box.x + Math.max(1, box.width / 2), box.y + box.height / 2, { button: 'right' });
    } else {
      await editor.locator('.view-lines').click({ button: 'right' });
    }
  }
  await clickMenuEntry(page, entry);
}

/** Clicks `entry` in the open context menu. */
export async function clickMenuEntry(page: Page, entry: string): Promise<void> {
  const menu = page.locator('.context-view .monaco-menu').filter({ visible: true }).first();
  await menu.waitFor({ state: 'visible', timeout: 15_000 });
  const wanted = normalizeLabel(entry);
  const items = menu.locator('.action-item');
  const labels = (await items.evaluateAll((elements) => elements.map((element) => element.querySelector('.action-label')?.textContent ?? ''))).map(normalizeLabel);
  const index = labels.indexOf(wanted);
  if (index < 0) {
    await page.keyboard.press('Escape');
    throw new Error(`the context menu has no "${entry}"; it shows: ${JSON.stringify(labels.filter((l) => l !== ''))}`);
  }
  // Arrow keys move the menu's focus to the entry, Enter runs it: the same in every version (a
  // hover focuses the entry in 1.100 only, and a click right after the menu opens can be taken for
  // the release of the right button and ignored).
  const focusedLabel = (): Promise<string> => page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active?.closest('.action-item')?.querySelector('.action-label')?.textContent ?? '';
  });
  let reached = false;
  for (let step = 0; step <= labels.length * 2 && !reached; step++) {
    if (normalizeLabel(await focusedLabel()) === wanted) reached = true;
    else await page.keyboard.press('ArrowDown');
  }
  if (reached) {
    await page.keyboard.press('Enter');
  } else {
    await delay(500);
    await items.nth(index).locator('.action-label').first().click();
  }
  await menu.waitFor({ state: 'hidden', timeout: 10_000 });
}

// ---------------------------------------------------------------------------------------------
// Notifications, output, webviews

/** Waits until `target`'s text (trimmed) is not empty and the same in two readings `intervalMs` apart, and returns it. */
export async function settledText(target: Locator, what: string, timeoutMs = 60_000, intervalMs = 400): Promise<string> {
  let previous = '';
  return waitFor(what, async () => {
    const now = ((await target.textContent({ timeout: 1000 }).catch(() => '')) ?? '').trim();
    const settled = now !== '' && now === previous;
    previous = now;
    return settled ? now : undefined;
  }, timeoutMs, intervalMs);
}

/** Waits for a notification toast containing `text` and returns it. */
export async function waitForNotification(page: Page, text: string | RegExp, timeoutMs = 30_000): Promise<Locator> {
  const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: text }).first();
  try {
    await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    // Say what is there instead: VS Code drops toasts when more than three arrive within 800 ms,
    // and those then only reach the notification center (the bell in the status bar).
    const shown = (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map(normalizeLabel);
    const bell = await page.locator('[id="status.notifications"] a, [id="status.notifications"]').first().getAttribute('aria-label').catch(() => null);
    throw new Error(`no notification toast matching ${String(text)} within ${Math.round(timeoutMs / 1000)} s; toasts showing: ${JSON.stringify(shown)}; status bar bell: ${bell ?? '?'}`);
  }
  return toast;
}

/**
 * Opens the notification center and waits until its text matches `expected`; returns all of it.
 * (Toasts can be dropped when several arrive at once; the center keeps every notification.)
 */
export async function notificationCenterText(page: Page, expected: RegExp, timeoutMs = 60_000): Promise<string> {
  await runCommand(page, 'Notifications: Show Notifications');
  return waitFor(`a notification matching ${String(expected)}`, async () => {
    const text = await page.locator('.notifications-center').innerText({ timeout: 1000 }).catch(() => '');
    return expected.test(text) ? text : undefined;
  }, timeoutMs);
}

/** Clicks a button of a notification toast. */
export async function clickNotificationButton(toast: Locator, label: string): Promise<void> {
  await toast.locator('.monaco-button', { hasText: label }).first().click();
}

/** Whether the Output view can show a channel named `channel`. */
export async function hasOutputChannel(page: Page, channel: string): Promise<boolean> {
  await runCommand(page, 'Output: Show Output Channels...');
  const found = (await waitFor(`"${channel}" among the output channels`, () => findRow(page, channel, false), 5000, 200).catch(() => undefined)) !== undefined;
  await closeQuickInput(page);
  return found;
}

/** The channel the Output view shows (its "Switch Output" box), or undefined when the view is closed. */
export async function activeOutputChannel(page: Page): Promise<string | undefined> {
  // 1.139 labels the box "Switch Output"; 1.100 leaves its aria-label empty. It is the panel title's only select.
  const select = page.locator('.part.panel .title-actions select.monaco-select-box').filter({ visible: true }).first();
  if (!(await select.isVisible())) return undefined;
  return select.evaluate((element) => {
    const box = element as HTMLSelectElement;
    return box.options[box.selectedIndex]?.text;
  });
}

/** Shows the output channel `channel` in the Output view and returns the view's editor. */
export async function showOutputChannel(page: Page, channel: string): Promise<Locator> {
  await runCommand(page, 'Output: Show Output Channels...');
  await quickPick(page, channel);
  await waitFor(`the Output view to show "${channel}"`, async () => (await activeOutputChannel(page)) === channel, 30_000, 200);
  const editor = page.locator('.part.panel .monaco-editor').filter({ visible: true }).first();
  await editor.waitFor({ state: 'visible', timeout: 30_000 });
  return editor;
}

/**
 * Shows the Output view for `channel` and returns its whole text. Reads it through the clipboard
 * (select all, copy), because the editor renders only the lines in view; when that fails, reads the
 * file the channel is written to on the server (extension channels), else the rendered lines.
 */
export async function outputChannelText(page: Page, channel: string, workbench?: Pick<Workbench, 'userDataDir'>): Promise<string> {
  const editor = await showOutputChannel(page, channel);
  await delay(300);
  try {
    const box = await editor.boundingBox();
    if (box === null) throw new Error('the Output view has no size');
    // A plain click at the text's top left focuses the read-only editor (centre clicks can hit overlays).
    await page.mouse.click(box.x + 40, box.y + 8);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    await page.keyboard.press('ArrowDown');
    if (copied.trim() !== '') return copied;
  } catch {
    // Fall through to the other ways of reading it.
  }
  const fromFile = workbench === undefined ? undefined : outputChannelFile(workbench, channel);
  if (fromFile !== undefined) return readFileSync(fromFile, 'utf8');
  return (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
}

/**
 * The file on the server that an extension's output channel is written to, if there is one:
 * `logs/<session>/exthost*\/output_logging_*\/<n>-<channel>.log` (plain channels) or
 * `logs/<session>/exthost*\/<extension id>/<channel>.log` (log channels).
 */
export function outputChannelFile(workbench: Pick<Workbench, 'userDataDir'>, channel: string): string | undefined {
  const logs = path.join(workbench.userDataDir, 'logs');
  const found: string[] = [];
  const visit = (dir: string, depth: number): void => {
    if (depth > 4 || !existsSync(dir)) return;
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, name.name);
      if (name.isDirectory()) visit(full, depth + 1);
      else if (name.name === `${channel}.log` || new RegExp(`^\\d+-${escapeRegExp(channel)}\\.log$`).test(name.name)) found.push(full);
    }
  };
  visit(logs, 0);
  return found.sort().at(-1);
}

/** Polls an output channel until its text matches (shows the channel once, then rereads). */
export async function waitForOutputText(page: Page, channel: string, expected: string | RegExp, timeoutMs = 60_000, workbench?: Pick<Workbench, 'userDataDir'>): Promise<string> {
  return waitFor(`output channel "${channel}" to show ${String(expected)}`, async () => {
    const text = await outputChannelText(page, channel, workbench);
    return (typeof expected === 'string' ? text.includes(expected) : expected.test(text)) ? text : undefined;
  }, timeoutMs, 1000);
}

/** Which of the extension's webviews: the sidebar Chat view or an answer panel (`body[data-surface]`). */
export type Surface = 'chat' | 'panel';

/**
 * The document of the visible webview that shows `surface`, found by what it shows rather than by
 * how VS Code built its frame (a view restored after a reload has a differently built URL). The
 * latest one when there are several (`has`, a selector inside its body, narrows the choice); waits
 * up to `timeoutMs` for one to appear. The frame is
 * pinned by the webview's id, so it stays the same frame while other webviews come and go.
 */
export async function surfaceFrame(page: Page, surface: Surface, timeoutMs = 60_000, has?: string): Promise<FrameLocator> {
  const inner = (outer: Locator): FrameLocator => outer.contentFrame().locator('iframe#active-frame').contentFrame();
  const wanted = `body[data-surface="${surface}"]${has === undefined ? '' : ` ${has}`}`;
  const name = await waitFor(`a visible webview showing the ${surface}${has === undefined ? '' : ` with ${has}`}`, async () => {
    const frames = page.locator('iframe.webview.ready').filter({ visible: true });
    for (let i = (await frames.count()) - 1; i >= 0; i--) {
      const frame = frames.nth(i);
      const shows = await inner(frame).locator(wanted).count().catch(() => 0);
      if (shows > 0) return (await frame.getAttribute('name').catch(() => null)) ?? undefined;
    }
    return undefined;
  }, timeoutMs, 250);
  return inner(page.locator(`iframe.webview[name="${cssString(name)}"]`));
}

/**
 * Sends `question` from the Chat view's composer in `chat` (the application already chosen), as a
 * person does: a click into the composer first. A script in the webview's frame cannot take the
 * focus from the editor (the browser blocks it in a cross-origin frame without a user's gesture),
 * so `fill` alone typed the question into whatever editor had the focus.
 */
export async function sendFromComposer(chat: FrameLocator, question: string): Promise<void> {
  const input = chat.locator('textarea[aria-label="Ask the application"]');
  await input.click();
  await waitFor('the composer to have the focus', () => input.evaluate((element) => element === document.activeElement && document.hasFocus()).then((yes) => yes || undefined), 10_000, 100);
  await input.fill(question);
  await waitFor('the composer to take the question', async () => (await input.inputValue({ timeout: 1000 })) === question || undefined, 5000, 100);
  await input.press('Enter');
}

// ---------------------------------------------------------------------------------------------
// Diagnostics

/** Where screenshots and failure reports go: `<repo>/test-results/`. */
export function resultsDir(): string {
  return path.join(repoRoot(), 'test-results');
}

/** Saves a full-window screenshot to `test-results/<file>` (".png" added if missing); returns the path. */
export async function screenshot(page: Page, file: string): Promise<string> {
  const name = /\.(png|jpe?g)$/i.test(file) ? file : `${file}.png`;
  const target = path.join(resultsDir(), name);
  await mkdir(path.dirname(target), { recursive: true });
  await page.screenshot({ path: target, timeout: 15_000 });
  return target;
}

/**
 * For a mocha `afterEach`: when the test failed, saves a screenshot and the server and browser logs
 * under `test-results/` and says where.
 */
export async function captureFailure(test: Mocha.Test | undefined, workbench: Workbench | undefined): Promise<void> {
  if (test?.state !== 'failed' || workbench === undefined) return;
  const name = `${workbench.vscodeVersion}-${test.fullTitle()}`.replace(/[^\w.-]+/g, '_').slice(0, 150);
  const { page } = workbench;
  try {
    const shot = await screenshot(page, name).catch((error: unknown) => `(no screenshot: ${String(error)})`);
    const webviews = await page.locator('iframe.webview').evaluateAll((frames) => frames.map((frame) => {
      const box = frame.getBoundingClientRect();
      const src = (frame as HTMLIFrameElement).src;
      const purpose = /[?&]purpose=(\w+)/.exec(src)?.[1] ?? (src.includes('?') ? 'panel' : `src ${src.slice(0, 60) || '(empty)'}`);
      return `${frame.className} ${purpose} at ${Math.round(box.x)},${Math.round(box.y)} ${Math.round(box.width)}x${Math.round(box.height)} ${getComputedStyle(frame.parentElement ?? frame).visibility}`;
    })).catch((error: unknown) => [String(error)]);
    const panes = await page.locator('.part.sidebar .pane').evaluateAll((elements) => elements.map((pane) => {
      const title = pane.querySelector('.pane-header h3.title')?.textContent ?? '?';
      const expanded = pane.querySelector('.pane-header')?.getAttribute('aria-expanded');
      const busy = pane.querySelector('.monaco-progress-container.active') !== null;
      return `${title} expanded=${expanded ?? '?'}${busy ? ' (progress bar running)' : ''}`;
    })).catch((error: unknown) => [String(error)]);
    const notifications = (await page.locator('.notification-toast, .notifications-center .notification-list-item').allInnerTexts().catch(() => [])).map(normalizeLabel);
    const hostLog = extensionHostLog(workbench) ?? '(none)';
    await writeFile(path.join(resultsDir(), `${name}.log`), [
      '--- webview frames ---', ...webviews,
      '--- side bar panes ---', ...panes,
      '--- notifications ---', ...notifications,
      '--- code-server output ---', workbench.serverOutput(),
      '--- browser errors ---', ...workbench.browserErrors,
      '--- extension host log ---', hostLog,
    ].join('\n'));
    // The same in brief on stdout: CI keeps the console, not test-results/.
    const brief = [
      `webview frames: ${webviews.length === 0 ? 'none' : webviews.join(' | ')}`,
      `side bar: ${panes.length === 0 ? 'closed' : panes.join(' | ')}`,
      `notifications: ${notifications.length === 0 ? 'none' : notifications.map((n) => n.slice(0, 160)).join(' | ')}`,
      `extension activated: ${isExtensionActivated(workbench)}`,
      ...workbench.browserErrors.slice(-8).map((line) => `browser: ${line.slice(0, 300)}`),
      ...hostLog.split('\n').filter((line) => /error|warn|exception/i.test(line)).slice(-8).map((line) => `extension host: ${line.slice(0, 300)}`),
    ];
    for (const line of brief) console.log(`      | ${line}`);
    console.log(`      screenshot and logs: ${path.relative(repoRoot(), shot).replace(/\.png$/, '.{png,log}')}`);
  } catch (error) {
    console.log(`      (could not save the failure report: ${error instanceof Error ? error.message : String(error)})`);
  }
}

function cssString(text: string): string {
  return text.replace(/["\\]/g, '\\$&');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------
// VS Code's own Chat (1.139: the built-in Copilot extension's Chat view, no sign-in)

/** User settings that turn VS Code's own Chat back on (the quiet defaults switch it off). */
export const NATIVE_CHAT_SETTINGS: Readonly<Record<string, unknown>> = {
  'chat.disableAIFeatures': false,
  'chat.agent.enabled': true,
  'chat.commandCenter.enabled': true,
};

/** The Chat's input editor. */
function nativeChatInput(page: Page): Locator {
  return page.locator('.interactive-input-part .monaco-editor').first();
}

/** Opens VS Code's Chat view and waits for its input. */
export async function openNativeChat(page: Page): Promise<void> {
  await runCommand(page, 'Chat: Open Chat');
  await nativeChatInput(page).waitFor({ state: 'visible', timeout: 30_000 });
}

/** The responses in the Chat, oldest first. */
export function nativeChatResponses(page: Page): Locator {
  return page.locator('.interactive-session .interactive-item-container.interactive-response');
}

/** The row of the Chat's (virtual) list with the highest index among `selector`, as a locator pinned by its index. */
async function lastChatRow(page: Page, selector: string): Promise<{ index: number; row: Locator } | undefined> {
  const indexes = await page.locator(`.interactive-session .monaco-list-row:has(${selector})`).evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-index'))));
  const index = Math.max(-1, ...indexes.filter((n) => Number.isFinite(n)));
  return index < 0 ? undefined : { index, row: page.locator(`.interactive-session .monaco-list-row[data-index="${index}"]`) };
}

/**
 * Types `text` into the Chat's input as a person does and sends it; returns its response. The list
 * is virtual (only the rows in view exist, in any DOM order), so rows are found by their index.
 */
export async function askNativeChat(page: Page, text: string): Promise<Locator> {
  // Each test stands alone: open the Chat when an earlier test did not leave it open.
  if (!(await nativeChatInput(page).isVisible())) await openNativeChat(page);
  const before = (await lastChatRow(page, '.interactive-request'))?.index ?? -1;
  await nativeChatInput(page).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
  // Typing `@app ` or `#…` opens suggestions; Escape closes them so Enter sends.
  await delay(300);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  const request = await waitFor(`the Chat to show the request "${text}"`, async () => {
    const last = await lastChatRow(page, '.interactive-request');
    return last !== undefined && last.index > before ? last : undefined;
  }, 30_000, 200);
  // Its response is the newest response row after it. (In one CI rehearsal on 1.139 the row found
  // as the newest request was the response row itself, which then counts.)
  const row = await waitFor(`the response to "${text}"`, async () => {
    const last = await lastChatRow(page, '.interactive-response');
    return last !== undefined && last.index >= request.index ? last : undefined;
  }, 30_000, 200);
  const response = row.row.locator('.interactive-response').first();
  await response.waitFor({ state: 'visible', timeout: 30_000 });
  return response;
}

/** The text of a response's Markdown parts (not its buttons, timings or error box). */
export async function nativeChatResponseText(response: Locator): Promise<string> {
  return normalizeLabel((await response.locator('.rendered-markdown').allInnerTexts()).join('\n'));
}

/** The model picker in the Chat's input (its label is the model in use). */
function nativeChatModelPicker(page: Page): Locator {
  return page.locator('.interactive-input-part .chat-input-picker-item').filter({ has: page.locator('[aria-label*="model" i]') }).or(page.locator('.interactive-input-part .chat-input-picker-item[aria-label*="model" i]')).first();
}

/** Opens the model picker; returns its popup with every group expanded. */
export async function openNativeChatModelPicker(page: Page): Promise<Locator> {
  await nativeChatModelPicker(page).click();
  const popup = page.locator('.context-view').filter({ visible: true }).first();
  await popup.waitFor({ state: 'visible', timeout: 10_000 });
  // Groups ("Other Models") start collapsed: open them so every model is listed.
  for (const group of await popup.locator('.monaco-list-row[aria-expanded="false"]').all()) await group.click().catch(() => undefined);
  await delay(300);
  return popup;
}

/** Picks `name` in the Chat's model picker and waits until the picker shows it. */
export async function pickNativeChatModel(page: Page, name: string): Promise<void> {
  const popup = await openNativeChatModelPicker(page);
  await popup.locator('.monaco-list-row').filter({ hasText: name }).first().click();
  await waitFor(`the model picker to show ${name}`, async () => normalizeLabel(await nativeChatModelPicker(page).innerText()).startsWith(name.slice(0, 8)) || undefined, 30_000, 200);
}

/** The labels the Chat's model picker lists (it is opened and closed again). */
export async function nativeChatModelLabels(page: Page): Promise<string[]> {
  const popup = await openNativeChatModelPicker(page);
  const labels = (await popup.locator('.monaco-list-row').allInnerTexts()).map(normalizeLabel);
  await page.keyboard.press('Escape');
  return labels;
}

/** Aria labels of the Chat input's pickers (diagnostics). */
export async function nativeChatPickerLabels(page: Page): Promise<string[]> {
  return page.locator('.interactive-input-part .chat-input-picker-item').evaluateAll((items) => items.map((item) => `${item.getAttribute('aria-label') ?? ''} / ${item.querySelector('[aria-label]')?.getAttribute('aria-label') ?? ''} / ${(item as HTMLElement).innerText}`));
}
