import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, waitFor } from './hooks';

describe('History: every exchange kept, replayable, shareable without the key', () => {
  let keys: Record<string, string>;

  before(async () => {
    keys = await serviceKeys();
    const api = await hooks();
    await api.setApiKey('echo', keys.echo);
    await api.setApiKey('sse-openai', keys['sse-openai']);
  });

  it('records the request as sent (key masked) and the response as received, and keeps it across a reload', async () => {
    const api = await hooks();
    const question = `history check ${Date.now()} "quotes" ü`;
    const result = await api.runQuery({ applicationId: 'echo', question });
    assert.equal(result.outcome.kind, 'done');
    assert.ok(result.outcome.exchangeId !== undefined, 'the outcome names its History entry');
    // Written to disk in the background: a reloaded window reads it back once the write is done.
    const entry = await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.id === result.outcome.exchangeId), 'a reloaded window to read the exchange back');
    assert.ok(!api.storedHistory().json.includes(keys.echo), 'the stored History never holds the key');
    assert.equal(entry.applicationId, 'echo');
    assert.equal(entry.request.method, 'POST');
    assert.match(entry.request.url, /\/api\/applications\/echo\/query$/);
    assert.equal(entry.request.headers.Authorization, `Bearer ••••${keys.echo.slice(-4)}`);
    assert.equal(JSON.parse(entry.request.body ?? '{}').query, question);
    assert.equal(entry.response?.status, 200);
    assert.equal(entry.response?.raw, result.text, 'the raw body is what came over the wire');
    assert.equal(entry.response?.text, result.text);
    assert.equal(entry.wireBytes, result.outcome.wireBytes);
    assert.equal(entry.textChars, result.text.length);
    assert.equal(entry.outcome.kind, 'done');
    assert.ok(entry.timings.headersMs !== undefined && entry.timings.durationMs >= entry.timings.headersMs);
  });

  it('keeps the raw SSE events beside the extracted text', async () => {
    const api = await hooks();
    const result = await api.runQuery({ applicationId: 'sse-openai', question: 'raw view' });
    const entry = await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.id === result.outcome.exchangeId), 'the exchange in History');
    assert.equal(entry.response?.format, 'sse');
    assert.match(entry?.response?.raw ?? '', /^data: \{/m);
    assert.equal(entry?.response?.text, result.text);
  });

  it('Replay Query sends the recorded body again, byte for byte, and records the replay', async () => {
    const api = await hooks();
    const first = await api.runQuery({ applicationId: 'echo', question: 'replay me: ${file} `x` \\n' });
    const before = (await received()).length;
    await vscode.commands.executeCommand('applicationQuery.replay', first.outcome.exchangeId);
    const sent = await waitFor(async () => (await received()).slice(before).find((request) => request.path.endsWith('/echo/query')), 'the replayed request');
    const recorded = (await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.id === first.outcome.exchangeId), 'the first exchange in History')).request.body;
    assert.ok(recorded !== undefined);
    assert.equal(sent.body, recorded, 'the service received the recorded body byte for byte');
    const replayed = await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.replayOf === first.outcome.exchangeId && exchange.outcome.kind === 'done'), 'the replay in History');
    assert.equal(replayed.surface, 'replay');
    assert.equal(replayed.request.body, sent.body);
  });

  it('Copy as cURL puts a command on the clipboard that reads the key from the environment', async () => {
    const api = await hooks();
    const result = await api.runQuery({ applicationId: 'echo', question: "it's $(date) `now`" });
    await vscode.commands.executeCommand('applicationQuery.copyAsCurl', result.outcome.exchangeId);
    const command = await vscode.env.clipboard.readText();
    assert.match(command, /^curl -N -X POST --url '/);
    assert.ok(command.includes('"Authorization: Bearer $APPLICATION_QUERY_KEY"'), command);
    assert.ok(!command.includes(keys.echo), 'the key is not in the command');
    assert.ok(!command.includes(keys.echo.slice(-4) + "'"), 'not even its masked form');
  });

  it('answers that end together redraw the History view once, within a second, and a later answer redraws it again', async () => {
    const api = await hooks();
    // Nothing of an earlier test still to be drawn.
    const settled = async (): Promise<number> => {
      for (let count = api.historyRedraws().length; ; ) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        const now = api.historyRedraws().length;
        if (now === count) return now;
        count = now;
      }
    };
    const before = await settled();
    const results = await Promise.all([1, 2, 3].map((n) => api.runQuery({ applicationId: 'echo', question: `burst ${n}` })));
    const ended = Date.now();
    for (const result of results) {
      await waitFor(() => api.storedHistory().reloaded.some((exchange) => exchange.id === result.outcome.exchangeId), 'the exchange in History');
    }
    const after = await settled();
    const redraws = api.historyRedraws().slice(before);
    assert.equal(after - before, 1, `three exchanges recorded together make one redraw of the view, not one each (redraws ${redraws.length})`);
    assert.ok(redraws[0] - ended <= 1000, `the rows are drawn within a second of the answers' end (${redraws[0] - ended} ms)`);

    await api.runQuery({ applicationId: 'echo', question: 'after the burst' });
    assert.equal((await settled()) - after, 1, 'a later exchange is drawn too');
  });
});
