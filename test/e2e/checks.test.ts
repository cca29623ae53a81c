// Checks for answers that vary, as a person uses them in the Testing view: a query judged by another
// application fails with the judge's reason in its message, and Show Changes Since Last Run, from
// the query's menu after a second run, opens the diff editor on the two runs' answers.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ReferenceService } from '../../service/server';
import { VSCODE_VERSION_OF } from '../launch/codeServer';
import { waitFor } from '../launch/util';
import { DEFAULT_FILES, e2eVersion, launchWorkbench, useWorkbench } from '../support/workbench/launch';
import { setApiKey } from '../support/workbench/palette';
import { clickMenuEntry, diffEditorSides, openFile } from '../support/workbench/editors';
import { clearNotifications } from '../support/workbench/notifications';
import { expandTestExplorerRow, openTestExplorer, testExplorerRow, testExplorerRows } from '../support/workbench/views';

/** `timed` answers a new marker (`aq-mark-N`) each time; the rule judge fails it: it never mentions "refund". */
const FILE = 'judged.aq.md';
const QUERY = 'Judged answer';
const JUDGE_PATH = '/api/applications/judge/query';
const CONTENT = ['# Judged', '', `## ${QUERY}`, '- application: timed', '- expect: judged by judge: mentions "refund"', '', 'What is the refund policy?', ''].join('\n');

/**
 * Runs every test from the Testing view's toolbar and waits until the judge has been asked `judged`
 * times in all and the query shows `state` (a second run starts from the first one's state).
 */
async function runAll(page: Page, service: ReferenceService, judged: number, state: string): Promise<void> {
  await page.locator('.part.sidebar a.action-label[aria-label="Run Tests"]').filter({ visible: true }).first().click();
  await waitFor(`the judge asked ${judged} times`, () => service.requests.filter((r) => r.path === JUDGE_PATH && r.status !== undefined).length >= judged || undefined, 90_000, 300);
  await waitFor(`the query to be ${state}`, async () => (await testExplorerRows(page)).find((row) => row.label === QUERY)?.state === state || undefined, 90_000, 300);
}

describe(`Checks for answers that vary in the Testing view (VS Code ${VSCODE_VERSION_OF[e2eVersion()]})`, function () {
  this.timeout(300_000);
  const wb = useWorkbench(() => launchWorkbench({ files: { ...DEFAULT_FILES, [FILE]: CONTENT } }), { beforeEach: clearNotifications });

  it("a judged query fails with the judge's reason; Show Changes Since Last Run diffs the two runs' answers", async () => {
    const { page, service } = wb();
    await setApiKey(wb(), 'Timed', 'timed');
    await setApiKey(wb(), 'Judge (rule)', 'judge');
    await openFile(page, FILE);
    await openTestExplorer(page);
    await expandTestExplorerRow(page, FILE);
    await testExplorerRow(page, QUERY).waitFor({ state: 'visible', timeout: 30_000 });

    await runAll(page, service, 1, 'failed');
    const judged = service.requests.filter((r) => r.path === JUDGE_PATH);
    assert.equal(judged.length, 1, 'the judge was asked once');
    assert.match(judged[0].body, /refund/, "the grading prompt holds the criterion");
    await testExplorerRow(page, QUERY).click();
    const peek = page.locator('.part.editor .zone-widget.test-output-peek').filter({ visible: true }).first();
    await peek.waitFor({ state: 'visible', timeout: 30_000 });
    const title = await waitFor('the failure message', async () => (await peek.innerText({ timeout: 1000 }).catch(() => '')) || undefined, 30_000);
    assert.match(title, /never mentions "refund"/, `the message gives the judge's reason: ${title}`);
    await peek.locator('.peekview-actions .codicon-close').first().click();

    await runAll(page, service, 2, 'failed');
    const answers = service.requests.filter((r) => r.path === '/api/applications/timed/query');
    assert.equal(answers.length, 2, 'the query ran twice');
    await testExplorerRow(page, QUERY).click({ button: 'right' });
    await clickMenuEntry(page, 'Show Changes Since Last Run');
    const sides = await diffEditorSides(page, (s) => /aq-mark-/.test(s.original) && /aq-mark-/.test(s.modified));
    assert.notEqual(sides.original, sides.modified, 'each run answered its own marker');
    const tab = await page.locator('.part.editor .tab.active').first().innerText();
    assert.match(tab, /before/, `the diff editor names the run before: ${tab}`);
  });
});
