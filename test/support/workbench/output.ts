// Output channels: which exist, showing one, and reading its whole text (from the view, else from
// the file the server writes it to).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { delay, waitFor } from '../../launch/util';
import type { Workbench } from './launch';
import { closeQuickInput, findRow, quickPick, runCommand } from './palette';
import { escapeRegExp } from './text';

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
  return outputChannelFiles(workbench, channel).at(-1);
}

/** Every file an output channel was written to, one per window session (sorted: the newest last). */
export function outputChannelFiles(workbench: Pick<Workbench, 'userDataDir'>, channel: string): string[] {
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
  return found.sort();
}

/** Polls an output channel until its text matches (shows the channel once, then rereads). */
export async function waitForOutputText(page: Page, channel: string, expected: string | RegExp, timeoutMs = 60_000, workbench?: Pick<Workbench, 'userDataDir'>): Promise<string> {
  return waitFor(`output channel "${channel}" to show ${String(expected)}`, async () => {
    const text = await outputChannelText(page, channel, workbench);
    return (typeof expected === 'string' ? text.includes(expected) : expected.test(text)) ? text : undefined;
  }, timeoutMs, 1000);
}
