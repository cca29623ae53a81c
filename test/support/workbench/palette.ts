// The command palette and every quick input (quick picks, input boxes), driven from the keyboard as a
// person does; and the extension's flows that run through them (set a key, query from the palette).
import type { Locator, Page } from 'playwright-core';
import { delay, waitFor } from '../../launch/util';
import { screenshot } from './diagnostics';
import type { Workbench } from './launch';
import { normalizeLabel } from './text';

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

/** Closes the open quick input, if any (Escape, up to three times). */
export async function closeQuickInput(page: Page): Promise<void> {
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

/** Opens the palette (or Quick Open, Go to Line: whatever `prefix` asks for) with `prefix` typed in. */
export async function openPalette(page: Page, prefix: string): Promise<void> {
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
  // A modal dialog takes every key; say so, with its text, rather than only that the palette failed.
  const dialog = page.locator('.monaco-dialog-box').filter({ visible: true }).first();
  const modal = (await dialog.isVisible()) ? ` while a dialog was open: "${((await dialog.textContent({ timeout: 1000 }).catch(() => '')) ?? '').trim().slice(0, 200)}"` : '';
  const shot = await screenshot(page, 'palette-did-not-open').catch(() => 'no screenshot');
  throw new Error(`the command palette did not take "${prefix}": ${problem}${modal} (${shot})`);
}

/** Rows whose label equals `label` (ellipsis and whitespace normalised), or whose label is "<Category>: label". */
export async function findRow(page: Page, label: string, allowCategory: boolean): Promise<Locator | undefined> {
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
export async function acceptRow(page: Page, row: Locator): Promise<void> {
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

/** Whether the quick input has turned from a pick into an input box, or closed: an input box shows no list. */
async function pastThePick(page: Page): Promise<boolean> {
  return !(await quickInput(page).isVisible()) || !(await quickInput(page).locator('.quick-input-list').isVisible());
}

/**
 * Picks `label` in a pick that an input box follows, and waits until the pick has taken it. An
 * Enter that reached the pick before it took keys (seen once on 1.100) is followed by another pick,
 * up to three in all.
 */
export async function pickBeforeInput(page: Page, label: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await quickPick(page, label);
    if (await waitFor(`the pick to take ${label}`, async () => (await pastThePick(page)) || undefined, 3000, 100).then(() => true, () => false)) return;
    if (attempt === 3) throw new Error(`the pick did not take ${label} after ${attempt} tries`);
  }
}

/** Types `text` into the open input box (once a pick before it has turned into one) and presses Enter. */
export async function typeInQuickInput(page: Page, text: string, options: { password?: boolean } = {}): Promise<void> {
  await quickInput(page).waitFor({ state: 'visible', timeout: 30_000 });
  const box = quickInputBox(page);
  await box.waitFor({ state: 'visible' });
  // A pick just accepted turns into the input box in the same widget a little later: text filled
  // before that goes into the pick's filter and is lost when the input box replaces it (seen on
  // 1.139: the question box then waited empty). An input box shows no list.
  await waitFor('the quick input to be an input box (no list of a pick)', async () => (await pastThePick(page)) || undefined, 10_000, 100);
  if (options.password === true) {
    await waitFor('a password box', async () => (await box.getAttribute('type', { timeout: 1000 })) === 'password', 30_000, 100);
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

/** The prompt or validation message under the open input box. */
export async function quickInputMessage(page: Page): Promise<string> {
  return normalizeLabel((await quickInput(page).locator('.quick-input-message').textContent()) ?? '');
}
