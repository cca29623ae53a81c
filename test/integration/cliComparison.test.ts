// One engine (issue #49 item 1): a query file with context and every expectation form runs through
// the Testing view and through the command line against the same reference service; the service
// records byte-identical request bodies, and every query gets the same verdict.
import * as assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runCollected } from '../support/collect';
import { hooks, received, serviceKeys, serviceUrl, waitFor, type Recorded } from './hooks';

const DIR = 'aq-cli-comparison';
const BIN = path.resolve(__dirname, '..', '..', '..', 'cli', 'dist', 'application-query.js');

const QUERY_FILE = [
  '# The same file in the editor and in CI',
  '',
  '## Every form passes',
  '- application: echo',
  `- context: ${DIR}/context.ts#L2-3`,
  '- expect: contains "answer = 42"',
  '- expect: not contains "line one"',
  '- expect: matches /answer = \\d+/',
  '- expect: not matches /^nothing/i',
  '- expect: status 200',
  '- expect: first byte under 20s',
  '- expect: total under 30s',
  '',
  'What is the answer? ```fenced``` text, "quotes" and ünïcödé.',
  '',
  '## A matches fails',
  '- application: echo',
  '- expect: matches /this is not there/',
  '',
  'Echo this.',
  '',
  '## A status expectation on a failing service',
  '- application: fail-500',
  '- expect: status 500',
  '',
  'Fail, please.',
  '',
  '## The whole context file, no expectation',
  '- application: echo',
  `- context: ${DIR}/context.ts`,
  '',
  '',
].join('\n');

const queryPosts = (records: readonly Recorded[]): Recorded[] => records.filter((r) => r.method === 'POST' && r.path.endsWith('/query'));

describe('One engine: the Testing view and the command line send the same requests and reach the same verdicts', () => {
  const folder = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? assert.fail('no workspace folder');

  after(async () => {
    await rm(path.join(folder(), DIR), { recursive: true, force: true });
  });

  it('byte-identical request bodies and the same verdict per query', async function () {
    this.timeout(120_000);
    const api = await hooks();
    const keys = await serviceKeys();
    for (const id of ['echo', 'fail-500']) await api.setApiKey(id, keys[id]);
    await mkdir(path.join(folder(), DIR), { recursive: true });
    await writeFile(path.join(folder(), DIR, 'context.ts'), 'line one\nexport const answer = 42;\r\nline three\n');
    const file = path.join(folder(), DIR, 'compare.aq.md');
    await writeFile(file, QUERY_FILE);
    const uri = vscode.Uri.file(file);
    const node = await waitFor(async () => (await api.queryTests()).find((n) => n.id === uri.toString() && n.children.length === 4), 'the file listed with 4 queries');

    const beforeEditor = queryPosts(await received()).length;
    const editor = await api.runQueryTests([node.id]);
    const editorPosts = queryPosts(await received()).slice(beforeEditor);
    const editorVerdicts = node.children.map((child) => editor.items[child.id].state);

    const config = vscode.workspace.getConfiguration('applicationQuery');
    await writeFile(
      path.join(folder(), DIR, 'settings.json'),
      JSON.stringify({ 'applicationQuery.baseUrl': serviceUrl(), 'applicationQuery.applications': config.get('applications'), 'applicationQuery.requestTemplate': config.get('requestTemplate') }),
    );
    const beforeCli = queryPosts(await received()).length;
    const cli = await runCollected(process.execPath, [BIN, 'test', `${DIR}/compare.aq.md`, '--settings', `${DIR}/settings.json`, '--reporter', 'json', '--concurrency', '1'], {
      cwd: folder(),
      env: { PATH: process.env.PATH, APPLICATION_QUERY_KEY_ECHO: keys.echo, APPLICATION_QUERY_KEY_FAIL_500: keys['fail-500'] },
    });
    assert.equal(cli.code, 1, `two queries fail: ${cli.stderr}`);
    const report = JSON.parse(cli.stdout) as { queries: { query: string; verdict: string }[] };
    const cliPosts = queryPosts(await received()).slice(beforeCli);

    assert.deepEqual(editorVerdicts, ['passed', 'failed', 'passed', 'passed']);
    assert.deepEqual(report.queries.map((q) => q.verdict), editorVerdicts, 'the same verdict per query');
    const bodies = (posts: readonly Recorded[]): string[] => posts.map((p) => `${p.applicationId ?? ''} ${p.body}`).sort();
    assert.equal(editorPosts.length, 4);
    assert.deepEqual(bodies(cliPosts), bodies(editorPosts), 'byte-identical request bodies');
    assert.ok(editorPosts.some((p) => p.body.includes('answer = 42') && !p.body.includes('line one')), 'the context lines were sent');
  });
});
