import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { bulkText } from '../../service/apps';
import { hooks, received, serviceKeys, waitFor } from './hooks';

/** The load applications the launcher asked the service for, and what each one streams. */
const LOAD = Array.from({ length: 20 }, (_, i) => {
  const id = `load-${String(i + 1).padStart(2, '0')}`;
  // Odd sizes and chunk lengths, so chunk edges fall inside multibyte characters.
  return { id, size: 96 * 1024 + i * 7919, chunkBytes: 997 + i * 31, paceMs: 1 };
});
/** The one that is stopped: slow enough that it is surely still streaming when Stop comes. */
const STOPPED = { id: 'load-20', size: 512 * 1024, chunkBytes: 512, paceMs: 20 };

describe('Load: 20 queries at once to different applications', function () {
  this.timeout(120_000);
  let original: unknown;

  before(async () => {
    const config = vscode.workspace.getConfiguration('applicationQuery');
    original = config.inspect('applications')?.globalValue;
    const known = (Array.isArray(original) ? original : []) as { id: string }[];
    const templates = new Map([...LOAD.slice(0, -1), STOPPED].map(({ id, size, chunkBytes, paceMs }) => [id, { query: '${input}', size, chunkBytes, paceMs }]));
    // The same applications, each load application with a request template that sets its stream.
    const applications = known.map((app) => (templates.has(app.id) ? { ...app, requestTemplate: templates.get(app.id) } : app));
    assert.ok(LOAD.every(({ id }) => known.some((app) => app.id === id)), 'the launcher configured load-01…load-20');
    await config.update('applications', applications, vscode.ConfigurationTarget.Global);
    await waitFor(() => {
      const now = vscode.workspace.getConfiguration('applicationQuery').get<{ id: string; requestTemplate?: unknown }[]>('applications') ?? [];
      return now.find((app) => app.id === STOPPED.id)?.requestTemplate !== undefined || undefined;
    }, 'the templates to take effect');
    const keys = await serviceKeys();
    const api = await hooks();
    for (const { id } of LOAD) {
      await api.setApiKey(id, keys[id]);
    }
  });

  after(async () => {
    await vscode.workspace.getConfiguration('applicationQuery').update('applications', original, vscode.ConfigurationTarget.Global);
  });

  it('every answer arrives byte-exact while they stream together; Stop on one leaves the others', async () => {
    const api = await hooks();
    const before = (await received()).length;
    const stopper = new AbortController();
    const runs = LOAD.map(({ id }) => api.runQuery({ applicationId: id, question: `load ${id}` }, id === STOPPED.id ? stopper.signal : undefined));
    // Stop the slow one once it is streaming.
    await waitFor(async () => (await received()).slice(before).find((r) => r.path === `/api/applications/${STOPPED.id}/query` && r.status === 200), 'the stopped one to start answering');
    await new Promise((resolve) => setTimeout(resolve, 500));
    stopper.abort();
    const results = await Promise.all(runs);

    const sent = (await received()).slice(before).filter((r) => r.path.endsWith('/query'));
    assert.equal(sent.length, LOAD.length, 'one request per application');
    for (const [i, { id, size }] of LOAD.slice(0, -1).entries()) {
      const { outcome, text } = results[i];
      assert.equal(outcome.kind, 'done', `${id}: ${outcome.message ?? ''}`);
      assert.equal(outcome.wireBytes, size, `${id}: every byte arrived`);
      assert.ok(text === bulkText(size), `${id}: the text is byte-exact (${text.length} characters)`);
      assert.equal(sent.find((r) => r.applicationId === id)?.headers.authorization, `Bearer ${(await serviceKeys())[id]}`, `${id} was sent its own key`);
    }
    const stopped = results[LOAD.length - 1];
    assert.equal(stopped.outcome.kind, 'stopped');
    assert.ok(stopped.text.length > 0 && stopped.text.length < bulkText(STOPPED.size).length, 'part of the slow answer arrived before Stop');
    assert.ok(bulkText(STOPPED.size).startsWith(stopped.text), 'what arrived before Stop is kept exactly');
    const closed = await waitFor(async () => (await received()).slice(before).find((r) => r.applicationId === STOPPED.id && r.closedByClientAt), 'the service to see the stopped connection close');
    assert.ok(closed.closedByClientAt);
    assert.equal((await received()).slice(before).filter((r) => r.closedByClientAt && r.applicationId !== STOPPED.id).length, 0, 'no other connection was closed early');
  });
});
