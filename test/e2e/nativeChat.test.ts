// Our applications in VS Code's own Chat (1.139), as a person uses them: `@app` with a selection
// attached, Stop, a 401 with Set API Key…, and an application picked as the model. Once as the
// Chat comes (no GitHub sign-in, no extra setting) and once with `chat.allowAnonymousAccess`.
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { CLOSING_LINE, demoAnswer } from '../../service/apps';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { delay, waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench, type Workbench } from '../support/workbench/launch';
import { quickInput, setApiKey } from '../support/workbench/palette';
import { openFile, selectLines } from '../support/workbench/editors';
import { askNativeChat, NATIVE_CHAT_SETTINGS, nativeChatModelLabels, nativeChatPickerLabels, nativeChatResponseText, openNativeChat, pickNativeChatModel } from '../support/workbench/nativeChat';
import { normalizeLabel } from '../support/workbench/text';

/** The text a response shows, once it has stopped changing. */
async function settledResponse(response: Locator, what: string): Promise<string> {
  let previous = '';
  return waitFor(what, async () => {
    const now = await nativeChatResponseText(response).catch(() => '');
    const settled = now !== '' && now === previous;
    previous = now;
    return settled ? now : undefined;
  }, 90_000, 800);
}

/** The lines of a Markdown answer a reader sees as prose (code fences and Markdown syntax left out). */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line.trim() === '') continue;
    lines.push(normalizeLabel(line.replace(/^#+\s|^-\s/, '')));
  }
  return lines;
}

async function setUp(options: { anonymous: boolean }): Promise<Workbench> {
  const workbench = await launchWorkbench({
    version: '4.139.1',
    userSettings: { ...NATIVE_CHAT_SETTINGS, ...(options.anonymous ? { 'chat.allowAnonymousAccess': true } : {}) },
    serviceOptions: { paceMs: 15, quiet: true },
  });
  for (const [name, id] of [['Stall', 'stall'], ['Revoked key', 'fail-401'], ['Echo', 'echo'], ['Demo Assistant', 'demo-assistant']]) await setApiKey(workbench, name, id);
  return workbench;
}

const suite = e2eVersion() === '4.139.1' ? describe : describe.skip;

suite(`VS Code's own Chat (VS Code ${VSCODE_VERSION_OF[e2eVersion()]}), no sign-in, no extra setting`, function () {
  this.timeout(600_000);
  const wb = useWorkbench(() => setUp({ anonymous: false }));

  it('@app with a selection attached streams the exact answer, naming the application', async () => {
    const { page, service } = wb();
    await openFile(page, 'src/sample.ts');
    await selectLines(page, 2, 5);
    await openNativeChat(page);
    const before = service.requests.length;
    const response = await askNativeChat(page, '@app /use demo-assistant What does this do?');
    await waitFor('the whole answer', async () => (await nativeChatResponseText(response)).includes(normalizeLabel(CLOSING_LINE)) || undefined, 90_000);
    const shown = await nativeChatResponseText(response);
    const sent = await waitFor('the query', () => service.requests.slice(before).find((r) => r.path === '/api/applications/demo-assistant/query'), 30_000);
    const query = (JSON.parse(sent.body) as { query: string }).query;
    assert.ok(query.startsWith('What does this do?'), query);
    assert.ok(query.includes('export function fibonacci(n: number): number {\n  if (n < 2) return n;\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}'), 'the selection is the context, byte-exact');
    assert.match(shown, /Demo Assistant \(demo-assistant\)/, 'the response names the application');
    const plain = (text: string): string => text.replace(/`/g, '');
    for (const line of proseLines(demoAnswer(JSON.parse(sent.body)))) assert.ok(plain(shown).includes(plain(line)), `the response shows "${line}"`);
    assert.ok(shown.includes(normalizeLabel(CLOSING_LINE)));
    assert.ok((await response.locator('.monaco-button, a').filter({ hasText: 'Switch Application…' }).count()) > 0, 'an offer to switch');
  });

  it('Stop keeps the partial answer and the service sees the connection close', async () => {
    const { page, service } = wb();
    const before = service.requests.length;
    const response = await askNativeChat(page, '@app /use stall Tell me a long story');
    const partial = await settledResponse(response, 'part of the answer, then silence');
    await page.locator('.interactive-input-part').getByRole('button', { name: /Cancel|Stop/ }).first().click();
    const closed = await waitFor('the service to see the close', () => service.requests.slice(before).find((r) => r.path === '/api/applications/stall/query' && r.closedByClientAt !== undefined), 30_000);
    assert.ok(closed.closedByClientAt);
    await delay(1000);
    // While it streamed, the Chat showed its own progress line under the text; the text stays.
    const kept = await nativeChatResponseText(response);
    // While it streamed, the Chat showed its own progress words after the text. What stays is the text
    // shown before them, plus at most the few characters the key masker held back (fewer than 8).
    let common = 0;
    while (common < kept.length && kept[common] === partial[common]) common++;
    assert.ok(kept.length - common < 8, `the partial answer stays: ${JSON.stringify(partial)} before Stop, ${JSON.stringify(kept)} after`);
    assert.ok(kept.startsWith('Stall (stall): Answer from the re'), kept);
  });

  it('a 401 shows the status, its meaning and Set API Key…', async () => {
    const { page } = wb();
    const response = await askNativeChat(page, '@app /use fail-401 Are you there?');
    const text = await waitFor('the failure', async () => {
      const now = normalizeLabel(await response.innerText());
      return /HTTP 401/.test(now) && /Set API Key…/.test(now) ? now : undefined;
    }, 60_000);
    assert.match(text, /HTTP 401/);
    assert.match(text, /API key is missing or not valid/);
    await response.getByRole('button', { name: 'Set API Key…' }).first().click();
    await waitFor('the key box for the application', async () => /Revoked key/.test(await quickInput(page).innerText().catch(() => '')) || undefined, 30_000);
    await page.keyboard.press('Escape');
  });

  it('an application picked in the model picker answers @app', async () => {
    const { page, service } = wb();
    console.log(`      pickers: ${JSON.stringify(await nativeChatPickerLabels(page))}`);
    const labels = await nativeChatModelLabels(page);
    assert.ok(labels.some((label) => label.includes('Echo')), `the model picker lists Echo: ${JSON.stringify(labels)}`);
    await pickNativeChatModel(page, 'Echo');
    const before = service.requests.length;
    const response = await askNativeChat(page, '@app Hello from the model picker ü 日本');
    await settledResponse(response, 'the echoed request');
    assert.match(await nativeChatResponseText(response), /^Echo \(echo\):/, '@app asks the application picked as the model');
    const sent = await waitFor('the query to Echo', () => service.requests.slice(before).find((r) => r.path === '/api/applications/echo/query'), 30_000);
    const body = JSON.parse(sent.body) as { query: string };
    assert.ok(body.query.includes('Hello from the model picker ü 日本'), body.query.slice(0, 500));
    assert.ok(normalizeLabel(await response.innerText()).includes('Hello from the model picker ü 日本'));
  });
});

suite(`VS Code's own Chat (VS Code ${VSCODE_VERSION_OF[e2eVersion()]}) with chat.allowAnonymousAccess`, function () {
  this.timeout(600_000);
  const wb = useWorkbench(() => setUp({ anonymous: true }));

  it('@app answers, and the application can be picked as the model', async () => {
    const { page, service } = wb();
    await openNativeChat(page);
    const response = await askNativeChat(page, '@app /use demo-assistant Say hello');
    await waitFor('the answer', async () => (await nativeChatResponseText(response)).includes('You asked: Say hello') || undefined, 90_000);
    await pickNativeChatModel(page, 'Echo');
    const before = service.requests.length;
    const answer = await askNativeChat(page, '@app Hello, Echo');
    await waitFor('the query to Echo', () => service.requests.slice(before).find((r) => r.path === '/api/applications/echo/query'), 60_000);
    await waitFor('the echoed request', async () => (await nativeChatResponseText(answer)).includes('Hello, Echo') || undefined, 60_000);
  });
});
