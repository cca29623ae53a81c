// Checks for answers that vary, in a real extension host against the reference service: judges
// (PASS, FAIL, no verdict, a failing judge), repeats with a pass rate, JSON and its schema, the
// longest gap, and cases from a CSV file as child tests.
import * as assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, waitFor } from './hooks';
import type { TestTreeNode } from './testHooks';

const DIR = 'aq-checks';
const folder = (): string => {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (first === undefined) throw new Error('the integration suite needs a workspace folder');
  return first.uri.fsPath;
};

async function write(name: string, text: string): Promise<vscode.Uri> {
  const file = path.join(folder(), DIR, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return vscode.Uri.file(file);
}

describe('Query files: checks for answers that vary', () => {
  before(async () => {
    const api = await hooks();
    const keys = await serviceKeys();
    for (const id of ['echo', 'judge', 'judge-malformed', 'judge-broken']) await api.setApiKey(id, keys[id]);
  });

  after(async () => {
    await rm(path.join(folder(), DIR), { recursive: true, force: true });
    // Let the Testing view take the file away before the next suite writes its own files.
    const api = await hooks();
    await waitFor(async () => !(await api.queryTests()).some((n) => n.id.includes(`/${DIR}/`)) || undefined, 'the checks file leaves the Testing view');
  });

  it('judges, repeats, JSON and its schema, the longest gap, and cases each report what a user needs to see', async () => {
    const api = await hooks();
    await write('answer.schema.json', JSON.stringify({ type: 'object', required: ['query'], properties: { query: { type: 'integer' } } }));
    await write('topics.csv', 'topic,word\nrefunds,refunds\nshipping,holiday\n');
    const section = (name: string, lines: string[], question = 'Tell me about the refund policy'): string => [`## ${name}`, '- application: echo', ...lines, '', question, ''].join('\n');
    const uri = await write(
      'checks.aq.md',
      [
        section('Judged, 2 runs', ['- runs: 2', '- expect: judged by judge: mentions "refund"', '- expect: max gap under 10s', '- expect: json']),
        section('Judged FAIL', ['- expect: judged by judge: mentions "holiday"']),
        section('No verdict', ['- expect: judged by judge-malformed: mentions "refund"']),
        section('Failing judge', ['- expect: judged by judge-broken: mentions "refund"']),
        section('Schema', [`- expect: json schema ${DIR}/answer.schema.json`]),
        section('Cases', [`- cases: ${DIR}/topics.csv`, '- expect: judged by judge: mentions "{{word}}"'], 'About {{topic}}'),
      ].join('\n'),
    );
    const node = await waitFor(async () => (await api.queryTests()).find((n: TestTreeNode) => n.id === uri.toString() && n.children.length === 6 && n.children[5].children.length === 2), 'the file listed with its two cases');
    assert.deepEqual(node.children[5].children.map((c) => c.label), ['1: refunds, refunds', '2: shipping, holiday']);
    const before = (await received()).length;
    const report = await api.recordTestRuns(() => vscode.commands.executeCommand('applicationQuery.runQueryFile', uri));
    const [repeated, fail, malformed, broken, schema, cases] = node.children.map((c) => report.items[c.id]);

    assert.equal(repeated.state, 'passed', JSON.stringify(repeated.messages));
    assert.match(repeated.output, /run 1 of 2/);
    assert.match(repeated.output, /run 2 of 2/);
    assert.match(repeated.output, /✓ Judged PASS by "judge"\. the answer mentions "refund"\./, 'the judge’s reason is in the output');
    assert.match(repeated.output, /longest gap \d+ ms/);
    assert.match(repeated.output, /2 of 2 runs passed\./);

    assert.equal(fail.state, 'failed');
    assert.equal(fail.messages[0].text, 'Judged FAIL by "judge". the answer never mentions "holiday".');
    assert.equal(malformed.state, 'failed');
    assert.match(malformed.messages[0].text, /^Not judged: the judge's answer starts with neither PASS nor FAIL/);
    assert.equal(broken.state, 'failed');
    assert.equal(broken.messages[0].text, 'Not judged: the judge judge-broken answered HTTP 500.');
    assert.equal(schema.state, 'failed');
    assert.match(schema.messages[0].text, /^Expected the answer to validate against "aq-checks\/answer\.schema\.json"; 1 violation:\n\/query: must be integer$/);

    const [first, second] = node.children[5].children.map((c) => report.items[c.id]);
    assert.equal(cases, undefined, 'the query with cases runs as its cases');
    assert.equal(first.state, 'passed', JSON.stringify(first.messages));
    assert.match(first.output, /About refunds/);
    assert.equal(second.state, 'failed');
    assert.equal(second.messages[0].text, 'Judged FAIL by "judge". the answer never mentions "holiday".');

    // Every judgement was a request of its own to the judge applications, with the grading prompt.
    const judged = (await received()).slice(before).filter((r) => r.method === 'POST' && r.applicationId?.startsWith('judge') === true);
    assert.equal(judged.length, 2 + 1 + 1 + 1 + 2);
    assert.ok(judged.every((r) => r.body.includes('<<<CRITERION>>>')));
    await waitFor(() => api.storedHistory().reloaded.filter((e) => e.surface === 'queryFile' && e.applicationId === 'judge').length >= 5 || undefined, 'the judges’ exchanges in History');
  });

  it('a run stopped while its judge grades: the expectation is never taken as met, and the judge is not left talking', async () => {
    const api = await hooks();
    const config = vscode.workspace.getConfiguration('applicationQuery');
    const original = config.get<{ id: string }[]>('applications') ?? [];
    // The judge answers slowly, so that Stop comes while it is still grading.
    await config.update('applications', original.map((app) => (app.id === 'judge' ? { ...app, requestTemplate: { query: '${input}', paceMs: 2000 } } : app)), vscode.ConfigurationTarget.Global);
    try {
      const uri = await write('stopped.aq.md', '## Stopped while judged\n- application: echo\n- expect: judged by judge: mentions "refund"\n\nTell me about the refund policy\n');
      const node = await waitFor(async () => (await api.queryTests()).find((n: TestTreeNode) => n.id === uri.toString() && n.children.length === 1), 'the file listed');
      const before = (await received()).length;
      const judgeAsked = waitFor(async () => (await received()).slice(before).find((r) => r.path === '/api/applications/judge/query'), 'the judge asked');
      const report = await api.runQueryTests([node.children[0].id], judgeAsked);
      const item = report.items[node.children[0].id];
      assert.notEqual(item.state, 'passed', JSON.stringify(item));
      assert.ok(report.ended, 'the run ended');
      await waitFor(async () => (await received()).slice(before).find((r) => r.path === '/api/applications/judge/query' && r.closedByClientAt !== undefined), 'the service saw the judge’s connection close');
    } finally {
      await config.update('applications', original, vscode.ConfigurationTarget.Global);
    }
  });
});
