// Query files in a real extension host: the Testing view's tree, runs with expectations against the
// reference service, the context-file fence, per-service concurrency, Stop, environments, and the
// editor features (diagnostics, quick fixes, completion, CodeLens).
import * as assert from 'node:assert/strict';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, serviceUrl, waitFor, type Recorded } from './hooks';
import type { TestTreeNode } from './testHooks';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('applicationQuery');
const folder = (): string => {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (first === undefined) throw new Error('the integration suite needs a workspace folder');
  return first.uri.fsPath;
};
const DIR = 'aq-query-files';

async function writeQueryFile(name: string, text: string): Promise<vscode.Uri> {
  const file = path.join(folder(), DIR, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return vscode.Uri.file(file);
}

/** The tree node of a file, once the Testing view lists it with `queries` queries. */
async function listed(uri: vscode.Uri, queries: number): Promise<TestTreeNode> {
  const api = await hooks();
  return waitFor(async () => (await api.queryTests()).find((node) => node.id === uri.toString() && node.children.length === queries), `${path.basename(uri.fsPath)} listed with ${queries} queries`);
}

const queryPosts = (records: readonly Recorded[]): Recorded[] => records.filter((r) => r.method === 'POST' && r.path.endsWith('/query'));

describe('Query files: the Testing view runs a team’s saved queries', () => {
  before(async () => {
    const api = await hooks();
    const keys = await serviceKeys();
    for (const id of ['demo-assistant', 'echo', 'fail-500', 'timed', 'stall']) await api.setApiKey(id, keys[id]);
  });

  after(async () => {
    await rm(path.join(folder(), DIR), { recursive: true, force: true });
    await config().update('queryFiles.concurrency', undefined, vscode.ConfigurationTarget.Global);
  });

  it('lists every query of a file, one child per application when a query names several, and follows edits', async () => {
    const uri = await writeQueryFile(
      'listing.aq.md',
      '# Notes\n\nNever sent.\n\n## First\n- application: echo\n\nHello?\n\n## Both apps\n- application: echo, Demo Assistant\n\nWho are you?\n\n```md\n## not a query\n```\n',
    );
    const node = await listed(uri, 2);
    assert.deepEqual(node.children.map((c) => [c.label, c.line]), [['First', 4], ['Both apps', 9]]);
    const perApp = node.children[1].children.map((c) => c.label);
    assert.equal(perApp.length, 2);
    assert.match(perApp[0], /^on Echo/);
    assert.match(perApp[1], /^on Demo Assistant/);
    assert.equal(node.children[0].children.length, 0, 'one application: no children');
    await writeFile(uri.fsPath, '## Only one now\n- application: echo\n\nHi\n');
    const edited = await listed(uri, 1);
    assert.equal(edited.children[0].label, 'Only one now');
    await rm(uri.fsPath);
    const api = await hooks();
    await waitFor(async () => !(await api.queryTests()).some((n) => n.id === uri.toString()), 'the deleted file leaves the Testing view');
  });

  it('lists the query files of a folder moved into the workspace, where the file watcher reports only the folder', async () => {
    const api = await hooks();
    await api.queryTests(); // discovery is done: only the watchers can bring the files in
    const staging = path.join(path.dirname(folder()), `${path.basename(folder())}-staging-${process.pid}`);
    await mkdir(path.join(staging, 'deeper'), { recursive: true });
    await writeFile(path.join(staging, 'top.aq.md'), '## Top\n- application: echo\n\nHi\n');
    await writeFile(path.join(staging, 'deeper', 'nested.aq.md'), '## One\n- application: echo\n\nHi\n\n## Two\n- application: echo\n\nHo\n');
    const moved = path.join(folder(), DIR, 'moved-in');
    await mkdir(path.dirname(moved), { recursive: true });
    await rename(staging, moved);
    await listed(vscode.Uri.file(path.join(moved, 'top.aq.md')), 1);
    await listed(vscode.Uri.file(path.join(moved, 'deeper', 'nested.aq.md')), 2);
    await rm(moved, { recursive: true });
    await waitFor(async () => !(await api.queryTests()).some((n) => n.id.includes('/moved-in/')), 'the moved folder’s files leave the Testing view once it is deleted');
  });

  it('Run Query File sends each query with its context, checks the expectations and reports a diff for a failed "contains"', async () => {
    const api = await hooks();
    await writeFile(path.join(folder(), DIR, 'context.ts'), 'line one\nexport const answer = 42;\nline three\n');
    const uri = await writeQueryFile(
      'run.aq.md',
      [
        '## Echoes the context',
        '- application: echo',
        `- context: ${DIR}/context.ts#L2`,
        '- expect: contains "export const answer = 42;"',
        '- expect: not contains "line three"',
        '- expect: status 200',
        '- expect: total under 30s',
        '',
        'What is the answer?',
        '',
        '## Fails a contains',
        '- application: echo',
        '- expect: contains "this text is not in the answer"',
        '',
        'Echo me.',
        '',
        '## A 500 without a status expectation',
        '- application: fail-500',
        '',
        'Fail please.',
        '',
      ].join('\n'),
    );
    const node = await listed(uri, 3);
    const before = queryPosts(await received()).length;
    const report = await api.recordTestRuns(() => vscode.commands.executeCommand('applicationQuery.runQueryFile', uri));
    const [ok, contains, failing] = node.children.map((c) => report.items[c.id]);
    assert.equal(ok.state, 'passed', JSON.stringify(ok.messages));
    assert.match(ok.output, /HTTP 200/);
    assert.match(ok.output, /first byte \d/);
    assert.match(ok.output, /export const answer = 42;/, 'the answer is in the test output');
    assert.equal(contains.state, 'failed');
    assert.equal(contains.messages.length, 1);
    assert.match(contains.messages[0].text, /contain "this text is not in the answer"/);
    assert.equal(contains.messages[0].expected, 'this text is not in the answer');
    assert.match(contains.messages[0].actual ?? '', /Echo me\./, 'the actual side of the diff is the answer');
    assert.equal(contains.messages[0].line, 12, 'the message points at the expect line');
    assert.equal(failing.state, 'failed');
    assert.match(failing.messages[0].text, /2xx|HTTP 500/);
    const posts = queryPosts(await received()).slice(before);
    assert.equal(posts.length, 3, 'one request per query');
    const echoed = posts.find((p) => p.applicationId === 'echo' && p.body.includes('answer = 42'));
    assert.ok(echoed !== undefined, 'the context lines were sent');
    assert.ok(!echoed.body.includes('line three'), 'only the lines the range names');
    // History writes when the answers have ended (several ending together share one write).
    await waitFor(() => api.storedHistory().reloaded.slice(0, 3).every((e) => e.surface === 'queryFile') || undefined, 'every run in History as a query-file exchange');
  });

  it('a context file outside the workspace folder (by .. or by a symbolic link) is refused and nothing is sent', async () => {
    const api = await hooks();
    const outside = path.join(os.tmpdir(), `aq-outside-${process.pid}.txt`);
    await writeFile(outside, 'secret outside the workspace');
    await symlink(outside, path.join(folder(), DIR, 'link.txt')).catch(() => undefined);
    const uri = await writeQueryFile('fence.aq.md', `## Climbs out\n- application: echo\n- context: ../${path.basename(folder())}-sibling/x.txt\n\nQ\n\n## Through a link\n- application: echo\n- context: ${DIR}/link.txt\n\nQ\n`);
    const node = await listed(uri, 2);
    const before = queryPosts(await received()).length;
    const report = await api.recordTestRuns(() => vscode.commands.executeCommand('applicationQuery.runQueryFile', uri));
    for (const child of node.children) {
      const item = report.items[child.id];
      assert.equal(item.state, 'errored', `${child.label}: ${JSON.stringify(item)}`);
    }
    assert.match(report.items[node.children[1].id].messages[0].text, /outside the workspace folder/);
    assert.equal(queryPosts(await received()).length, before, 'the service received nothing');
    const doc = await vscode.workspace.openTextDocument(uri);
    const diagnostics = await waitFor(() => {
      const found = vscode.languages.getDiagnostics(doc.uri);
      return found.length >= 2 ? found : undefined;
    }, 'diagnostics on both context lines');
    assert.deepEqual(diagnostics.map((d) => d.range.start.line).sort(), [2, 8]);
    await rm(outside, { force: true });
  });

  it('runs at most the concurrency setting per service, in file order; Stop closes every connection', async () => {
    const api = await hooks();
    await config().update('queryFiles.concurrency', 2, vscode.ConfigurationTarget.Global);
    const sections = Array.from({ length: 6 }, (_, i) => `## Stalls ${i + 1}\n- application: stall\n\nWait ${i + 1}\n`);
    const uri = await writeQueryFile('stop.aq.md', sections.join('\n'));
    const node = await listed(uri, 6);
    const before = queryPosts(await received()).length;
    const twoSent = waitFor(async () => queryPosts(await received()).length - before >= 2 || undefined, 'two stalled requests at the service');
    // A moment more: a third request, if the limit let one through, would arrive now.
    const report = await api.runQueryTests([node.id], twoSent.then(() => new Promise((resolve) => setTimeout(resolve, 500))));
    const posts = queryPosts(await received()).slice(before);
    assert.equal(posts.length, 2, 'two were sent (the limit); the rest never were');
    assert.deepEqual(posts.map((p) => (JSON.parse(p.body) as { query: string }).query).sort(), ['Wait 1', 'Wait 2'], 'the first two of the file');
    assert.deepEqual(report.started, node.children.slice(0, 2).map((c) => c.id));
    await waitFor(async () => queryPosts(await received()).slice(before).every((r) => r.closedByClientAt !== undefined) || undefined, 'the service saw both connections close');
    assert.ok(Object.values(report.items).every((i) => i.state === 'skipped'), JSON.stringify(report.items));
  });

  it('a query’s environment sends it to that environment’s service, with that origin’s key', async () => {
    const api = await hooks();
    const seen: string[] = [];
    const other = http.createServer((req, res) => {
      seen.push(`${req.url ?? ''} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      // Not ending in "staging": another suite's key starts with that word, and an answer ending in the start of a known key is masked.
      res.end('answer from staging, all well');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      await config().update('environments', { dev: { baseUrl: serviceUrl() }, staging: { baseUrl: otherUrl } }, vscode.ConfigurationTarget.Global);
      const uri = await writeQueryFile('env.aq.md', '## On staging\n- application: echo\n- environment: staging\n- expect: contains "from staging"\n\nWhere?\n');
      const node = await listed(uri, 1);
      const first = await api.runQueryTests([node.id]);
      assert.equal(first.items[node.children[0].id].state, 'errored', 'no key for staging yet: not sent');
      assert.match(first.items[node.children[0].id].messages[0].text, /No API key/);
      assert.equal(seen.length, 0);
      await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'staging');
      await api.setApiKey('echo', 'stg_Jd3Vk8Rw1Zq6Hm9Tc4Xb');
      await vscode.commands.executeCommand('applicationQuery.selectEnvironment', '');
      const second = await api.runQueryTests([node.id]);
      assert.equal(second.items[node.children[0].id].state, 'passed', JSON.stringify(second.items));
      assert.deepEqual(seen, ['/api/applications/echo/query Bearer stg_Jd3Vk8Rw1Zq6Hm9Tc4Xb']);
    } finally {
      await config().update('environments', undefined, vscode.ConfigurationTarget.Global);
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('the editor: diagnostics with quick fixes, completion of names and keys, CodeLens per query', async () => {
    const uri = await writeQueryFile('editor.aq.md', '## Typo\n- aplication: echo\n- application: ecko\n- expect: contans "x"\n\nQ\n');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const diagnostics = await waitFor(() => {
      const found = vscode.languages.getDiagnostics(doc.uri);
      return found.length >= 3 ? found : undefined;
    }, 'three diagnostics');
    assert.deepEqual(diagnostics.map((d) => d.range.start.line), [1, 2, 3]);
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diagnostics[1].range);
    assert.ok(fixes.some((f) => f.title === 'Use the application echo'), fixes.map((f) => f.title).join(', '));
    const keyFix = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diagnostics[0].range);
    assert.ok(keyFix.some((f) => f.title === 'Change to application:'), keyFix.map((f) => f.title).join(', '));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(4, 0), '- application: ');
    await vscode.workspace.applyEdit(edit);
    const apps = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(4, 15));
    const labels = apps.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('demo-assistant'), `line 4 is ${JSON.stringify(doc.lineAt(4).text)}; offered: ${labels.slice(0, 8).join(', ')}`);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    assert.deepEqual(lenses.map((l) => l.command?.command), ['applicationQuery.runQueryFile', 'applicationQuery.runQuery', 'applicationQuery.runQueryOn']);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
