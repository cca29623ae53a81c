// The trust boundary in the real workbench: text from a service, an answer or a repository reaches
// notifications, progress messages and input boxes as plain text (no link, no icon, nothing that
// runs on a click), and a service that echoes the key never gets any piece of it shown, written to
// the output channel's file on disk, or kept in History.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { DEFAULT_FILES, e2eVersion, launchWorkbench, useWorkbench, type Workbench } from '../support/workbench/launch';
import { queryFromPalette, quickInput, quickPick, runCommand, setApiKey } from '../support/workbench/palette';
import { openFile } from '../support/workbench/editors';
import { clearNotifications, waitForNotification } from '../support/workbench/notifications';
import { outputChannelFile, waitForOutputText } from '../support/workbench/output';
import { filesUnder, keyPieces } from '../support/workbench/leaks';

/** A workspace file whose name is a command link. */
const HOSTILE_FILE = '[Fix it](command:workbench.action.closeAllEditors).md';

/**
 * Checks that `message` shows the hostile text's words with no link and no icon in it, then
 * clicks the words that would have been links: the editors stay open (the link would have closed
 * them) and no dialog asks to open a website.
 */
async function assertInert(page: Page, message: Locator, words: readonly string[]): Promise<void> {
  const text = (await message.textContent()) ?? '';
  for (const word of words) assert.ok(text.includes(word), `the message shows "${word}": ${text}`);
  assert.equal(await message.locator('a, .monaco-link').count(), 0, `no link in: ${text}`);
  assert.equal(await message.locator('.codicon-alert').count(), 0, `no icon in: ${text}`);
  const tabs = await page.locator('.part.editor .tab').count();
  assert.ok(tabs > 0, 'an editor is open before the click');
  for (const word of words) {
    await message.getByText(word, { exact: false }).first().click();
    await page.waitForTimeout(300);
  }
  assert.equal(await page.locator('.part.editor .tab').count(), tabs, 'clicking the text closed no editor');
  assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'clicking the text opened no dialog');
}

/** The message element of the newest toast that shows `text`. */
async function toastMessage(page: Page, text: string | RegExp, timeoutMs = 60_000): Promise<Locator> {
  const toast = await waitForNotification(page, text, timeoutMs);
  return toast.locator('.notification-list-item-message').first();
}

describe(`Outside text and keys at the trust boundary (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(240_000);
  const wb = useWorkbench(async () => {
    const workbench = await launchWorkbench({
      userSettings: { 'applicationQuery.output': 'outputChannel' },
      serviceOptions: { paceMs: 10, quiet: true },
      files: { ...DEFAULT_FILES, [HOSTILE_FILE]: '# A file with a hostile name\n\nIts name is a command link.\n' },
    });
    for (const [name, id] of [['Hostile 401', 'hostile-401'], ['Hostile SSE error', 'hostile-sse-error'], ['Hostile tail', 'hostile-tail'], ['Echo key', 'echo-key'], ['Demo Assistant', 'demo-assistant']]) {
      await setApiKey(workbench, name, id);
    }
    await openFile(workbench.page, 'README.md');
    return workbench;
  }, { beforeEach: async (workbench: Workbench) => clearNotifications(workbench) });

  it('a 401 whose body is a command link: the error notification shows it as text, and clicking it runs nothing', async () => {
    const { page } = wb();
    await queryFromPalette(page, 'Hostile 401', 'hello');
    const message = await toastMessage(page, /HTTP 401/);
    await assertInert(page, message, ['Fix it', 'Docs']);
  });

  it('an SSE error event that is a command link: the notification shows it as text', async () => {
    const { page } = wb();
    await queryFromPalette(page, 'Hostile SSE error', 'hello');
    const message = await toastMessage(page, /Fix it/);
    await assertInert(page, message, ['Fix it', 'Docs']);
  });

  it("the answer's last words in the progress notification are text", async () => {
    const { page } = wb();
    await queryFromPalette(page, 'Hostile tail', 'hello');
    // The service pauses 8 s after these words: the progress notification shows them meanwhile.
    const message = await toastMessage(page, /Docs/, 30_000);
    await assertInert(page, message, ['Docs']);
    assert.ok(((await message.textContent()) ?? '').includes('$'), 'the icon syntax shows as the text it is');
    await runCommand(page, 'Application Query: Stop Query');
  });

  it("the key check's failure text is plain text", async () => {
    const { page } = wb();
    await setApiKey(wb(), 'Hostile 500', 'hostile-500');
    const message = await toastMessage(page, /could not be checked/);
    await assertInert(page, message, ['Fix it']);
  });

  it("a workspace file whose name is a command link shows as text in the question box's prompt", async () => {
    const { page } = wb();
    await runCommand(page, 'View: Show Explorer');
    const row = page.locator('.explorer-folders-view .monaco-list-row').filter({ hasText: 'Fix it' }).first();
    await row.click();
    await page.locator('.part.editor .tab.active').filter({ hasText: 'Fix it' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await runCommand(page, 'Application Query: Query Application with Current File');
    await quickPick(page, 'Demo Assistant');
    const prompt = quickInput(page).locator('.quick-input-message');
    await waitFor('the prompt to name the file', async () => ((await prompt.textContent({ timeout: 1000 })) ?? '').includes('Fix it') || undefined, 30_000);
    assert.equal(await quickInput(page).locator('.quick-input-message a, .quick-input-message .monaco-link').count(), 0, 'no link in the prompt');
    await prompt.getByText('Fix it', { exact: false }).first().click();
    await page.waitForTimeout(300);
    assert.ok(await quickInput(page).isVisible(), 'the question box is still open: the click ran nothing');
    await page.keyboard.press('Escape');
    assert.ok((await page.locator('.part.editor .tab').count()) > 0, 'the editors are still open');
  });

  it('a service that echoes the key: no piece of it in the output channel, its file on disk, notifications or History', async () => {
    const { page, service, userDataDir } = wb();
    const key = service.keyFor('echo-key');
    await queryFromPalette(page, 'Echo key', 'hello');
    const text = await waitForOutputText(page, 'Application Query', /That was all of it[^]*complete/, 60_000);
    assert.deepEqual(keyPieces(text, key), [], 'the output channel shows no piece of the key');
    assert.ok(text.includes(`••••${key.slice(-4)}`), 'the key shows as its mask');
    const toasts = (await page.locator('.notifications-toasts').textContent()) ?? '';
    assert.deepEqual(keyPieces(toasts, key), [], 'no notification shows a piece of the key');
    // Everything the workbench wrote: the channel's log file, History, settings, logs.
    const channelFile = outputChannelFile({ userDataDir }, 'Application Query');
    assert.ok(channelFile !== undefined && readFileSync(channelFile, 'utf8').includes('That was all of it'), 'the channel file holds the answer');
    await waitFor('History to record the exchange', () => filesUnder(userDataDir).some((file) => readFileSync(file, 'latin1').includes('That was all of it') && !file.endsWith('.log')) || undefined, 30_000);
    for (const file of filesUnder(userDataDir)) {
      const content = readFileSync(file, 'latin1');
      assert.deepEqual(keyPieces(content, key), [], `${path.relative(userDataDir, file)} holds no piece of the key`);
    }
  });
});
