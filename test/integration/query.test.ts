import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, serviceUrl, waitFor } from './hooks';

describe('Queries through the real pipeline (extension host → reference service)', () => {
  let keys: Record<string, string>;

  before(async () => {
    keys = await serviceKeys();
    const api = await hooks();
    for (const id of ['echo', 'demo-assistant', 'fail-401', 'fail-500', 'cutoff', 'stall', 'sse-openai', 'ndjson']) {
      await api.setApiKey(id, keys[id]);
    }
  });

  it('round-trips a key through SecretStorage: the service receives exactly that Bearer key', async () => {
    const api = await hooks();
    assert.equal(await api.hasApiKey('echo'), true);
    const before = (await received()).length;
    const result = await api.runQuery({ applicationId: 'echo', question: 'ping' });
    assert.equal(result.outcome.kind, 'done');
    const sent = (await received()).slice(before).filter((r) => r.path.endsWith('/echo/query'));
    assert.equal(sent.length, 1);
    assert.equal(sent[0].headers.authorization, `Bearer ${keys.echo}`);
    assert.match(String(sent[0].headers['content-type']), /^application\/json/);
  });

  it('sends the selection JSON-safely: quotes, backslashes, newlines and ${...} arrive as typed', async () => {
    const api = await hooks();
    const selection = 'const s = "a\\"b";\n// ${file} and \\n stay literal\n\tü 日本 👍';
    const result = await api.runQuery({
      applicationId: 'echo',
      question: 'What does "this" do?',
      context: { kind: 'selection', label: 'x.ts:1-3', text: selection, fileName: 'x.ts', languageId: 'typescript', fileText: 'FILE' + selection },
    });
    assert.equal(result.outcome.kind, 'done');
    const body = JSON.parse(result.text) as { query: string };
    assert.ok(body.query.includes('What does "this" do?'), body.query);
    assert.ok(body.query.includes(selection), 'the selection arrives byte-exact inside ${input}');
    assert.ok(!body.query.includes('FILE'), '${file} inside the selection is not expanded again');
  });

  it('streams a plain-text answer in order and reports HTTP 200', async () => {
    const api = await hooks();
    const result = await api.runQuery({ applicationId: 'demo-assistant', question: 'Explain closures' });
    assert.equal(result.outcome.kind, 'done');
    assert.deepEqual(result.statuses, [200]);
    assert.match(result.text, /^#/m, 'a markdown heading arrived');
    assert.ok(result.text.includes('```'), 'a fenced code block arrived');
    assert.equal(result.outcome.textChars, result.text.length);
  });

  it('reads SSE and NDJSON answers as text', async () => {
    const api = await hooks();
    const plain = await api.runQuery({ applicationId: 'demo-assistant', question: 'same' });
    for (const id of ['sse-openai', 'ndjson']) {
      const result = await api.runQuery({ applicationId: id, question: 'same' });
      assert.equal(result.outcome.kind, 'done', `${id}: ${result.outcome.message}`);
      assert.equal(result.text, plain.text, `${id} carries the same answer as the plain-text app`);
    }
  });

  it('reports 401 and 500 with their numeric status and keeps going', async () => {
    const api = await hooks();
    const unauthorized = await api.runQuery({ applicationId: 'fail-401', question: 'x' });
    assert.equal(unauthorized.outcome.kind, 'error');
    assert.equal(unauthorized.outcome.httpStatus, 401);
    assert.match(unauthorized.outcome.message ?? '', /401/);
    const failed = await api.runQuery({ applicationId: 'fail-500', question: 'x' });
    assert.equal(failed.outcome.httpStatus, 500);
    assert.equal(failed.outcome.retryable, true);
  });

  it('keeps the partial answer of a stream cut off midway and says how much arrived', async () => {
    const api = await hooks();
    const result = await api.runQuery({ applicationId: 'cutoff', question: 'x' });
    assert.equal(result.outcome.kind, 'interrupted');
    assert.ok(result.text.length > 100, 'the partial answer is kept');
    assert.match(result.outcome.message ?? '', /interrupted after \d+ bytes/);
  });

  it('stops a stalled answer on request, keeps what arrived, and closes the connection', async () => {
    const api = await hooks();
    const controller = new AbortController();
    const before = (await received()).length;
    const pending = api.runQuery({ applicationId: 'stall', question: 'x' }, controller.signal);
    await waitFor(async () => (await received()).slice(before).find((r) => r.path.endsWith('/stall/query')), 'the stall request');
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const result = await pending;
    assert.equal(result.outcome.kind, 'stopped');
    assert.ok(result.text.length > 0, 'what arrived before Stop is kept');
    const closed = await waitFor(async () => (await received()).slice(before).find((r) => r.path.endsWith('/stall/query') && r.closedByClientAt), 'the server to see the close');
    assert.ok(closed.closedByClientAt);
  });

  it('binds keys to the origin: after the base URL moves to another origin the key is not there', async () => {
    const api = await hooks();
    const config = vscode.workspace.getConfiguration('applicationQuery');
    const original = config.inspect<string>('baseUrl')?.globalValue;
    const other = serviceUrl().replace('127.0.0.1', 'localhost');
    try {
      await config.update('baseUrl', other, vscode.ConfigurationTarget.Global);
      await waitFor(() => vscode.workspace.getConfiguration('applicationQuery').get('baseUrl') === other || undefined, 'the setting to change');
      assert.equal(await api.hasApiKey('echo'), false, 'no key for the other origin');
    } finally {
      await config.update('baseUrl', original, vscode.ConfigurationTarget.Global);
    }
    assert.equal(await api.hasApiKey('echo'), true, 'the key is back with its origin');
  });

  it('Stop Query with nothing running is harmless', async () => {
    await vscode.commands.executeCommand('applicationQuery.stop');
  });
});
