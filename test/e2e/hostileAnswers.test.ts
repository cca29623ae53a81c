// Answers built to hurt, in the real workbench with the answer panel: a service that echoes pieces of
// the key (split across SSE events, its first 20 characters, HTML character references) leaves no
// piece in the panel, a notification or any file the workbench wrote; and an answer of backslashes
// (which once froze the extension host while the key was masked) streams while the host stays
// responsive.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { APPLICATIONS } from '../../service/apps';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { filesUnder, filesWithPieces, keyPieces } from '../support/workbench/leaks';
import { closeQuickInput, queryFromPalette, quickPickLabels, runCommand, setApiKey } from '../support/workbench/palette';
import { clearNotifications, waitForNotification } from '../support/workbench/notifications';
import { surfaceFrame } from '../support/workbench/views';
import { readFileSync } from 'node:fs';

/** The size of the answer of backslashes: masking it the old way took minutes of the extension host. */
const BACKSLASH_BYTES = 256 * 1024;

/** The answer turn of the panel that shows `question`, once it has ended; its text. */
async function finishedAnswer(page: Page, question: string): Promise<string> {
  const frame = await surfaceFrame(page, 'panel', 60_000, `[data-role="user"]:has-text(${JSON.stringify(question)})`);
  const answer = frame.locator('[data-role="assistant"]').last();
  await waitFor(`the answer to "${question}" to end`, async () => ((await answer.getAttribute('data-status')) ?? 'streaming') !== 'streaming' || undefined, 120_000);
  return (await frame.locator('body').textContent()) ?? '';
}

describe(`Hostile answers in the answer panel (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(300_000);
  const wb = useWorkbench(
    async () => {
      const workbench = await launchWorkbench({
        serviceOptions: { paceMs: 5, quiet: true },
        userSettings: {
          'applicationQuery.applications': APPLICATIONS.map(({ id, name }) => (id === 'backslashes' ? { id, name, requestTemplate: { query: '${input}', size: BACKSLASH_BYTES } } : { id, name })),
        },
      });
      for (const [name, id] of [['Echo key (SSE)', 'echo-key-sse'], ['Echo key (401)', 'echo-key-401'], ['Backslashes', 'backslashes']]) await setApiKey(workbench, name, id);
      return workbench;
    },
    { beforeEach: clearNotifications },
  );

  it('a key split across SSE events, cut short and written as character references: no piece of it on screen or on disk', async () => {
    const { page, service, userDataDir } = wb();
    const key = service.keyFor('echo-key-sse');
    await queryFromPalette(page, 'Echo key (SSE)', 'show me my key');
    const shown = await finishedAnswer(page, 'show me my key');
    assert.ok(shown.includes('That was all of it'), 'the whole answer arrived');
    assert.deepEqual(keyPieces(shown, key), [], 'the panel shows no piece of the key (also none the Markdown renderer decoded from references)');
    assert.ok(shown.includes('••••'), 'the pieces show as masks');
    const toasts = (await page.locator('.notifications-toasts').textContent()) ?? '';
    assert.deepEqual(keyPieces(toasts, key), [], 'no notification shows a piece of the key');
    await waitFor('History to record the exchange', () => filesUnder(userDataDir).some((file) => readFileSync(file, 'latin1').includes('That was all of it') && !file.endsWith('.log')) || undefined, 30_000);
    assert.deepEqual(filesWithPieces(userDataDir, key), [], 'no file the workbench wrote holds a piece of the key');
  });

  it("a 401 whose body quotes the key's first 20 characters: the notification and History hold no piece of it", async () => {
    const { page, service, userDataDir } = wb();
    const key = service.keyFor('echo-key-401');
    await queryFromPalette(page, 'Echo key (401)', 'hello');
    const toast = await waitForNotification(page, /HTTP 401/, 60_000);
    const message = (await toast.textContent()) ?? '';
    assert.match(message, /Invalid API key ••••/, 'the service\'s words show, the key masked');
    assert.deepEqual(keyPieces(message, key), [], 'the notification shows no piece of the key');
    await waitFor('History to record the failure', () => filesUnder(userDataDir).some((file) => readFileSync(file, 'latin1').includes('check your dashboard') && !file.endsWith('.log')) || undefined, 30_000);
    assert.deepEqual(filesWithPieces(userDataDir, key), [], 'no file the workbench wrote holds a piece of the key');
  });

  it('an answer of backslashes streams whole while the extension host keeps answering', async () => {
    const { page, service } = wb();
    await queryFromPalette(page, 'Backslashes', 'backslashes please');
    // While the answer streams, a command of the extension's answers from the host: its picker opens.
    await waitFor('the service to start the answer', () => service.requests.some((r) => r.path === '/api/applications/backslashes/query') || undefined, 60_000);
    await runCommand(page, 'Application Query: Select Application…');
    await waitFor('the extension host to answer with its applications', async () => (await quickPickLabels(page)).some((label) => label.includes('Backslashes')) || undefined, 30_000);
    await closeQuickInput(page);
    const shown = await finishedAnswer(page, 'backslashes please');
    assert.ok(/\\{1000}/.test(shown), 'the backslashes are in the panel');
  });
});
