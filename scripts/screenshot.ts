// Retakes the README's screenshots from the real workbench: code-server with the extension
// installed, the reference service, headless Chromium. Writes media/screenshot.png (the answer
// panel beside the editor, after a right-click query) and media/screenshot-chat.png (the Chat view).
// Run: npm run build && npm run compile-tests && node out/scripts/screenshot.js
import { copyFile } from 'node:fs/promises';
import * as path from 'node:path';
import { waitFor } from '../test/launch/util';
import {
  editorContextMenu, launchWorkbench, openFile, openViewContainer, quickPick, runCommand, screenshot, selectLines, surfaceFrame, typeInQuickInput, viewHeader,
} from '../test/e2e/workbench';
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
    await copyFile(answerShot, path.join(repoRoot(), 'media', 'screenshot.png'));

    // The Chat view: a question and its rendered answer.
    await runCommand(page, 'View: Close All Editors');
    await openFile(page, 'src/sample.ts');
    await openViewContainer(page, 'Application Query');
    // Give the Chat view the whole side bar.
    const applications = viewHeader(page, 'Applications');
    if ((await applications.getAttribute('aria-expanded')) === 'true') await applications.click();
    const chat = await surfaceFrame(page, 'chat');
    await chat.locator('select#aq-application').selectOption('demo-assistant');
    const input = chat.locator('textarea[aria-label="Ask the application"]');
    await input.fill('How do I memoise a recursive function in TypeScript?');
    await input.press('Enter');
    await waitFor('the chat answer', async () => (await chat.locator('[data-role="assistant"]').last().getAttribute('data-status')) === 'done' || undefined, 90_000);
    await page.mouse.move(0, 0);
    const chatShot = await screenshot(page, 'readme-chat');
    await copyFile(chatShot, path.join(repoRoot(), 'media', 'screenshot-chat.png'));
    console.log('wrote media/screenshot.png and media/screenshot-chat.png');
  } finally {
    await workbench.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exitCode = 1;
});
