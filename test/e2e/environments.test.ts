// Environments as a person uses them: the status bar shows where queries go, Select Environment…
// switches it, and a key saved for one service is never offered to another.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startCaptureServer, startService, type CaptureServer, type ReferenceService } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { quickInput, quickInputMessage, quickPick, runCommand, setApiKey, queryFromPalette } from '../support/workbench/palette';
import { clearNotifications } from '../support/workbench/notifications';

/** The text of the environment's status bar item. */
async function environmentItem(page: Page, expected: RegExp): Promise<string> {
  return waitFor(`the status bar to show the environment ${String(expected)}`, async () => {
    const texts = await page.locator('.part.statusbar .statusbar-item').allInnerTexts();
    return texts.find((text) => expected.test(text));
  }, 30_000, 200);
}

describe(`Environments end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(240_000);
  let capture: CaptureServer | undefined;
  let reference: ReferenceService | undefined;
  const wb = useWorkbench(async () => {
    capture = await startCaptureServer();
    reference = await startService({ paceMs: 5, quiet: true });
    const environments = { local: { baseUrl: reference.url }, staging: { baseUrl: capture.url } };
    return launchWorkbench({ service: reference, userSettings: { 'applicationQuery.environments': environments } });
  }, {
    beforeEach: clearNotifications,
    after: async () => {
      await capture?.close();
      await reference?.close();
    },
  });

  it('Select Environment… switches the service; the status bar says which; keys stay with their service', async () => {
    const { page, service } = wb();
    assert.ok(capture);
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    // With environments in the user's settings and none selected, the status bar says so.
    await environmentItem(page, /default/);

    await runCommand(page, 'Application Query: Select Environment…');
    await quickPick(page, 'staging');
    await environmentItem(page, /staging/);

    // No key was saved for staging's service: the query asks for one there and sends nothing.
    await queryFromPalette(page, 'Demo Assistant', 'hello staging');
    await waitFor('the password box for staging', async () => ((await quickInput(page).isVisible()) && (await quickInputMessage(page)).includes(new URL(capture!.url).host)) || undefined, 30_000, 200);
    assert.match(await quickInputMessage(page), /staging/, 'the box names the environment');
    await page.keyboard.press('Escape');
    await page.waitForTimeout(500);
    assert.equal(capture.requests.length, 0, 'staging received nothing, least of all the other key');

    await runCommand(page, 'Application Query: Select Environment…');
    await quickPick(page, 'local');
    await environmentItem(page, /local/);
    const before = service.requests.length;
    await queryFromPalette(page, 'Demo Assistant', 'hello local');
    await waitFor('the query at the local service', () => service.requests.slice(before).some((r) => r.path === '/api/applications/demo-assistant/query' && r.headers.authorization === `Bearer ${service.keyFor('demo-assistant')}`) || undefined, 30_000);
  });
});
