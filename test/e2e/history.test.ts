// History and the inspector as a person uses them: run a query, find it in History, open the
// request and response, replay it, copy it as cURL, reload the window and find it again, and run
// Diagnose Connection against the reference service and against a stopped one.
import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, reloadWindow, useWorkbench } from '../support/workbench/launch';
import { queryFromPalette, runCommand, setApiKey } from '../support/workbench/palette';
import { activeEditor, clickMenuEntry } from '../support/workbench/editors';
import { clearNotifications, waitForNotification } from '../support/workbench/notifications';
import { openViewContainer } from '../support/workbench/views';

const QUERY_PATH = '/api/applications/demo-assistant/query';

function historyPane(page: Page): Locator {
  return page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: /^\s*History\s*$/i }) }).first();
}

/** The History rows, newest first, once the view shows at least `count` of them. */
async function historyRows(page: Page, count = 1): Promise<Locator> {
  await openViewContainer(page, 'Application Query');
  const pane = historyPane(page);
  const header = pane.locator('.pane-header');
  await header.waitFor({ state: 'visible', timeout: 30_000 });
  if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
  const rows = pane.locator('.monaco-list-row');
  await waitFor(`${count} History row(s)`, async () => (await rows.count()) >= count || undefined, 60_000);
  return rows;
}

/** The text of the active editor (the top of it: enough for these checks). */
async function editorText(page: Page, expected: RegExp): Promise<string> {
  return waitFor(`the editor to show ${String(expected)}`, async () => {
    const text = (await activeEditor(page).locator('.view-lines').innerText().catch(() => '')).replace(/\u00a0/g, ' ');
    return expected.test(text) ? text : undefined;
  }, 60_000);
}

describe(`History and inspector end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(300_000);
  // Reports are read from the editor's lines: no soft wrapping, so each line is whole.
  const noWrap = { 'editor.wordWrap': 'off', '[markdown]': { 'editor.wordWrap': 'off' } };
  const wb = useWorkbench(() => launchWorkbench({ userSettings: noWrap, serviceOptions: { paceMs: 2, quiet: true } }), { beforeEach: clearNotifications });

  it('records a query, and the inspector shows the request (key masked) and the response', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await queryFromPalette(page, 'Demo Assistant', 'What is in History?');
    await waitFor('the answer to finish', () => service.requests.some((r) => r.path === QUERY_PATH && r.status === 200) || undefined, 60_000);
    const rows = await historyRows(page);
    const row = rows.first();
    assert.match((await row.innerText()).replace(/\s+/g, ' '), /Demo Assistant.*HTTP 200 · done/);
    await row.click();
    const key = service.keyFor('demo-assistant');
    const text = await editorText(page, /## Response/);
    assert.ok(text.includes(`Authorization: Bearer ••••${key.slice(-4)}`), 'the key shows masked, its last 4 characters only');
    assert.ok(!text.includes(key), 'never the key itself');
    assert.match(text, /POST http:\/\/127\.0\.0\.1:\d+\/api\/applications\/demo-assistant\/query/);
    assert.match(text, /What is in History\?/);
    assert.match(text, /HTTP 200/);
  });

  it('Replay Query from the row\'s menu sends the same body again and adds it to History', async () => {
    const { page, service } = wb();
    const rows = await historyRows(page);
    const before = service.requests.filter((r) => r.path === QUERY_PATH);
    await rows.first().click({ button: 'right' });
    await clickMenuEntry(page, 'Replay Query');
    const replayed = await waitFor('the replayed request', () => service.requests.filter((r) => r.path === QUERY_PATH).slice(before.length).find((r) => r.status === 200), 60_000);
    assert.equal(replayed.body, before.at(-1)?.body, 'the body is the recorded one, byte for byte');
    await historyRows(page, 2);
  });

  it('Copy as cURL puts a command with $APPLICATION_QUERY_KEY on the clipboard, never the key', async () => {
    const { page, service } = wb();
    const rows = await historyRows(page);
    await rows.first().click({ button: 'right' });
    await clickMenuEntry(page, 'Copy as cURL');
    await waitForNotification(page, /Copied a cURL command/);
    const command = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(command, /^curl -N -X POST --url 'http:\/\/127\.0\.0\.1:\d+\/api\/applications\/demo-assistant\/query'/);
    assert.ok(command.includes('"Authorization: Bearer $APPLICATION_QUERY_KEY"'));
    assert.ok(!command.includes(service.keyFor('demo-assistant')));
  });

  it('keeps History across a window reload', async () => {
    const { page } = wb();
    await reloadWindow(wb());
    const rows = await historyRows(page, 2);
    assert.match((await rows.first().innerText()).replace(/\s+/g, ' '), /Demo Assistant/);
  });

  it('Diagnose Connection reports every check against the running service, the key check included', async () => {
    const { page } = wb();
    await runCommand(page, 'Application Query: Diagnose Connection');
    const text = await editorText(page, /connection diagnosis/);
    assert.match(text, /Every check passed/);
    assert.match(text, /demo-assistant/);
  });

  it('Diagnose Connection says the connection is refused when the service is stopped', async () => {
    const { page, service } = wb();
    // Closing stops listening at once; the promise waits for open keep-alive connections, so it is not awaited.
    void service.close().catch(() => undefined);
    const port = Number(new URL(service.url).port);
    await waitFor('the service to stop listening', () => new Promise<true | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(undefined); });
      socket.once('error', () => resolve(true));
    }), 30_000);
    await runCommand(page, 'Application Query: Diagnose Connection');
    const text = await editorText(page, /connection diagnosis[^]*(refused|failed)/);
    assert.match(text, /connection refused at 127\.0\.0\.1:\d+/);
  });
});
