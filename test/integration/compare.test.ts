// Compare in a real extension host: one question to several applications at once, each answer in
// its own column, every request recorded, Stop closing every connection.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, waitFor, type Recorded } from './hooks';

const posts = (records: readonly Recorded[]): Recorded[] => records.filter((r) => r.method === 'POST' && r.path.endsWith('/query'));

describe('Compare: one question to several applications at once', () => {
  before(async () => {
    const api = await hooks();
    const keys = await serviceKeys();
    for (const id of ['demo-assistant', 'echo', 'stall', 'fail-500']) await api.setApiKey(id, keys[id]);
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('sends the same question to every application at once and records each exchange as a comparison', async () => {
    const api = await hooks();
    const before = posts(await received()).length;
    const historyBefore = api.storedHistory().reloaded.length;
    await vscode.commands.executeCommand('applicationQuery.compare', { applications: ['demo-assistant', 'echo', 'fail-500'], question: 'Compare me' });
    const sent = await waitFor(async () => {
      const now = posts(await received()).slice(before);
      return now.length >= 3 ? now : undefined;
    }, 'three requests');
    assert.deepEqual(sent.map((r) => r.applicationId).sort(), ['demo-assistant', 'echo', 'fail-500']);
    assert.ok(sent.every((r) => (JSON.parse(r.body) as { query: string }).query === 'Compare me'));
    const recorded = await waitFor(() => {
      const list = api.storedHistory().reloaded;
      return list.length >= historyBefore + 3 ? list.slice(0, 3) : undefined;
    }, 'three History entries');
    assert.ok(recorded.every((e) => e.surface === 'compare'), recorded.map((e) => e.surface).join());
    assert.equal(recorded.find((e) => e.applicationId === 'fail-500')?.response?.status, 500, 'the failed column is recorded with its status');
    const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('applicationQuery.comparePanel'));
    assert.ok(tab !== undefined, 'the Compare panel is open');
  });

  it('Stop Query stops every column, and the service sees each connection close', async () => {
    const before = posts(await received()).length;
    await vscode.commands.executeCommand('applicationQuery.compare', { applications: ['stall', 'echo'], environments: [''], question: 'Wait' });
    await waitFor(async () => posts(await received()).slice(before).some((r) => r.applicationId === 'stall') || undefined, 'the stalled request');
    await vscode.commands.executeCommand('applicationQuery.stop');
    await waitFor(async () => posts(await received()).slice(before).find((r) => r.applicationId === 'stall' && r.closedByClientAt !== undefined), 'the service saw the stalled connection close');
  });
});
