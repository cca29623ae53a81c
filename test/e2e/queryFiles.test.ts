// Query files (*.aq.md) as a person uses them: New Query File writes an example for the current
// application and its CodeLens "Run" streams the answer into the answer panel; the Testing view runs
// a file and a failed "contains" opens as a diff of expected and actual; a query follows the selected
// environment unless it names one; a context file outside the workspace folder is a problem in the
// editor and the Problems view, and its query sends nothing.
import * as assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { startCaptureServer, startService, type CaptureServer, type ReferenceService } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { DEFAULT_FILES, e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { quickPick, runCommand, setApiKey, typeInQuickInput } from '../support/workbench/palette';
import { clickCodeLens, editorOf, openFile } from '../support/workbench/editors';
import { clearNotifications, waitForNotification } from '../support/workbench/notifications';
import { expandTestExplorerRow, openTestExplorer, surfaceFrame, testExplorerRow, testExplorerRows, type TestExplorerRow } from '../support/workbench/views';

/** A file with one query that passes and one whose "contains" fails (echo answers with the request body). */
const CHECKS_FILE = 'checks.aq.md';
const CHECKS = [
  '# Checks',
  '',
  '## Echo passes',
  '- application: echo',
  '- expect: contains "Hello there"',
  '- expect: status 200',
  '',
  'Hello there',
  '',
  '## Echo fails',
  '- application: echo',
  '- expect: contains "not in the answer"',
  '',
  'Echo me.',
  '',
].join('\n');

/** One query that follows the selected environment, one pinned to staging. */
const ENV_FILE = 'environments.aq.md';
const ENV = ['## Follows the environment', '- application: echo', '', 'Which service answers?', '', '## Always staging', '- application: echo', '- environment: staging', '', 'Pinned to staging.', ''].join('\n');

/** A query whose context file lies outside the workspace folder. */
const FENCE_FILE = 'fence.aq.md';
const FENCE = ['## Climbs out', '- application: echo', '- context: ../outside-secret.txt', '', 'What is in that file?', ''].join('\n');

const ECHO_QUERY = '/api/applications/echo/query';
const STAGING_KEY = 'stg_Wq2Ze7Xr5Tb9Yk3Mv6Ns';

/** The text of an editor's visible lines (non-breaking spaces as spaces). */
async function visibleText(editor: Locator): Promise<string> {
  return (await editor.locator('.view-lines').first().innerText({ timeout: 5000 }).catch(() => '')).replace(/\u00a0/g, ' ');
}

/** The text of the status bar item that shows the environment, once it matches. */
async function environmentItem(page: Page, expected: RegExp): Promise<string> {
  return waitFor(`the status bar to show the environment ${String(expected)}`, async () => {
    const texts = await page.locator('.part.statusbar .statusbar-item').allInnerTexts();
    return texts.find((text) => expected.test(text));
  }, 30_000, 200);
}

/**
 * Opens a query file written after the window opened, from the Testing view's tree: the file shows
 * there as soon as the extension sees it (Quick Open, in 1.100 here, still did not list such a file
 * 30 s later), and a click on one of its queries opens the file at that query.
 */
async function openFromTestExplorer(page: Page, fileName: string, queryName: string): Promise<Locator> {
  await openTestExplorer(page);
  await expandTestExplorerRow(page, fileName);
  const row = testExplorerRow(page, queryName);
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  await row.locator('.label').first().click();
  const editor = editorOf(page, fileName);
  await editor.waitFor({ state: 'visible', timeout: 30_000 });
  return editor;
}

/** Select Environment… from the palette, then `name`. */
async function selectEnvironment(page: Page, name: string): Promise<void> {
  await runCommand(page, 'Application Query: Select Environment…');
  await quickPick(page, name);
  await environmentItem(page, new RegExp(name));
}

describe(`Query files end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(300_000);
  let capture: CaptureServer | undefined;
  let reference: ReferenceService | undefined;
  const wb = useWorkbench(async () => {
    capture = await startCaptureServer();
    // Paced so that the demo application's answer takes about fifteen seconds: long enough to see it
    // stream even on a busy machine, where the answer panel can take seconds to show (a panel that
    // loads after the answer ended shows it whole). Echo, used by the other tests, is not paced.
    reference = await startService({ paceMs: 250, quiet: true });
    // Only the file of the Testing view's run is there from the start ("Run Tests" runs every file);
    // the later tests write theirs.
    return launchWorkbench({
      service: reference,
      files: { ...DEFAULT_FILES, [CHECKS_FILE]: CHECKS },
      userSettings: { 'applicationQuery.environments': { local: { baseUrl: reference.url }, staging: { baseUrl: capture.url } } },
    });
  }, {
    beforeEach: clearNotifications,
    after: async () => {
      await capture?.close();
      await reference?.close();
    },
  });

  it('New Query File writes an example for the current application; its CodeLens "Run" streams the answer into the answer panel', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Demo Assistant', 'demo-assistant');
    await runCommand(page, 'Application Query: Select Application…');
    await quickPick(page, 'Demo Assistant');

    await runCommand(page, 'Application Query: New Query File');
    const editor = editorOf(page, 'queries.aq.md');
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    const text = await waitFor('the example in the editor', async () => {
      const now = await visibleText(editor);
      return /## Says hello/.test(now) ? now : undefined;
    }, 30_000);
    assert.match(text, /# Queries for demo-assistant/, 'the example names the current application');
    assert.match(text, /- application: demo-assistant/, 'its queries run against the current application');
    assert.ok(await page.locator('.part.editor .tab.active', { hasText: 'queries.aq.md' }).first().isVisible(), 'the example is the active editor');

    const before = service.requests.length;
    await clickCodeLens(editor, 'Run', 0);
    const panel = await surfaceFrame(page, 'panel');
    const answer = panel.locator('[data-role="assistant"]').last();
    await answer.waitFor({ state: 'attached', timeout: 60_000 });
    // The demo application sends its answer in small pieces: the panel shows part of it first.
    const statuses = new Set<string>();
    await waitFor('the answer to finish', async () => {
      const status = (await answer.getAttribute('data-status', { timeout: 1000 }).catch(() => null)) ?? '';
      statuses.add(status);
      return status === 'done' || undefined;
    }, 90_000, 50);
    assert.ok(statuses.has('streaming'), `the answer streamed in (statuses seen: ${[...statuses].join(', ')})`);
    const shown = (await answer.locator('.aq-answer').textContent()) ?? '';
    assert.match(shown, /You asked: Say hello in one short sentence\./, 'the answer to the first query shows in the panel');
    assert.match((await panel.locator('[data-role="http-status"]').first().textContent()) ?? '', /200/);
    const sent = service.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/api/applications/demo-assistant/query');
    assert.equal(sent.length, 1, 'one query was sent');
    assert.equal((JSON.parse(sent[0].body) as { query: string }).query, 'Say hello in one short sentence.', 'only the first query\'s question');

    // The example is an unsaved editor: nothing was written into the workspace. Leave nothing behind.
    await page.locator('.part.editor .tab', { hasText: 'queries.aq.md' }).first().click();
    await runCommand(page, 'View: Revert and Close Editor');
    await editor.waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('the Testing view runs a file: one query passes, one fails, and the failure opens as a diff of expected and actual', async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Echo', 'echo');
    await openFile(page, CHECKS_FILE);
    await openTestExplorer(page);
    // One controller only: the workbench lists its items (the files) at the top level.
    await expandTestExplorerRow(page, CHECKS_FILE);
    const listed = await waitFor('the file and both queries in the Testing view', async () => {
      const rows = await testExplorerRows(page);
      return rows.some((r) => r.label === 'Echo passes') && rows.some((r) => r.label === 'Echo fails') ? rows : undefined;
    }, 30_000);
    const file = listed.find((r) => r.label === CHECKS_FILE);
    assert.ok(file, `the file is listed: ${JSON.stringify(listed)}`);
    assert.doesNotMatch(file.description, /aq-e2e-/, 'a file at the top of the only workspace folder needs no folder beside it');
    assert.deepEqual(listed.filter((r) => r.level === file.level + 1).map((r) => r.label), ['Echo passes', 'Echo fails'], 'its queries, in file order');

    const before = service.requests.length;
    await page.locator('.part.sidebar a.action-label[aria-label="Run Tests"]').filter({ visible: true }).first().click();
    const done = await waitFor('one query passed and one failed', async () => {
      const rows = await testExplorerRows(page);
      const state = (label: string): string | undefined => rows.find((r) => r.label === label)?.state;
      return state('Echo passes') === 'passed' && state('Echo fails') === 'failed' ? rows : undefined;
    }, 60_000, 300).catch(async (error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; the view shows ${JSON.stringify(await testExplorerRows(page))}`);
    });
    assert.equal(done.find((r: TestExplorerRow) => r.label === CHECKS_FILE)?.state, 'failed', 'the file is failed: one of its queries is');
    const sent = service.requests.slice(before).filter((r) => r.method === 'POST' && r.path === ECHO_QUERY);
    assert.deepEqual(sent.map((r) => (JSON.parse(r.body) as { query: string }).query).sort(), ['Echo me.', 'Hello there'], 'each query was sent once');
    // The run's results are the controller's: "Application Query" in the Test Results view.
    await waitFor('the Test Results view to name the controller', async () => (await page.locator('.part.panel').innerText({ timeout: 1000 }).catch(() => '')).includes('Application Query') || undefined, 30_000);

    // A click on the failed query opens its message, peeked in the editor under the expect line.
    await testExplorerRow(page, 'Echo fails').click();
    const peek = page.locator('.part.editor .zone-widget.test-output-peek').filter({ visible: true }).first();
    await peek.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await peek.locator('.peekview-title').innerText(), /Expected the answer to contain "not in the answer"/, 'the peek says what failed');
    const diff = peek.locator('.monaco-diff-editor').first();
    await diff.waitFor({ state: 'visible', timeout: 30_000 });
    const expected = await waitFor('the expected side', async () => (await visibleText(diff.locator('.original-in-monaco-diff-editor'))).trim() || undefined, 30_000);
    const actual = await waitFor('the actual side', async () => (await visibleText(diff.locator('.modified-in-monaco-diff-editor'))).trim() || undefined, 30_000);
    assert.equal(expected, 'not in the answer', 'the expected side is the text the file expects');
    const echoed = sent.find((r) => r.body.includes('Echo me.'));
    assert.ok(echoed, 'the failing query was sent');
    assert.equal(actual, echoed.body, 'the actual side is the answer (echo sends back the request body)');
    const lensLabels = (await peek.locator('.testing-diff-lens-widget').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(lensLabels, ['Expected', 'Actual']);
    await peek.locator('.peekview-actions .codicon-close').first().click();
    await peek.waitFor({ state: 'hidden', timeout: 30_000 });
  });

  it('a query follows the selected environment, with that service\'s key; one that names an environment goes there whatever is selected', async () => {
    const { page, service, folder } = wb();
    assert.ok(capture);
    const staging = capture;
    await writeFile(path.join(folder, ENV_FILE), ENV);
    await selectEnvironment(page, 'local');
    await setApiKey(wb(), 'Echo', 'echo');
    const editor = await openFromTestExplorer(page, ENV_FILE, 'Follows the environment');
    const posts = (records: typeof service.requests, question: string): typeof service.requests => records.filter((r) => r.method === 'POST' && r.path === ECHO_QUERY && r.body.includes(question));

    // On local: the reference service answers, with its key.
    let before = service.requests.length;
    await clickCodeLens(editor, 'Run', 0);
    const local = await waitFor('the query at the local service', () => posts(service.requests.slice(before), 'Which service answers?')[0], 30_000);
    assert.equal(local.headers.authorization, `Bearer ${service.keyFor('echo')}`);
    assert.equal(staging.requests.length, 0, 'staging received nothing');

    // Staging selected, with its own key.
    await selectEnvironment(page, 'staging');
    await runCommand(page, 'Application Query: Set API Key…');
    await quickPick(page, 'Echo');
    await typeInQuickInput(page, STAGING_KEY, { password: true });
    await waitFor('the key check at staging', () => staging.requests.some((r) => r.method === 'GET' && r.path === '/api/applications/echo' && r.headers.authorization === `Bearer ${STAGING_KEY}`) || undefined, 30_000);
    before = service.requests.length;
    let stagingBefore = staging.requests.length;
    await clickCodeLens(editor, 'Run', 0);
    const second = await waitFor('the query at staging', () => posts(staging.requests.slice(stagingBefore), 'Which service answers?')[0], 30_000);
    assert.equal(second.headers.authorization, `Bearer ${STAGING_KEY}`, 'with staging\'s key');
    // The staging server answers "captured": the panel shows that answer.
    const panel = await surfaceFrame(page, 'panel');
    await waitFor('staging\'s answer in the panel', async () => ((await panel.locator('[data-role="assistant"]').last().textContent({ timeout: 1000 }).catch(() => '')) ?? '').includes('captured') || undefined, 30_000);
    assert.equal(service.requests.slice(before).filter((r) => r.method === 'POST').length, 0, 'the local service did not get the second one');

    // Back on local, the query that names staging still goes to staging.
    await selectEnvironment(page, 'local');
    before = service.requests.length;
    stagingBefore = staging.requests.length;
    await clickCodeLens(editor, 'Run', 1);
    const pinned = await waitFor('the pinned query at staging', () => posts(staging.requests.slice(stagingBefore), 'Pinned to staging.')[0], 30_000);
    assert.equal(pinned.headers.authorization, `Bearer ${STAGING_KEY}`);
    assert.equal(service.requests.slice(before).filter((r) => r.method === 'POST').length, 0, 'the local service got nothing');
  });

  it('a context file outside the workspace folder is a problem in the editor and the Problems view, and "Run" sends nothing', async () => {
    const { page, service, folder } = wb();
    await writeFile(path.join(folder, FENCE_FILE), FENCE);
    await setApiKey(wb(), 'Echo', 'echo');
    const editor = await openFromTestExplorer(page, FENCE_FILE, 'Climbs out');
    await editor.locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: 30_000 });

    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    const problems = page.locator('.part.panel .markers-panel').first();
    const listed = await waitFor('the problem in the Problems view', async () => {
      const text = (await problems.textContent({ timeout: 1000 }).catch(() => '')) ?? '';
      return text.includes('outside-secret.txt') ? text : undefined;
    }, 30_000);
    assert.match(listed, /fence\.aq\.md/, 'under the query file');
    assert.match(listed, /workspace folder/, 'says why');
    assert.match(listed, /Application Query/, 'from the extension');

    const before = service.requests.length;
    await clickCodeLens(editor, 'Run', 0);
    await waitForNotification(page, /Not sent:.*outside-secret\.txt/);
    // What the service says it received (its control route), after the refusal showed.
    const control = (await (await fetch(`${service.url}/__control/requests`)).json()) as { method: string; path: string }[];
    assert.deepEqual(control.slice(before).map((r) => `${r.method} ${r.path}`), [], 'the service received nothing');
  });
});
