// Editors and selections: opening a file, selecting lines, the editor's context menu, and the
// right-click query flow built from them; an editor found by its file, and its CodeLens.
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { delay, waitFor } from '../../launch/util';
import { acceptRow, findRow, openPalette, quickInput, quickPick, typeInQuickInput } from './palette';
import { cssString, normalizeLabel } from './text';

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

/** The editor showing the file named `fileName` (its URI ends with "/fileName"), in whichever group, saved or not. */
export function editorOf(page: Page, fileName: string): Locator {
  return page.locator(`.part.editor .editor-instance .monaco-editor[data-uri$="/${cssString(fileName)}"]`).first();
}

/**
 * The CodeLens entries titled `title` in `editor`, from top to bottom (an icon in a title is left
 * out, "..." and "…" are the same), once at least `atLeast` of them show.
 */
export async function codeLenses(editor: Locator, title: string, atLeast = 1, timeoutMs = 30_000): Promise<Locator[]> {
  const wanted = normalizeLabel(title);
  return waitFor(`${atLeast} CodeLens "${title}"`, async () => {
    const links = editor.locator('.codelens-decoration a');
    const found = await links.evaluateAll((elements) => elements.map((element) => ({ text: element.textContent ?? '', top: element.getBoundingClientRect().top, id: element.id })));
    const matching = found.filter((lens) => normalizeLabel(lens.text) === wanted && lens.id !== '').sort((a, b) => a.top - b.top);
    return matching.length >= atLeast ? matching.map((lens) => editor.locator(`.codelens-decoration a[id="${cssString(lens.id)}"]`)) : undefined;
  }, timeoutMs, 250);
}

/**
 * Clicks the `nth` (0-based, top to bottom) CodeLens titled `title` in `editor`, as a person does.
 * A CodeLens is redrawn whenever its provider answers again; a click on one that went away is retried.
 */
export async function clickCodeLens(editor: Locator, title: string, nth = 0): Promise<void> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const lenses = await codeLenses(editor, title, nth + 1);
    try {
      await lenses[nth].click({ timeout: 5000 });
      return;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** The two sides of a diff editor, as their lines show (non-breaking spaces as spaces, trailing blanks cut). */
export interface DiffSides {
  original: string;
  modified: string;
}

/**
 * The text of the active diff editor's two sides once `done` accepts them (waits up to `timeoutMs`).
 * Only lines in view are read (Monaco renders no others): enough for a short text, or its top.
 */
export async function diffEditorSides(page: Page, done: (sides: DiffSides) => boolean, timeoutMs = 30_000): Promise<DiffSides> {
  const diff = page.locator('.part.editor .editor-group-container.active .monaco-diff-editor').first();
  const side = async (which: 'original' | 'modified'): Promise<string> => {
    const lines = diff.locator(`.editor.${which} .view-lines`).first();
    const text = await lines.evaluate((element) => [...element.querySelectorAll('.view-line')]
      .map((line) => ({ top: Number.parseFloat((line as HTMLElement).style.top || '0'), text: line.textContent ?? '' }))
      .sort((a, b) => a.top - b.top)
      .map((line) => line.text)
      .join('\n'), undefined, { timeout: 1000 }).catch(() => '');
    return text.replace(/\u00a0/g, ' ').split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();
  };
  let last: DiffSides = { original: '', modified: '' };
  try {
    return await waitFor('the diff editor to show both sides', async () => {
      last = { original: await side('original'), modified: await side('modified') };
      return done(last) ? last : undefined;
    }, timeoutMs, 250);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; it shows ${JSON.stringify(last).slice(0, 2000)}`);
  }
}
