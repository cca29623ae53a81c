// VS Code's own Chat (1.139: the built-in Copilot extension's Chat view, no sign-in): opening it,
// asking in it as a person types, reading its responses, its model picker.
import type { Locator, Page } from 'playwright-core';
import { delay, waitFor } from '../../launch/util';
import { runCommand } from './palette';
import { normalizeLabel } from './text';

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
