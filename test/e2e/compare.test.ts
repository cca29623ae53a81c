// Compare as a person uses it: Compare Applications… from the palette (a multi-select of
// applications, then the question) streams the answers side by side in a Compare panel; a column
// stops on its own, fails on its own, and opens in VS Code's diff editor with another; and History's
// "Compare with…" opens two recorded answers in the diff editor.
import * as assert from 'node:assert/strict';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { answerPieces, CLOSING_LINE, demoAnswer, STALL_PIECES } from '../../service/apps';
import { formatBytes } from '../../src/shared/format';
import type { RecordedRequest } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { e2eVersion, launchWorkbench, useWorkbench, type Workbench } from '../support/workbench/launch';
import { acceptRow, queryFromPalette, quickInput, quickPickRows, runCommand, setApiKey, typeInQuickInput } from '../support/workbench/palette';
import { clickMenuEntry, diffEditorSides, openFile, selectLines, type DiffSides } from '../support/workbench/editors';
import { clearNotifications } from '../support/workbench/notifications';
import { checkQuickPickItems, compareFrame, openViewContainer, surfaceFrame } from '../support/workbench/views';
import { escapeRegExp } from '../support/workbench/text';

/** The service's seed and pace: the demo answer's pieces (and so its shortest duration) follow from them. */
const SEED = 'compare';
const PACE_MS = 80;
/** Echo streams the request body back, slowly (8 bytes every 20 ms), so it takes a while too. */
const ECHO_CHUNK_BYTES = 8;
const ECHO_PACE_MS = 20;
const SLOW_ECHO = { query: '${input}', __chunkBytes: ECHO_CHUNK_BYTES, __paceMs: ECHO_PACE_MS };

/** The applications the window knows (a short list: every row of the multi-select shows at once). */
const APPLICATIONS: readonly [name: string, id: string][] = [
  ['Demo Assistant', 'demo-assistant'],
  ['Echo', 'echo'],
  ['Stall', 'stall'],
  ['Server error', 'fail-500'],
];

/** The selection the first test sends (lines 2-5 of the default sample.ts). */
const SELECTED_LINES = [
  'export function fibonacci(n: number): number {',
  '  if (n < 2) return n;',
  '  return fibonacci(n - 1) + fibonacci(n - 2);',
  '}',
];

const queryPath = (id: string): string => `/api/applications/${id}/query`;

/** How Compare names an application (its pickers, columns and diff titles): "Name (id)". */
const DEMO = 'Demo Assistant (demo-assistant)';
const ECHO = 'Echo (echo)';
const STALL = 'Stall (stall)';
const FAIL = 'Server error (fail-500)';

/** Compare Applications… from the palette: check exactly `names`, accept, and send `question`. */
async function compareFromPalette(page: Page, names: readonly string[], question: string): Promise<void> {
  await runCommand(page, 'Application Query: Compare Applications…');
  await checkQuickPickItems(page, names);
  await typeInQuickInput(page, question);
}

/** What a Compare panel is titled: `Compare: ` and the question's first line (its first 60 characters). */
function compareTitle(question: string): string {
  const line = question.split('\n', 1)[0] ?? '';
  return `Compare: ${line.length > 60 ? `${line.slice(0, 59)}…` : line}`.trim();
}

/** The Compare panel asked `question` (its webview document), once its title shows. */
async function comparePanel(page: Page, question: string): Promise<FrameLocator> {
  const frame = await compareFrame(page, 60_000, '[data-role="columns"]');
  await waitFor('the Compare panel\'s title', async () => ((await frame.locator('[data-role="title"]').textContent({ timeout: 1000 }).catch(() => '')) ?? '').trim() === compareTitle(question) || undefined, 30_000);
  return frame;
}

/** The column titled `name`. */
function column(frame: FrameLocator, name: string): Locator {
  return frame.locator('section[data-role="column"]').filter({ has: frame.locator('[data-role="column-title"]', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`) }) }).first();
}

/** Waits until the column has `status` (`data-status`). */
async function columnStatus(target: Locator, name: string, status: string, timeoutMs = 90_000): Promise<void> {
  let seen: string | null = null;
  await waitFor(`the ${name} column to be ${status}`, async () => {
    seen = await target.getAttribute('data-status', { timeout: 1000 }).catch(() => null);
    return seen === status || undefined;
  }, timeoutMs, 200).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (it is ${String(seen)})`);
  });
}

/** A column's fact, e.g. `http-status`, `first-byte`, `total`. */
async function fact(target: Locator, role: string): Promise<string> {
  return ((await target.locator(`[data-role="${role}"]`).first().textContent()) ?? '').trim();
}

