// The command flows as a person drives them: Set API Key…, right-click a selection, the answer panel,
// failure notifications with their status codes, and Stop.
import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { queryFromPalette, quickInput, quickPick, runCommand, setApiKey, typeInQuickInput } from '../support/workbench/palette';
import { queryRightClickSelection } from '../support/workbench/editors';
import { clearNotifications, clickNotificationButton, notificationCenterText, waitForNotification } from '../support/workbench/notifications';
import { surfaceFrame } from '../support/workbench/views';
import { assertKeptAfterStop, settledText } from '../support/workbench/text';
import { APPLICATIONS } from '../../service/apps';

/**
 * Each application has an answer panel of its own, and the panel of an earlier query may be on
 * screen until this query's panel opens over it: the panel is the one that shows `question`.
 */
function showing(question: string): string {
  return `[data-role="user"]:has-text(${JSON.stringify(question)})`;
}

/** The latest answer turn of the answer panel that shows `question`. */
async function panelAnswer(page: Page, question: string): Promise<Locator> {
  return (await surfaceFrame(page, 'panel', 60_000, showing(question))).locator('[data-role="assistant"]').last();
}

/** `timed` as one long code block (512 KiB of TypeScript in 16 KiB pieces, 16 ms apart: about half a second). */
const CODE_APP = 'Timed (code)';
const CODE_TEMPLATE = { query: '${input}', delayMs: 0, size: 512 * 1024, chunkBytes: 16 * 1024, paceMs: 16, shape: 'code' };

