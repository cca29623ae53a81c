// What the driver reads outside the UI, and what it keeps when a test fails: the extension host's
// log (has the extension activated?), screenshots, and a failure report under test-results/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, waitFor } from '../../launch/util';
import type { Workbench } from './launch';
import { normalizeLabel } from './text';

/** The extension's id (publisher.name). */
export const EXTENSION_ID = 'application-query.application-query';

/** The remote extension hosts' logs (one per window load), oldest first. */
function extensionHostLogs(workbench: Pick<Workbench, 'userDataDir'>): string[] {
  const logs = path.join(workbench.userDataDir, 'logs');
  if (!existsSync(logs)) return [];
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
  return texts;
}

/** The remote extension host's log text (every host's, after a reload), or undefined while none has started. */
export function extensionHostLog(workbench: Pick<Workbench, 'userDataDir'>): string | undefined {
  const texts = extensionHostLogs(workbench);
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** How many times an extension host has activated this extension (a window reload starts a new host). */
export function activationCount(workbench: Pick<Workbench, 'userDataDir'>): number {
  return extensionHostLogs(workbench).reduce((count, text) => count + text.split(`_doActivateExtension ${EXTENSION_ID}`).length - 1, 0);
}

/** Whether the extension host has activated this extension (read from its log; no UI involved). */
export function isExtensionActivated(workbench: Pick<Workbench, 'userDataDir'>): boolean {
  return activationCount(workbench) > 0;
}

/**
 * Waits until the extension is activated (something must trigger it: a command, its view); after a
 * reload, pass the {@link activationCount} from before it, to wait for the new window's host.
 */
export async function waitForActivation(workbench: Pick<Workbench, 'userDataDir'>, timeoutMs = 60_000, activationsBefore = 0): Promise<void> {
  await waitFor(`${EXTENSION_ID} to activate`, () => activationCount(workbench) > activationsBefore, timeoutMs, 250);
}

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
