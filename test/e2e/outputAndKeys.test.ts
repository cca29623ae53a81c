// Answers in the output channel, and the keys staying put: a hostile workspace cannot redirect
// requests, and a canary key never shows up in any channel, notification, webview or file on disk.
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { startCaptureServer, type CaptureServer } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { filesBelow, waitFor } from '../launch/util';
import { DEFAULT_FILES, e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { queryFromPalette, quickPick, runCommand, setApiKey, typeInQuickInput } from '../support/workbench/palette';
import { openFile, queryRightClickSelection } from '../support/workbench/editors';
import { clearNotifications, notificationCenterText } from '../support/workbench/notifications';
import { outputChannelText, waitForOutputText } from '../support/workbench/output';
import { openViewContainer, sendFromComposer, surfaceFrame } from '../support/workbench/views';

describe(`Output channel and key safety end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(240_000);
  let capture: CaptureServer | undefined;
  const wb = useWorkbench(async () => {
    capture = await startCaptureServer();
    return launchWorkbench({
      userSettings: { 'applicationQuery.output': 'outputChannel' },
      serviceOptions: { paceMs: 5, quiet: true },
      // A cloned repository that tries to send the keys to its own server.
      files: { ...DEFAULT_FILES, '.vscode/settings.json': JSON.stringify({ 'applicationQuery.baseUrl': capture.url }, null, 2) },
    });
  }, { beforeEach: clearNotifications, after: async () => capture?.close() });

  it('streams a file query into the "Application Query" output channel with a header and a footer', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await openFile(page, 'src/sample.ts');
    await runCommand(page, 'Application Query: Query Application with Current File');
    await quickPick(page, 'Demo Assistant');
    await typeInQuickInput(page, 'Review this file');
    await waitFor('the query to reach the service', () => service.requests.some((r) => r.path === '/api/applications/demo-assistant/query') || undefined, 60_000);
    const text = await waitForOutputText(page, 'Application Query', /HTTP 200 · .* · complete/, 120_000);
    assert.match(text, /✓ done/, 'the end of the answer arrived');
    const sent = service.requests.filter((r) => r.path === '/api/applications/demo-assistant/query').at(-1);
    assert.ok(sent && (JSON.parse(sent.body) as { query: string }).query.includes('export const greeting = "Grüße, 世界";'), 'the whole file was sent');
  });

  it('right-click a selection → Query Application with Selection streams the answer into the output channel', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await queryRightClickSelection(page, 'src/sample.ts', [2, 5], 'Demo Assistant', 'Explain the selection');
    // The header names the question and the selection; the footer says it is complete.
    const text = await waitForOutputText(page, 'Application Query', /“Explain the selection” with src\/sample\.ts:2-5[^]*?HTTP 200 · .* · complete/, 120_000);
    assert.ok(text.includes('if (n < 2) return n;'), 'the answer quotes the selection it was sent');
    const sent = service.requests.filter((r) => r.path === '/api/applications/demo-assistant/query').at(-1);
    const body = sent && (JSON.parse(sent.body) as { query: string }).query;
    assert.ok(body?.includes('export function fibonacci(n: number): number {'), 'the selection was sent');
    assert.ok(!body?.includes('greeting'), 'only the selection, not the whole file');
  });

  it('ignores a base URL from the workspace settings: the capture server gets nothing', () => {
    const { service } = wb();
    assert.ok(service.requests.some((r) => r.path === '/api/applications/demo-assistant/query'), 'queries went to the user-set service');
    assert.equal(capture?.requests.length, 0, 'nothing reached the workspace-set URL');
  });

  it('never shows the key: channels, notifications, webviews and files on disk stay free of it', async () => {
    const { page, service } = wb();
    const canary = service.keyFor('fail-401');
    await setApiKey(wb(), 'Revoked key', 'fail-401', canary);
    await queryFromPalette(page, 'Revoked key', 'hello');
    const center = await notificationCenterText(page, /HTTP 401/);
    const seen: string[] = [center];
    // The Chat view with this application, and the request it makes.
    await openViewContainer(page, 'Application Query');
    const chat = await surfaceFrame(page, 'chat');
    await chat.locator('select#aq-application').selectOption('fail-401');
    await sendFromComposer(chat, 'hello from the chat');
    await chat.locator('[data-role="assistant"][data-status="error"]').last().waitFor({ state: 'visible', timeout: 60_000 });
    seen.push(await chat.locator('body').innerText());
    seen.push(await outputChannelText(page, 'Application Query'));
    seen.push(await outputChannelText(page, 'Application Query Log'));
    await runCommand(page, 'Notifications: Show Notifications');
    seen.push(await page.locator('.notifications-center').innerText({ timeout: 10_000 }).catch(() => ''));
    for (const text of seen) {
      assert.ok(!text.includes(canary), 'the key is not shown');
    }
    assert.ok(seen.some((t) => t.includes('401')), 'the failure itself was shown');
    // Everything the server, the extension host and the workbench wrote to disk.
    await waitFor('the log files to be written', () => true, 1000);
    const files = [...(await filesBelow(wb().userDataDir)), ...(await filesBelow(wb().folder))];
    assert.ok(files.length > 5, 'there are files to check');
    for (const file of files) {
      const bytes = await readFile(file).catch(() => Buffer.alloc(0));
      assert.ok(!bytes.includes(canary), `the key is not in ${path.relative(wb().userDataDir, file)}`);
    }
    assert.ok(service.requests.some((r) => r.headers.authorization === `Bearer ${canary}`), 'the key did reach the service (the canary was live)');
  });
});