/** What the column's answer shows (its rendered text). */
async function answerText(target: Locator): Promise<string> {
  return ((await target.locator('.aq-answer').first().textContent()) ?? '').trim();
}

/** The query requests the service received for `id` since `from`, waiting until `count` of them are there. */
async function queriesOf(service: Workbench['service'], id: string, from: number, count = 1): Promise<RecordedRequest[]> {
  return waitFor(`${count} request(s) for ${id}`, () => {
    const found = service.requests.slice(from).filter((r) => r.method === 'POST' && r.path === queryPath(id));
    return found.length >= count ? found : undefined;
  }, 30_000);
}

/** The text the diff editor shows for an answer: trailing blanks and trailing empty lines cut, as {@link diffEditorSides} reads it. */
function asShown(text: string): string {
  return text.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();
}

/** The title of the editor tab titled `expected`, once one shows. */
async function tabTitled(page: Page, expected: RegExp): Promise<string> {
  return waitFor(`an editor tab titled ${String(expected)}`, async () => {
    const titles = await page.locator('.part.editor .tab .tab-label').allTextContents();
    return titles.map((t) => t.replace(/\s+/g, ' ').trim()).find((t) => expected.test(t));
  }, 30_000, 200);
}


describe(`Compare end to end (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(300_000);
  // The diff editor's lines are read: no soft wrapping, and both sides always side by side.
  const settings = {
    'applicationQuery.applications': APPLICATIONS.map(([name, id]) => (id === 'echo' ? { id, name, requestTemplate: SLOW_ECHO } : { id, name })),
    'editor.wordWrap': 'off',
    '[markdown]': { 'editor.wordWrap': 'off' },
    'diffEditor.wordWrap': 'off',
    'diffEditor.renderSideBySide': true,
    'diffEditor.useInlineViewWhenSpaceIsLimited': false,
    'diffEditor.hideUnchangedRegions.enabled': false,
  };
  const wb = useWorkbench(async () => {
    const workbench = await launchWorkbench({ userSettings: settings, serviceOptions: { paceMs: PACE_MS, seed: SEED, quiet: true } });
    for (const [name, id] of APPLICATIONS) await setApiKey(workbench, name, id);
    return workbench;
  }, {
    beforeEach: async (workbench) => {
      await clearNotifications(workbench);
      await runCommand(workbench.page, 'View: Close All Editors');
    },
  });

  it('compares two applications: both stream at once side by side, with the selection sent to each', async () => {
    const { page, service } = wb();
    const question = 'Which of you explains this better?';
    const before = service.requests.length;
    await openFile(page, 'src/sample.ts');
    await selectLines(page, 2, 5);
    await compareFromPalette(page, [ECHO, DEMO], question);
    const frame = await comparePanel(page, question);
    await tabTitled(page, new RegExp(`^Compare: ${escapeRegExp(question)}$`));
    const titles = (await frame.locator('section[data-role="column"] [data-role="column-title"]').allTextContents()).map((t) => t.trim());
    assert.deepEqual([...titles].sort(), [DEMO, ECHO], 'one column per application, labelled with its name');

    for (const name of [ECHO, DEMO]) {
      const target = column(frame, name);
      await columnStatus(target, name, 'done');
      assert.equal(await fact(target, 'http-status'), 'HTTP 200', `${name}: HTTP 200`);
      assert.match(await fact(target, 'first-byte'), /^first byte \d/, `${name}: the time to the first byte`);
      assert.match(await fact(target, 'total'), /^total \d/, `${name}: the total time`);
      assert.notEqual(await fact(target, 'length'), '', `${name}: the length`);
    }

    // Echo answers with the request body: the question and the selection were sent to it.
    const [echo] = await queriesOf(service, 'echo', before);
    const [demo] = await queriesOf(service, 'demo-assistant', before);
    const echoed = await answerText(column(frame, ECHO));
    assert.ok(echoed.includes(question), `the echo column shows the question; it shows: ${echoed.slice(0, 400)}`);
    assert.ok(echoed.includes('fibonacci(n - 1) + fibonacci(n - 2)'), `the echo column shows the selected text; it shows: ${echoed.slice(0, 400)}`);
    for (const sent of [echo, demo]) {
      const query = (JSON.parse(sent.body) as { query: string }).query;
      assert.ok(query.includes(question), `${sent.path}: the question was sent`);
      assert.ok(query.includes(SELECTED_LINES.join('\n')), `${sent.path}: the selected lines were sent`);
    }

    // Copy gives the echo column's answer exactly: the body the service received.
    await column(frame, ECHO).locator('button[data-action="copy-answer"]').click();
    await waitFor('the answer on the clipboard', async () => (await page.evaluate(() => navigator.clipboard.readText()).catch(() => '')) === echo.body || undefined, 10_000, 200);

    // Both started before either ended. The service records when each request arrived; each
    // cannot have ended before its answer's pauses elapsed (echo: one per chunk; demo-assistant:
    // at least half the pace between pieces), so each arrived before the other could have ended.
    const echoShortest = (Math.ceil(Buffer.byteLength(echo.body) / ECHO_CHUNK_BYTES) - 1) * ECHO_PACE_MS;
    const demoShortest = (answerPieces(JSON.parse(demo.body), SEED).length - 1) * Math.floor(PACE_MS / 2);
    assert.ok(echoShortest > 500 && demoShortest > 500, `both answers take a while (${echoShortest} ms, ${demoShortest} ms at least)`);
    assert.ok(demo.at < echo.at + echoShortest, `demo-assistant's request (at ${demo.at}) arrived before echo's (at ${echo.at}, ${echoShortest} ms at least) could have ended`);
    assert.ok(echo.at < demo.at + demoShortest, `echo's request (at ${echo.at}) arrived before demo-assistant's (at ${demo.at}, ${demoShortest} ms at least) could have ended`);
  });

  it('stops one column: it shows stopped and keeps its text, the other finishes', async () => {
    const { page, service } = wb();
    // A long question makes the longest demo answer (about 14 s at this pace): still streaming when
    // the stalled column is stopped.
    const question = `Stop the stalled one, please. ${'Keep streaming the other answer meanwhile. '.repeat(14).trim()}`;
    const before = service.requests.length;
    await compareFromPalette(page, [STALL, DEMO], question);
    const frame = await comparePanel(page, question);
    const stall = column(frame, STALL);
    const demo = column(frame, DEMO);
    await waitFor('the stalled column to show part of its answer', async () => (await answerText(stall).catch(() => '')) !== '' || undefined, 60_000, 100);
    const stop = stall.locator('button[data-action="stop"]');
    await stop.click();
    const streamingAtStop = await demo.getAttribute('data-status');
    await columnStatus(stall, STALL, 'stopped', 30_000);
    await stall.locator('[data-role="stopped-note"]').waitFor({ state: 'visible', timeout: 10_000 });
    const [stalled] = await queriesOf(service, 'stall', before);
    // What the stalled application sent before its silence, kept as it arrived (rendered: markdown marks and spaces aside).
    const arrived = answerPieces(JSON.parse(stalled.body), SEED).slice(0, STALL_PIECES).join('');
    assert.equal((await answerText(stall)).replace(/\s+/g, ''), arrived.replace(/[#\s]+/g, ''), 'the stopped column keeps what arrived');
    assert.equal(await fact(stall, 'length'), formatBytes(Buffer.byteLength(arrived)), 'its length is what arrived');
    assert.ok(!(await stop.isVisible()), 'Stop is gone from the stopped column');
    assert.equal(streamingAtStop, 'streaming', 'the other column was still streaming when the stalled one was stopped');
    await columnStatus(demo, DEMO, 'done');
    assert.equal(await fact(demo, 'http-status'), 'HTTP 200');
    assert.ok((await answerText(demo)).includes(CLOSING_LINE), 'the other column has its whole answer');
    await waitFor('the service to see the stalled request closed', () => stalled.closedByClientAt !== undefined || undefined, 10_000);
    const [answered] = await queriesOf(service, 'demo-assistant', before);
    assert.equal(answered.closedByClientAt, undefined, 'the other request was not closed early');
  });

  it('a failing column shows its error with HTTP 500 and Retry; the other completes; no notification', async () => {
    const { page, service } = wb();
    const question = 'Does one failure spoil the comparison?';
    const before = service.requests.length;
    await compareFromPalette(page, [FAIL, ECHO], question);
    const frame = await comparePanel(page, question);
    const failed = column(frame, FAIL);
    const echo = column(frame, ECHO);
    await columnStatus(failed, FAIL, 'error');
    const error = failed.locator('[data-role="error"]');
    await error.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(((await error.locator('[data-role="error-status"]').textContent()) ?? '').trim(), 'HTTP 500', 'the error names the status');
    assert.equal(await fact(failed, 'http-status'), 'HTTP 500');
    assert.ok(await failed.locator('button[data-action="retry"]').isVisible(), 'Retry is offered in the column');
    await columnStatus(echo, ECHO, 'done');
    assert.ok((await answerText(echo)).includes(question), 'the echo column completed with its answer');
    await queriesOf(service, 'fail-500', before);
    // The panel shows the failure: no toast, and nothing in the notification center either.
    await page.waitForTimeout(2000);
    const toasts = (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    assert.deepEqual(toasts.filter((t) => /500|Server error|failed/i.test(t)), [], `no notification toast for the failed column; toasts: ${JSON.stringify(toasts)}`);
    await runCommand(page, 'Notifications: Show Notifications');
    const center = await page.locator('.notifications-center').innerText({ timeout: 10_000 }).catch(() => '');
    await runCommand(page, 'Notifications: Hide Notifications');
    assert.ok(!/HTTP 500|Server error/.test(center), `nothing about the failure in the notification center: ${center.slice(0, 400)}`);
  });

  it('Diff with… opens two columns in the diff editor, titled "A ↔ B", each side the answer as received', async () => {
    const { page, service } = wb();
    const question = 'Show me how your answers differ';
    const before = service.requests.length;
    await compareFromPalette(page, [DEMO, ECHO], question);
    const frame = await comparePanel(page, question);
    for (const name of [DEMO, ECHO]) await columnStatus(column(frame, name), name, 'done');
    const [demo] = await queriesOf(service, 'demo-assistant', before);
    const [echo] = await queriesOf(service, 'echo', before);
    const expected: DiffSides = { original: asShown(demoAnswer(JSON.parse(demo.body))), modified: asShown(echo.body) };
    await column(frame, DEMO).locator('button[data-action="diff"]').click();
    // Two columns: no question which other; the diff opens at once.
    await tabTitled(page, new RegExp(`^${escapeRegExp(`${DEMO} ↔ ${ECHO}`)}$`));
    const sides = await diffEditorSides(page, (shown) => shown.original === expected.original && shown.modified === expected.modified, 30_000);
    assert.deepEqual(sides, expected);
  });

  it('History: "Compare with…" on an exchange opens it and the one picked in the diff editor, the older on the left', async () => {
    const { page, service } = wb();
    const questions = ['What do apples taste like?', 'What do pears taste like?'];
    const before = service.requests.length;
    for (const [i, question] of questions.entries()) {
      await queryFromPalette(page, 'Demo Assistant', question);
      const answer = (await surfaceFrame(page, 'panel')).locator('[data-role="assistant"]').last();
      await waitFor(`answer ${i + 1} to finish`, async () => (await answer.getAttribute('data-status', { timeout: 1000 }).catch(() => null)) === 'done' && (await answer.textContent())?.includes(question) === true || undefined, 90_000);
    }
    const sent = await queriesOf(service, 'demo-assistant', before, 2);
    const [older, newer] = sent.slice(-2).map((r) => asShown(demoAnswer(JSON.parse(r.body))));
    assert.ok(older.includes(questions[0]) && newer.includes(questions[1]));

    // The newest exchange (pears) is the History view's first row.
    await openViewContainer(page, 'Application Query');
    const pane = page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: /^\s*History\s*$/i }) }).first();
    const header = pane.locator('.pane-header');
    await header.waitFor({ state: 'visible', timeout: 30_000 });
    if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
    const rows = pane.locator('.monaco-list-row');
    await waitFor('History rows', async () => (await rows.count()) >= 2 || undefined, 60_000);
    await rows.first().click({ button: 'right' });
    await clickMenuEntry(page, 'Compare with…');

    // The other recorded answers; the one asked about apples is found by its question.
    await quickInput(page).waitFor({ state: 'visible', timeout: 30_000 });
    await quickInput(page).locator('.quick-input-box input').first().fill(questions[0]);
    const row = await waitFor('the apples exchange in the quick pick', async () => {
      const candidates = quickPickRows(page);
      for (let i = 0; i < (await candidates.count()); i++) {
        const text = (await candidates.nth(i).textContent({ timeout: 1000 }).catch(() => '')) ?? '';
        if (text.includes(questions[0])) return candidates.nth(i);
      }
      return undefined;
    }, 30_000, 200);
    await acceptRow(page, row);
    await tabTitled(page, /^Demo Assistant\b.* \d.* ↔ Demo Assistant\b.* \d/);
    const sides = await diffEditorSides(page, (shown) => shown.original === older && shown.modified === newer, 30_000);
    assert.deepEqual(sides, { original: older, modified: newer });
  });
});
