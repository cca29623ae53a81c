// The Chat view as a person uses it: type, watch the answer stream in rendered, Stop, Insert at
// Cursor, and find the conversation again after a window reload.
import * as assert from 'node:assert/strict';
import type { FrameLocator, Page } from 'playwright-core';
import { startService, type ReferenceService } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, reloadWindow, useWorkbench } from '../support/workbench/launch';
import { setApiKey } from '../support/workbench/palette';
import { activeEditor, openFile } from '../support/workbench/editors';
import { openViewContainer, sendFromComposer, surfaceFrame } from '../support/workbench/views';
import { assertKeptAfterStop, settledText } from '../support/workbench/text';

/** The request body for the echo application in this suite: echo streams it back, slowly. */
const SLOW_ECHO = { query: '${input}', __chunkBytes: 8, __paceMs: 20 };

function chat(page: Page, timeoutMs?: number): Promise<FrameLocator> {
  return surfaceFrame(page, 'chat', timeoutMs);
}

async function ask(page: Page, applicationId: string, question: string): Promise<void> {
  const frame = await chat(page);
  await frame.locator('select#aq-application').selectOption(applicationId);
  await sendFromComposer(frame, question);
}

async function statusOf(frame: FrameLocator, index: number): Promise<string | null> {
  return frame.locator('[data-role="assistant"]').nth(index).getAttribute('data-status');
}

describe(`Chat view end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(400_000);
  let service: ReferenceService | undefined;
  const wb = useWorkbench(async () => {
    service = await startService({ paceMs: 15, quiet: true });
    // Echo streams the request body back; this template makes it slow (8 bytes every 20 ms), so an
    // answer is still streaming when the test looks away from the Chat view.
    const applications = service.applications.map(({ id, name }) => (id === 'echo' ? { id, name, requestTemplate: SLOW_ECHO } : { id, name }));
    const workbench = await launchWorkbench({ service, userSettings: { 'applicationQuery.applications': applications } });
    for (const [name, id] of [['Demo Assistant', 'demo-assistant'], ['Stall', 'stall'], ['Echo', 'echo']]) {
      await setApiKey(workbench, name, id);
    }
    await openViewContainer(workbench.page, 'Application Query');
    await (await chat(workbench.page)).locator('textarea[aria-label="Ask the application"]').waitFor({ state: 'visible', timeout: 60_000 });
    return workbench;
  }, { after: async () => service?.close() });

  it('streams an answer into the transcript, rendered as markdown', async () => {
    const { page, service } = wb();
    await ask(page, 'demo-assistant', 'How do I reverse a list?');
    const frame = await chat(page);
    await frame.locator('[data-role="user"]', { hasText: 'How do I reverse a list?' }).waitFor({ state: 'visible', timeout: 30_000 });
    await waitFor('the answer to finish', async () => (await statusOf(frame, 0)) === 'done' || undefined, 90_000);
    const answer = frame.locator('[data-role="assistant"]').first();
    assert.ok((await answer.locator('h1, h2, h3').count()) > 0, 'a rendered heading');
    assert.ok((await answer.locator('li').count()) > 0, 'a rendered list');
    assert.ok((await answer.locator('.aq-code').count()) > 0, 'a code block with actions');
    assert.equal(await answer.locator('script').count(), 0);
    const sent = service.requests.filter((r) => r.path === '/api/applications/demo-assistant/query').at(-1);
    assert.ok(sent && (JSON.parse(sent.body) as { query: string }).query.includes('How do I reverse a list?'));
  });

  it('Stop keeps the partial answer', async () => {
    const { page } = wb();
    await ask(page, 'stall', 'Tell me a long story');
    const frame = await chat(page);
    const answer = frame.locator('[data-role="assistant"]').last();
    // The stalling application sends a few pieces, then nothing: wait until the text stops changing.
    const partial = await settledText(answer.locator('.aq-answer'), 'part of the answer, then silence');
    await frame.locator('button[data-action="stop"]').click();
    await waitFor('the answer to stop', async () => (await answer.getAttribute('data-status')) === 'stopped' || undefined, 30_000);
    assertKeptAfterStop(((await answer.locator('.aq-answer').textContent()) ?? '').trim(), partial);
    await frame.locator('[data-role="stopped-note"]').first().waitFor({ state: 'visible' });
  });

  it('Insert at Cursor puts a code block into the editor', async () => {
    const { page } = wb();
    await openFile(page, 'README.md');
    await activeEditor(page).locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await openViewContainer(page, 'Application Query');
    const frame = await chat(page);
    await frame.locator('select#aq-application').selectOption('demo-assistant');
    const code = frame.locator('[data-role="assistant"]').first().locator('.aq-code').first();
    await code.waitFor({ state: 'visible', timeout: 30_000 });
    const codeText = ((await code.locator('code').first().textContent()) ?? '').trim();
    const firstLine = codeText.split('\n')[0].trim();
    assert.ok(firstLine.length > 0, 'the code block has text');
    await code.hover();
    await code.locator('button[data-action="insert"]').click();
    await waitFor('the code in the editor', async () => ((await activeEditor(page).locator('.view-lines').innerText()).replace(/\u00a0/g, ' ').includes(firstLine)) || undefined, 30_000);
  });

  it('an answer that streams while the Chat view is hidden is all there when the view is shown again', async () => {
    const { page } = wb();
    const question = `Repeat this back slowly: ${'the quick brown fox jumps over the lazy dog '.repeat(30).trim()}`;
    await ask(page, 'echo', question);
    const spinner = page.locator('.part.statusbar .codicon-loading');
    await spinner.first().waitFor({ state: 'visible', timeout: 30_000 });
    // Look away: the Explorer takes the side bar and the Chat view's webview goes away.
    await openViewContainer(page, 'Explorer');
    assert.ok((await spinner.count()) > 0, 'the answer was still streaming when the view was hidden');
    await waitFor('the answer to finish while hidden', async () => (await spinner.count()) === 0 || undefined, 120_000);
    await openViewContainer(page, 'Application Query');
    const frame = await chat(page);
    const answer = frame.locator('[data-role="assistant"]').last();
    // Done and all of it rendered (the text renders in the frame after it arrives).
    await waitFor('the answer to show as done', async () => ((await answer.getAttribute('data-status')) === 'done' && (await answer.getAttribute('aria-busy')) === 'false') || undefined, 30_000);
    // Echo answers with the request body: the whole question must be there, in order.
    const shown = ((await answer.locator('.aq-answer').textContent()) ?? '').replace(/\s+/g, ' ');
    assert.ok(shown.includes(question), 'every piece that arrived while hidden is shown');
  });

  it('keeps the conversation after a window reload', async () => {
    const { page } = wb();
    await reloadWindow(wb());
    await openViewContainer(page, 'Application Query');
    const frame = await chat(page, 170_000);
    await frame.locator('select#aq-application').waitFor({ state: 'visible', timeout: 30_000 });
    await frame.locator('select#aq-application').selectOption('demo-assistant');
    await frame.locator('[data-role="user"]', { hasText: 'How do I reverse a list?' }).waitFor({ state: 'visible', timeout: 120_000 });
    assert.equal(await statusOf(frame, 0), 'done');
    assert.ok((await frame.locator('[data-role="assistant"]').first().locator('h1, h2, h3').count()) > 0, 'the answer is rendered again');
  });
});
