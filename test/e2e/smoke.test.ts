// The workbench loads with the extension and a person can reach it: activity bar, views, palette,
// editor context menu, output. Phrased so it keeps holding as the commands grow real behaviour.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { paletteHasCommand, quickInput, runCommand } from '../support/workbench/palette';
import { editorContextMenu, openFile, selectLines } from '../support/workbench/editors';
import { activeOutputChannel, hasOutputChannel, outputChannelText, showOutputChannel } from '../support/workbench/output';
import { openViewContainer, viewHeader } from '../support/workbench/views';
import { extensionHostLog, isExtensionActivated, waitForActivation } from '../support/workbench/diagnostics';
import { VSCODE_VERSION_OF } from '../launch/codeServer';

/** A quick input or a notification: what any of the extension's commands shows first. */
async function waitForVisibleResponse(page: Page): Promise<'quick input' | 'notification'> {
  const toast = page.locator('.notifications-toasts .notification-toast');
  await quickInput(page).or(toast).first().waitFor({ state: 'visible', timeout: 60_000 });
  return (await quickInput(page).isVisible()) ? 'quick input' : 'notification';
}

async function dismiss(page: Page): Promise<void> {
  for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
  await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(async () => {
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.press('Escape');
  });
}

describe(`Workbench smoke (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(180_000);
  const wb = useWorkbench(() => launchWorkbench());

  it('shows the Application Query container with its Chat and Applications views, and activates', async () => {
    const { page } = wb();
    await openViewContainer(page, 'Application Query');
    await viewHeader(page, 'Chat').waitFor({ state: 'visible' });
    await viewHeader(page, 'Applications').waitFor({ state: 'visible' });
    // Showing its views is an activation event: the extension host must start the extension cleanly.
    await waitForActivation(wb());
    assert.equal(isExtensionActivated(wb()), true);
    assert.doesNotMatch(extensionHostLog(wb()) ?? '', /Activating extension .?application-query\.application-query.? failed/i);
  });

  it('lists "Application Query: Query Application" in the command palette', async () => {
    assert.equal(await paletteHasCommand(wb().page, 'Application Query: Query Application'), true);
    // The list is loaded by now, so a short wait is enough to tell a missing command.
    assert.equal(await paletteHasCommand(wb().page, 'Application Query: No Such Command', 3000), false, 'the palette check can tell a missing command');
  });

  it('running "Query Application" from the palette shows a quick pick or a notification', async () => {
    const { page } = wb();
    await runCommand(page, 'Application Query: Query Application');
    const shown = await waitForVisibleResponse(page);
    assert.ok(shown === 'quick input' || shown === 'notification');
    await dismiss(page);
  });

  it('offers "Query Application with Selection" on a right-click of a selection', async () => {
    const { page } = wb();
    await openFile(page, 'src/sample.ts');
    await selectLines(page, 2, 5);
    await editorContextMenu(page, 'Query Application with Selection');
    await waitForVisibleResponse(page);
    await dismiss(page);
  });

  it('shows the "Application Query Log" channel in the Output view', async function () {
    const { page } = wb();
    if (!(await hasOutputChannel(page, 'Application Query Log'))) {
      this.skip();
    }
    await showOutputChannel(page, 'Application Query Log');
    assert.equal(await activeOutputChannel(page), 'Application Query Log');
    // Reading a channel works the same for every channel; the extension host's own log is never empty.
    const hostLog = await outputChannelText(page, 'Extension Host (Remote)');
    assert.match(hostLog, /_doActivateExtension application-query\.application-query/);
    assert.equal(await activeOutputChannel(page), 'Extension Host (Remote)');
  });
});
