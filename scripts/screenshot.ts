// Retakes the README's screenshots from the real workbench: code-server with the extension
// installed, the reference service, headless Chromium. Writes docs/images/screenshot.png (the answer
// panel beside the editor, after a right-click query), docs/images/screenshot-chat.png (the Chat view) and
// docs/images/screenshot-history.png (the History view with one exchange open in the inspector).
// Run: npm run build && npm run compile-tests && node out/scripts/screenshot.js
import { copyFile } from 'node:fs/promises';
import * as path from 'node:path';
import { waitFor } from '../test/launch/util';
import { launchWorkbench } from '../test/support/workbench/launch';
import { quickPick, runCommand, setApiKey, typeInQuickInput } from '../test/support/workbench/palette';
import { editorContextMenu, openFile, selectLines } from '../test/support/workbench/editors';
import { openViewContainer, surfaceFrame, viewHeader } from '../test/support/workbench/views';
import { askNativeChat, NATIVE_CHAT_SETTINGS, nativeChatResponseText, openNativeChat, openNativeChatModelPicker } from '../test/support/workbench/nativeChat';
import { screenshot } from '../test/support/workbench/diagnostics';
import { repoRoot } from '../test/launch/util';

async function main(): Promise<void> {
  const workbench = await launchWorkbench({ serviceOptions: { paceMs: 20, quiet: true } });
  const { page, service } = workbench;
  try {
    await runCommand(page, 'Application Query: Set API Key…');
    await quickPick(page, 'Demo Assistant');
    await typeInQuickInput(page, service.keyFor('demo-assistant'), { password: true });
    await waitFor('the key check', () => service.requests.some((r) => r.path === '/api/applications/demo-assistant') || undefined, 60_000);
    await runCommand(page, 'Notifications: Clear All Notifications');

    // The answer panel: right-click a selection, ask, let it finish.
    await openFile(page, 'src/sample.ts');
    await selectLines(page, 2, 5);
    await editorContextMenu(page, 'Query Application with Selection');
    await quickPick(page, 'Demo Assistant');
    await typeInQuickInput(page, 'Explain this function and suggest a faster version');
    const panel = await surfaceFrame(page, 'panel');
    await waitFor('the panel answer', async () => (await panel.locator('[data-role="assistant"]').last().getAttribute('data-status')) === 'done' || undefined, 90_000);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.mouse.move(0, 0);
    const answerShot = await screenshot(page, 'readme-panel');
    await copyFile(answerShot, path.join(repoRoot(), 'docs', 'images', 'screenshot.png'));

    // The Chat view: a question and its rendered answer.
    await runCommand(page, 'View: Close All Editors');
    await openFile(page, 'src/sample.ts');
    await openViewContainer(page, 'Application Query');
    // Give the Chat view the whole side bar.
    for (const other of ['Applications', 'History']) {
      const header = viewHeader(page, other);
      if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
    }
    const chat = await surfaceFrame(page, 'chat');
    await chat.locator('select#aq-application').selectOption('demo-assistant');
    const input = chat.locator('textarea[aria-label="Ask the application"]');
    await input.fill('How do I memoise a recursive function in TypeScript?');
    await input.press('Enter');
    await waitFor('the chat answer', async () => (await chat.locator('[data-role="assistant"]').last().getAttribute('data-status')) === 'done' || undefined, 90_000);
    await page.mouse.move(0, 0);
    const chatShot = await screenshot(page, 'readme-chat');
    await copyFile(chatShot, path.join(repoRoot(), 'docs', 'images', 'screenshot-chat.png'));

    // History: the exchanges so far, the latest opened in the inspector.
    const chatHeader = viewHeader(page, 'Chat');
    if ((await chatHeader.getAttribute('aria-expanded')) === 'true') await chatHeader.click();
    const historyHeader = viewHeader(page, 'History');
    if ((await historyHeader.getAttribute('aria-expanded')) === 'false') await historyHeader.click();
    const rows = page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: /^\s*History\s*$/i }) }).locator('.monaco-list-row');
    await waitFor('History rows', async () => (await rows.count()) >= 2 || undefined, 60_000);
    await rows.first().click();
    await page.locator('.tab', { hasText: 'demo-assistant.md' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await page.getByText('## Request').first().waitFor({ state: 'visible', timeout: 60_000 });
    await page.mouse.move(0, 0);
    const historyShot = await screenshot(page, 'readme-history');
    await copyFile(historyShot, path.join(repoRoot(), 'docs', 'images', 'screenshot-history.png'));
    console.log('wrote docs/images/screenshot.png, docs/images/screenshot-chat.png and docs/images/screenshot-history.png');
  } finally {
    await workbench.close();
  }
}

/**
 * VS Code's own Chat (1.139): an `@app` answer about a selection (docs/images/screenshot-native-chat.png)
 * and the model picker listing the applications (docs/images/screenshot-native-chat-models.png).
 */
async function nativeChatScreenshots(): Promise<void> {
  const workbench = await launchWorkbench({ version: '4.139.1', userSettings: NATIVE_CHAT_SETTINGS, serviceOptions: { paceMs: 20, quiet: true } });
  const { page } = workbench;
  try {
    for (const [name, id] of [['Echo', 'echo'], ['Demo Assistant', 'demo-assistant']]) await setApiKey(workbench, name, id);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await openFile(page, 'src/sample.ts');
    await selectLines(page, 2, 5);
    await openNativeChat(page);
    const response = await askNativeChat(page, '@app /use demo-assistant Explain this function');
    await waitFor('the @app answer', async () => (await nativeChatResponseText(response)).includes('✓ done') || undefined, 90_000);
    await page.mouse.move(0, 0);
    await copyFile(await screenshot(page, 'readme-native-chat'), path.join(repoRoot(), 'docs', 'images', 'screenshot-native-chat.png'));
    await openNativeChatModelPicker(page);
    await copyFile(await screenshot(page, 'readme-native-chat-models'), path.join(repoRoot(), 'docs', 'images', 'screenshot-native-chat-models.png'));
    await page.keyboard.press('Escape');
    console.log('wrote docs/images/screenshot-native-chat.png and docs/images/screenshot-native-chat-models.png');
  } finally {
    await workbench.close();
  }
}

// `--native-chat` retakes only the VS Code Chat screenshots.
(process.argv.includes('--native-chat') ? nativeChatScreenshots() : main().then(nativeChatScreenshots)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exitCode = 1;
});
