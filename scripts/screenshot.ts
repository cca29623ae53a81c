// Retakes the README's screenshots from the real workbench: code-server with the extension
// installed, the reference service, headless Chromium. Writes docs/images/screenshot.png (the answer
// panel beside the editor, after a right-click query), docs/images/screenshot-chat.png (the Chat view) and
// docs/images/screenshot-history.png (the History view with one exchange open in the inspector); the
// VS Code Chat ones (see nativeChatScreenshots) and docs/images/screenshot-query-files.png (a query
// file with its CodeLens, the Testing view after a run, a failed expectation's diff peeked).
// Run: npm run build && npm run compile-tests && node out/scripts/screenshot.js
// (`--native-chat` or `--query-files` retakes only those.)
import { copyFile } from 'node:fs/promises';
import * as path from 'node:path';
import { waitFor } from '../test/launch/util';
import { DEFAULT_FILES, launchWorkbench } from '../test/support/workbench/launch';
import { quickPick, runCommand, setApiKey, typeInQuickInput } from '../test/support/workbench/palette';
import { codeLenses, editorContextMenu, editorOf, openFile, selectLines } from '../test/support/workbench/editors';
import { checkQuickPickItems, compareFrame, expandTestExplorerRow, openTestExplorer, openViewContainer, surfaceFrame, testExplorerRow, testExplorerRows, viewHeader } from '../test/support/workbench/views';
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

/** The query file of the Testing view's screenshot: one query that passes, one whose "contains" fails. */
const QUERY_FILE = [
  '# Support assistant checks',
  '',
  'Run before each release of the support assistant.',
  '',
  '## Greets the customer',
  '- application: demo-assistant',
  '- expect: contains "Answer"',
  '- expect: status 200',
  '- expect: first byte under 2s',
  '',
  'Hello! Can you help me with my order?',
  '',
  '## Quotes the refund policy',
  '- application: echo',
  '- expect: contains "30 days"',
  '',
  'What is your refund policy?',
  '',
].join('\n');

/**
 * Query files: a file open with its CodeLens, the Testing view after "Run Tests" (one query passed,
 * one failed) and the failure's diff peeked under its expect line (docs/images/screenshot-query-files.png).
 */
async function queryFilesScreenshot(): Promise<void> {
  const workbench = await launchWorkbench({ files: { ...DEFAULT_FILES, 'support.aq.md': QUERY_FILE }, serviceOptions: { paceMs: 20, quiet: true } });
  const { page } = workbench;
  try {
    for (const [name, id] of [['Demo Assistant', 'demo-assistant'], ['Echo', 'echo']]) await setApiKey(workbench, name, id);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await openFile(page, 'support.aq.md');
    const editor = editorOf(page, 'support.aq.md');
    await codeLenses(editor, 'Run', 2);
    await openTestExplorer(page);
    await expandTestExplorerRow(page, 'support.aq.md');
    await page.locator('.part.sidebar a.action-label[aria-label="Run Tests"]').filter({ visible: true }).first().click();
    await waitFor('one query passed and one failed', async () => {
      const rows = await testExplorerRows(page);
      const state = (label: string): string | undefined => rows.find((r) => r.label === label)?.state;
      return (state('Greets the customer') === 'passed' && state('Quotes the refund policy') === 'failed') || undefined;
    }, 90_000);
    // The editor gets the room the Test Results panel took; the failure's message opens in it.
    await runCommand(page, 'View: Hide Panel');
    await testExplorerRow(page, 'Quotes the refund policy').click();
    const peek = page.locator('.part.editor .zone-widget.test-output-peek').filter({ visible: true }).first();
    await peek.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30_000 });
    // Back to the top of the file, so every CodeLens shows above the peeked message.
    await editor.locator('.view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await codeLenses(editor, 'Run Query File (2 queries)');
    await page.mouse.move(0, 0);
    await page.waitForTimeout(500);
    await copyFile(await screenshot(page, 'readme-query-files'), path.join(repoRoot(), 'docs', 'images', 'screenshot-query-files.png'));
    console.log('wrote docs/images/screenshot-query-files.png');
  } finally {
    await workbench.close();
  }
}

/** The applications of the Compare screenshot, as Compare names them ("Name (id)"). */
const COMPARED: readonly [name: string, id: string][] = [
  ['Demo Assistant', 'demo-assistant'],
  ['OpenAI-style SSE', 'sse-openai'],
  ['Echo', 'echo'],
];

/**
 * Compare (docs/images/screenshot-compare.png): a selection asked of three applications at once,
 * their answers side by side in the Compare panel after streaming, the panel given the window's
 * width (no side bar, the source editor closed).
 */
async function compareScreenshot(): Promise<void> {
  const applications = [...COMPARED, ['Stall', 'stall']].map(([name, id]) => ({ id, name }));
  const workbench = await launchWorkbench({ userSettings: { 'applicationQuery.applications': applications }, serviceOptions: { paceMs: 20, quiet: true } });
  const { page } = workbench;
  try {
    for (const [name, id] of COMPARED) await setApiKey(workbench, name, id);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await openFile(page, 'src/sample.ts');
    await selectLines(page, 2, 5);
    await runCommand(page, 'Application Query: Compare Applications…');
    await checkQuickPickItems(page, COMPARED.map(([name, id]) => `${name} (${id})`));
    await typeInQuickInput(page, 'Explain this function and suggest a faster version');
    const panel = await compareFrame(page, 60_000, '[data-role="columns"]');
    const columns = panel.locator('section[data-role="column"]');
    await waitFor('three answers streamed to the end', async () => {
      const states = await columns.evaluateAll((sections) => sections.map((section) => section.getAttribute('data-status')));
      return (states.length === 3 && states.every((state) => state === 'done')) || undefined;
    }, 90_000);
    // The panel gets the window's width: the source editor (and its group) and the side bar go.
    await runCommand(page, 'View: Focus First Editor Group');
    await runCommand(page, 'View: Close Editor');
    await runCommand(page, 'View: Close Primary Side Bar');
    await runCommand(page, 'Notifications: Clear All Notifications');
    await waitFor('the columns side by side', async () => {
      const tops = await columns.evaluateAll((sections) => sections.map((section) => Math.round(section.getBoundingClientRect().top)));
      return (tops.length === 3 && new Set(tops).size === 1) || undefined;
    }, 30_000);
    await page.mouse.move(0, 0);
    await page.waitForTimeout(500);
    await copyFile(await screenshot(page, 'readme-compare'), path.join(repoRoot(), 'docs', 'images', 'screenshot-compare.png'));
    console.log('wrote docs/images/screenshot-compare.png');
  } finally {
    await workbench.close();
  }
}

// `--native-chat`, `--query-files` or `--compare` retakes only those screenshots; no flag retakes all of them.
const only = process.argv.includes('--native-chat') ? nativeChatScreenshots() : process.argv.includes('--query-files') ? queryFilesScreenshot() : process.argv.includes('--compare') ? compareScreenshot() : undefined;
(only ?? main().then(nativeChatScreenshots).then(queryFilesScreenshot).then(compareScreenshot)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : error);
  process.exitCode = 1;
});
