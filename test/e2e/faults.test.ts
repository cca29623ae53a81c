// Failures as a person meets them in the workbench, against the reference service's fault
// applications: rate limiting with Retry-After, a captive-portal page, a redirect to another origin,
// a stream cut off midway. Each must be a clear message, keep what arrived, and send nothing astray.
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { startCaptureServer, type CaptureServer } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { queryFromPalette, runCommand, setApiKey } from '../support/workbench/palette';
import { clearNotifications, notificationCenterText } from '../support/workbench/notifications';
import { surfaceFrame } from '../support/workbench/views';

/** The answer in the panel of `applicationName`, once it has ended with `status`. */
async function endedAnswer(page: Page, applicationName: string, status: 'error' | 'interrupted'): Promise<Locator> {
  const panel = await surfaceFrame(page, 'panel', 60_000, `[data-role="title"]:has-text("${applicationName}")`);
  const answer = panel.locator('[data-role="assistant"]').last();
  await waitFor(`the answer to end as ${status}`, async () => (await answer.getAttribute('data-status', { timeout: 1000 })) === status || undefined, 60_000);
  return answer;
}

describe(`Failures end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(240_000);
  let capture: CaptureServer | undefined;
  const wb = useWorkbench(async () => {
    capture = await startCaptureServer();
    const workbench = await launchWorkbench({ serviceOptions: { paceMs: 15, quiet: true, redirectTarget: capture.url } });
    for (const [name, id] of [['Rate limited', 'fail-429'], ['Captive portal', 'html'], ['Redirect', 'redirect'], ['Cut off', 'cutoff']]) {
      await setApiKey(workbench, name, id);
    }
    return workbench;
  }, {
    // One answer panel at a time, and no toasts left from the test before.
    beforeEach: async (workbench) => {
      await runCommand(workbench.page, 'View: Close All Editors');
      await clearNotifications(workbench);
    },
    after: async () => capture?.close(),
  });

  it('429 with Retry-After: the answer shows HTTP 429 and the notification offers Retry with the wait', async () => {
    const { page, service } = wb();
    await queryFromPalette(page, 'Rate limited', 'hello');
    await waitFor('the 429 at the service', () => service.requests.find((r) => r.applicationId === 'fail-429' && r.status === 429), 30_000);
    const answer = await endedAnswer(page, 'Rate limited', 'error');
    assert.match((await answer.innerText()).replace(/\s+/g, ' '), /HTTP 429/);
    const center = await notificationCenterText(page, /HTTP 429/);
    assert.match(center, /Retry in 7(\.0)? s/, 'Retry names the wait from Retry-After');
    await runCommand(page, 'Notifications: Clear All Notifications');
  });

  it('a captive-portal page (200 text/html) is reported and never rendered', async () => {
    const { page } = wb();
    await queryFromPalette(page, 'Captive portal', 'hello');
    const answer = await endedAnswer(page, 'Captive portal', 'error');
    const text = (await answer.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /HTML page/, 'the message says an HTML page came instead of an answer');
    assert.doesNotMatch(text, /Sign in to continue/, 'the page itself is not shown');
    assert.equal(await answer.locator('form, button:has-text("Accept and connect")').count(), 0, 'nothing of the page is rendered');
  });

  it('a redirect is refused, names its target, and the other origin receives nothing', async () => {
    const { page } = wb();
    await queryFromPalette(page, 'Redirect', 'hello');
    const answer = await endedAnswer(page, 'Redirect', 'error');
    const text = (await answer.innerText()).replace(/\s+/g, ' ');
    assert.ok(capture, 'the capture server runs');
    assert.ok(text.includes(new URL(capture.url).host), `the message names the target (${text})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(capture.requests.length, 0, 'no request reached the other origin');
  });

  it('a stream cut off midway keeps what arrived and says how much', async () => {
    const { page } = wb();
    await queryFromPalette(page, 'Cut off', 'hello');
    const answer = await endedAnswer(page, 'Cut off', 'interrupted');
    assert.ok(((await answer.locator('.aq-answer').textContent()) ?? '').trim().length > 100, 'the partial answer is kept');
    assert.match((await answer.innerText()).replace(/\s+/g, ' '), /interrupted after \d+ bytes/i);
  });
});