describe(`Query commands end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(240_000);
  const wb = useWorkbench(
    () =>
      launchWorkbench({
        serviceOptions: { paceMs: 15, quiet: true },
        userSettings: { 'applicationQuery.applications': APPLICATIONS.map(({ id, name }) => (id === 'timed' ? { id, name: CODE_APP, requestTemplate: CODE_TEMPLATE } : { id, name })) },
      }),
    { beforeEach: clearNotifications },
  );

  it('Set API Key… takes the key in a password box, stores it, and checks it with the service', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await waitForNotification(page, /API key saved for Demo Assistant.*accepted by the service/, 60_000);
    const check = service.requests.find((r) => r.method === 'GET' && r.path === '/api/applications/demo-assistant');
    assert.ok(check, 'the key was checked with GET /api/applications/{id}');
    assert.equal(check.headers.authorization, `Bearer ${service.keyFor('demo-assistant')}`);
  });

  it('refuses a key with whitespace at entry', async () => {
    const { page } = wb();
    await runCommand(page, 'Application Query: Set API Key…');
    await quickPick(page, 'Echo');
    const box = quickInput(page).locator('.quick-input-box input').first();
    await box.fill('abc def');
    await waitFor('the refusal', async () => /whitespace|space/i.test((await quickInput(page).textContent()) ?? '') || undefined, 10_000);
    await page.keyboard.press('Escape');
  });

  it('right-click a selection → Query Application with Selection streams the answer into the panel', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await queryRightClickSelection(page, 'src/sample.ts', [2, 5], 'Demo Assistant', 'Explain this function');
    const answer = await panelAnswer(page, 'Explain this function');
    await answer.waitFor({ state: 'attached', timeout: 60_000 });
    await waitFor('the answer to finish', async () => ((await answer.getAttribute('data-status')) === 'done' && (await answer.getAttribute('aria-busy')) === 'false') || undefined, 90_000);
    const frame = await surfaceFrame(page, 'panel', 60_000, showing('Explain this function'));
    assert.ok((await answer.locator('.aq-answer h1, .aq-answer h2, .aq-answer h3').count()) > 0, 'the markdown heading is rendered');
    assert.ok((await answer.locator('.aq-code, pre code').count()) > 0, 'the code block is rendered');
    assert.match((await frame.locator('[data-role="http-status"]').first().textContent()) ?? '', /200/);
    const sent = service.requests.filter((r) => r.path === '/api/applications/demo-assistant/query').at(-1);
    assert.ok(sent, 'the service received the query');
    const body = JSON.parse(sent.body) as { query: string };
    assert.ok(body.query.includes('Explain this function'), 'the question was sent');
    assert.ok(body.query.includes('export function fibonacci(n: number): number {'), 'the selection was sent');
  });

  it('a long code block streams into the panel, highlighted, and ends whole', async () => {
    const { page } = wb();
    await setApiKey(wb(), CODE_APP, 'timed');
    await queryFromPalette(page, CODE_APP, 'Show me the whole file');
    // The panel that shows this question (see `showing`; on a busy machine a locator held on the
    // earlier query's panel waited 90 s for nothing), found again on each look.
    const asked = showing('Show me the whole file');
    const { answer } = await waitFor(
      'the code to end and be all rendered',
      async () => {
        const found = await surfaceFrame(page, 'panel', 10_000, asked).catch(() => undefined);
        const last = found?.locator('[data-role="assistant"]').last();
        if (found === undefined || last === undefined) return undefined;
        const read = (name: string): Promise<string | null> => last.getAttribute(name, { timeout: 2000 }).catch(() => null);
        return ((await read('data-status')) === 'done' && (await read('aria-busy')) === 'false') ? { frame: found, answer: last } : undefined;
      },
      90_000,
      100,
    );
    const functions = Number(/Functions: (\d+)\./.exec((await answer.locator('.aq-answer p').last().textContent()) ?? '')?.[1]);
    const code = await answer.locator('.aq-code code').first().evaluate((element) => ({
      text: element.textContent ?? '',
      keywords: element.querySelectorAll('.hljs-keyword').length,
      foreign: [...element.querySelectorAll('*')].filter((child) => child.tagName !== 'SPAN').length,
    }));
    assert.ok(functions > 1000, `the closing paragraph names the functions: ${functions}`);
    assert.ok(code.text.includes(`export async function step${functions}(`) && code.text.includes('export async function step1('), 'the code is all there, first to last');
    // Highlighted up to its first 128 KiB (about 700 functions), plain after.
    assert.ok(code.keywords > 1500, `the code is highlighted: ${code.keywords} keywords`);
    assert.equal(code.foreign, 0, 'only spans and text inside the code');
  });

  it('the application picker stays open while the focus moves into the answer panel, and the query goes on', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await queryFromPalette(page, 'Demo Assistant', 'First question');
    const first = await panelAnswer(page, 'First question');
    await waitFor('the first answer to finish', async () => ((await first.getAttribute('data-status')) === 'done' && (await first.getAttribute('aria-busy')) === 'false') || undefined, 90_000);
    // The palette's command shows the picker while the focus may still be on its way back to the
    // panel's webview (it was there before the palette opened): the picker must not close on it.
    await runCommand(page, 'Application Query: Query Application');
    await quickInput(page).waitFor({ state: 'visible', timeout: 30_000 });
    // A click low in the panel, away from the picker above it, as a person reaching for the answer would.
    const box = await (await surfaceFrame(page, 'panel')).locator('body').boundingBox();
    assert.ok(box, 'the panel is on screen');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height - 40);
    await page.waitForTimeout(500);
    assert.ok(await quickInput(page).isVisible(), 'the picker is still open after a click in the panel');
    const before = service.requests.length;
    await quickPick(page, 'Demo Assistant');
    await typeInQuickInput(page, 'Second question');
    const sent = await waitFor('the second query', () => service.requests.slice(before).find((r) => r.path === '/api/applications/demo-assistant/query') ?? undefined, 30_000);
    assert.ok(sent.body.includes('Second question'), 'the question typed after the click was sent');
  });

  it('shows HTTP 401 in an error notification with a Set API Key… action', async () => {
    const { page, service } = wb();
    await queryFromPalette(page, 'Revoked key', 'hello');
    // No key yet: the query asks for one instead of failing.
    await typeInQuickInput(page, service.keyFor('fail-401'), { password: true });
    const toast = await waitForNotification(page, /HTTP 401/, 60_000);
    assert.ok(await toast.locator('.monaco-button', { hasText: 'Set API Key…' }).count(), 'Set API Key… is offered');
  });

  it('shows HTTP 500 in an error notification with Retry and Show Log', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Server error', 'fail-500');
    await queryFromPalette(page, 'Server error', 'hello');
    await waitFor('the query to reach the service', () => service.requests.find((r) => r.path === '/api/applications/fail-500/query' && r.status === 500), 30_000);
    const center = await notificationCenterText(page, /HTTP 500/);
    assert.match(center, /Retry/, 'Retry is offered');
    assert.match(center, /Show Log/, 'Show Log is offered');
    await runCommand(page, 'Notifications: Clear All Notifications');
  });

  /**
   * Asks the stalling application from the palette, waits until part of the answer shows in the
   * panel, stops it with `stop`, and checks that the answer is marked stopped, keeps exactly what
   * had arrived, and that the service saw the connection close.
   */
  async function stopStalledQuery(question: string, stop: () => Promise<void>, beforeStop?: () => Promise<void>): Promise<void> {
    const { page, service } = wb();
    const before = service.requests.length;
    await queryFromPalette(page, 'Stall', question);
    await beforeStop?.();
    const answer = await panelAnswer(page, question);
    const answerText = async (): Promise<string> => ((await answer.locator('.aq-answer').textContent({ timeout: 1000 }).catch(() => '')) ?? '').trim();
    // The stalling application sends a few pieces, then nothing: wait until the text stops changing.
    const partial = await settledText(answer.locator('.aq-answer'), 'part of the answer, then silence');
    await stop();
    await waitFor('the answer to show it stopped', async () => (await answer.getAttribute('data-status')) === 'stopped' || undefined, 30_000);
    assertKeptAfterStop(await answerText(), partial);
    await waitFor('the service to see the connection close', () => service.requests.slice(before).find((r) => r.path === '/api/applications/stall/query' && r.closedByClientAt) ?? undefined, 10_000);
  }

  it('Stop Query keeps the partial answer and is not reported as an error', async () => {
    const { page } = wb();
    await setApiKey(wb(), 'Stall', 'stall');
    await stopStalledQuery('hello', () => runCommand(page, 'Application Query: Stop Query'));
    assert.equal(await page.locator('.notifications-toasts .notification-toast').filter({ hasText: /Stall.*(failed|error)/i }).count(), 0);
  });

  it('the progress notification names the application and shows HTTP 200 and what arrived; its Cancel stops the query', async () => {
    const { page } = wb();
    await setApiKey(wb(), 'Stall', 'stall');
    await clearNotifications(wb());
    let progress: Locator | undefined;
    await stopStalledQuery('hello again', async () => {
      assert.ok(progress, 'the progress notification showed');
      await clickNotificationButton(progress, 'Cancel');
    }, async () => {
      progress = await waitForNotification(page, /Querying Stall.*HTTP 200 · [\d,]+ characters/s, 60_000);
    });
  });
});
