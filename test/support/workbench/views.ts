// The extension's views: the activity bar, view containers and view headers in the side bar, and the
// webviews (the Chat view and the answer panel) with the Chat view's composer; and VS Code's
// Testing view (its tree of test items and their states).
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { waitFor } from '../../launch/util';
import { runCommand } from './palette';
import { cssString, escapeRegExp } from './text';

/** The activity bar entry of a view container, by its title. */
export function activityBarItem(page: Page, title: string): Locator {
  return page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${cssString(title)}"]`).first();
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

/** One row of the Testing view's tree, as it shows. */
export interface TestExplorerRow {
  /** The item's label (a file's name, a query's name). */
  label: string;
  /** The grey text after the label (a file's relative path, a duration). */
  description: string;
  /** From the state icon: "passed", "failed", "errored", "skipped", "unset" (not yet run), "queued", "running", … */
  state: string;
  /** 1 for the top level. */
  level: number;
  /** Whether the row is expanded (undefined for a leaf). */
  expanded?: boolean;
}

/** The Testing view's tree (Test Explorer) in the side bar. */
export function testExplorerTree(page: Page): Locator {
  return page.locator('.part.sidebar .test-explorer-tree').first();
}

/** Opens the Testing view (Test Explorer) from the palette and waits until its tree shows. */
export async function openTestExplorer(page: Page): Promise<Locator> {
  await runCommand(page, 'Testing: Focus on Test Explorer View');
  const tree = testExplorerTree(page);
  await tree.waitFor({ state: 'visible', timeout: 30_000 });
  return tree;
}

/** The rows the Testing view's tree shows right now, top to bottom. */
export async function testExplorerRows(page: Page): Promise<TestExplorerRow[]> {
  return testExplorerTree(page).locator('.monaco-list-row').evaluateAll((rows) =>
    rows
      .map((row) => {
        const label = row.querySelector('.label');
        const description = label?.querySelector('.test-label-description')?.textContent ?? '';
        const ownText = [...(label?.childNodes ?? [])].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent ?? '').join('');
        const icon = row.querySelector('.computed-state')?.className ?? '';
        const expanded = row.getAttribute('aria-expanded');
        return {
          label: ownText.trim(),
          description: description.trim(),
          state: /codicon-testing-([\w-]+?)-icon\b/.exec(icon)?.[1] ?? (/codicon-loading|codicon-modifier-spin/.test(icon) ? 'running' : icon),
          level: Number(row.getAttribute('aria-level') ?? '0'),
          top: Number.parseFloat((row as HTMLElement).style.top || '0'),
          ...(expanded === null ? {} : { expanded: expanded === 'true' }),
        };
      })
      .sort((a, b) => a.top - b.top)
      .map(({ top: _top, ...row }) => row),
  );
}

/** The first row of the Testing view's tree whose label starts with `label` (its description follows the label in the same element). */
export function testExplorerRow(page: Page, label: string): Locator {
  return testExplorerTree(page)
    .locator('.monaco-list-row')
    .filter({ has: page.locator('.label', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}`) }) })
    .first();
}

/** Expands the row labelled `label` in the Testing view's tree (a click on its twistie), unless it is expanded. */
export async function expandTestExplorerRow(page: Page, label: string): Promise<void> {
  const row = testExplorerRow(page, label);
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await waitFor(`the Testing view row "${label}" to expand`, async () => {
    const expanded = await row.getAttribute('aria-expanded', { timeout: 1000 }).catch(() => null);
    if (expanded === 'true' || expanded === null) return true;
    await row.locator('.monaco-tl-twistie').click({ timeout: 5000 }).catch(() => undefined);
    return false;
  }, 30_000, 500);
}

/**
 * The document of the latest visible Compare panel (`body[data-surface="compare"]`; `has`, a
 * selector inside its body, narrows the choice), pinned by its webview's id as {@link surfaceFrame} does.
 */
export async function compareFrame(page: Page, timeoutMs = 60_000, has?: string): Promise<FrameLocator> {
  const inner = (outer: Locator): FrameLocator => outer.contentFrame().locator('iframe#active-frame').contentFrame();
  const wanted = `body[data-surface="compare"]${has === undefined ? '' : ` ${has}`}`;
  const name = await waitFor(`a visible Compare panel${has === undefined ? '' : ` with ${has}`}`, async () => {
    const frames = page.locator('iframe.webview.ready').filter({ visible: true });
    for (let i = (await frames.count()) - 1; i >= 0; i--) {
      const frame = frames.nth(i);
      if ((await inner(frame).locator(wanted).count().catch(() => 0)) > 0) return (await frame.getAttribute('name').catch(() => null)) ?? undefined;
    }
    return undefined;
  }, timeoutMs, 250);
  return inner(page.locator(`iframe.webview[name="${cssString(name)}"]`));
}

/**
 * In the open multi-select quick pick (`canPickMany`), checks exactly the rows labelled `labels`
 * ("..." and "…" alike) and unchecks every other, a click on a row's label toggling it as a
 * person's does; then accepts with Enter. Throws if a label is not listed.
 */
export async function checkQuickPickItems(page: Page, labels: readonly string[]): Promise<void> {
  const norm = (text: string): string => text.replace(/\.\.\./g, '…').replace(/\s+/g, ' ').trim();
  const wanted = new Set(labels.map(norm));
  const widget = page.locator('.quick-input-widget').filter({ visible: true }).first();
  await widget.locator('.quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 30_000 });
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  const rowState = async (): Promise<{ label: string; checked: boolean }[]> =>
    (await rows.evaluateAll((elements) => elements.map((row) => ({ label: row.querySelector('.label-name')?.textContent ?? '', checked: row.getAttribute('aria-checked') === 'true' })))).map((row) => ({ ...row, label: norm(row.label) }));
  const listed = (await rowState()).map((row) => row.label);
  const missing = [...wanted].filter((label) => !listed.includes(label));
  if (missing.length > 0) throw new Error(`the quick pick does not list ${JSON.stringify(missing)}; it shows: ${JSON.stringify(listed)}`);
  await waitFor(`exactly ${JSON.stringify([...wanted])} to be checked`, async () => {
    const state = await rowState();
    const wrong = state.find((row) => row.checked !== wanted.has(row.label));
    if (wrong === undefined) return true;
    const row = rows.filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(wrong.label)}\\s*$`) }) }).first();
    await row.locator('.quick-input-list-label').first().click({ timeout: 5000 }).catch(() => undefined);
    await waitFor('the click to toggle the row', async () => ((await row.getAttribute('aria-checked', { timeout: 1000 }).catch(() => null)) === 'true') === wanted.has(wrong.label) || undefined, 3000, 100).catch(() => undefined);
    return false;
  }, 30_000, 100);
  const box = widget.locator('.quick-input-box input').first();
  await box.focus();
  await box.press('Enter');
}
