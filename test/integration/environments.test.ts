// Environments in a real extension host: Select Environment… switches the service every surface
// uses, keys stay bound to each environment's origin, and a missing environment sends nothing.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, serviceUrl, waitFor } from './hooks';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('applicationQuery');

describe('Environments: one setting per service, keys per origin', () => {
  let other: http.Server;
  let otherRequests: string[];
  let otherUrl: string;

  before(async () => {
    otherRequests = [];
    other = http.createServer((req, res) => {
      otherRequests.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('staging answer');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    await config().update('environments', { dev: { baseUrl: serviceUrl() }, staging: { baseUrl: otherUrl } }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await config().update('environment', undefined, vscode.ConfigurationTarget.Global);
    await config().update('environments', undefined, vscode.ConfigurationTarget.Global);
    await new Promise<void>((resolve) => other.close(() => resolve()));
  });

  it('Select Environment… makes the environment current in the user settings', async () => {
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'dev');
    assert.equal(config().inspect<string>('environment')?.globalValue, 'dev');
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', '');
    assert.equal(config().inspect<string>('environment')?.globalValue, undefined, 'empty means applicationQuery.baseUrl');
  });

  it("queries go to the current environment's service, with that origin's key", async () => {
    const api = await hooks();
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'dev');
    const key = (await serviceKeys())['demo-assistant'];
    await api.setApiKey('demo-assistant', key);
    const before = (await received()).length;
    const result = await api.runQuery({ applicationId: 'demo-assistant', question: 'which environment?' });
    assert.equal(result.outcome.kind, 'done', result.outcome.message);
    await waitFor(async () => (await received()).slice(before).find((r) => r.path === '/api/applications/demo-assistant/query' && r.headers.authorization === `Bearer ${key}`), 'the query at the dev service');
  });

  it("switching environments never sends a key to the other service: each origin has its own keys", async () => {
    const api = await hooks();
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'dev');
    assert.equal(await api.hasApiKey('demo-assistant'), true, 'dev has its key');
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'staging');
    assert.equal(await api.hasApiKey('demo-assistant'), false, 'staging has none: the dev key is not offered there');
    await api.setApiKey('demo-assistant', 'stg_Fy6Nc2Pw9Qj4Xz7Rb1Lm');
    const result = await api.runQuery({ applicationId: 'demo-assistant', question: 'staging?' });
    assert.equal(result.outcome.kind, 'done', result.outcome.message);
    assert.equal(result.text, 'staging answer');
    const devKey = (await serviceKeys())['demo-assistant'];
    assert.ok(otherRequests.length > 0 && otherRequests.every((line) => !line.includes(devKey)), `staging saw only its own key: ${otherRequests.join(' | ')}`);
    await api.removeApiKey('demo-assistant');
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'dev');
    assert.equal(await api.hasApiKey('demo-assistant'), true, 'removing the staging key left the dev key alone');
  });

  it('a current environment that is not configured sends nothing and says which setting to fix', async () => {
    const api = await hooks();
    await config().update('environment', 'prod', vscode.ConfigurationTarget.Global);
    const before = (await received()).length;
    const seen = otherRequests.length;
    const result = await api.runQuery({ applicationId: 'demo-assistant', question: 'prod?' });
    assert.equal(result.outcome.kind, 'error');
    assert.match(result.outcome.message ?? '', /environment "prod".*not in applicationQuery\.environments/);
    assert.equal((await received()).length, before, 'the service received nothing');
    assert.equal(otherRequests.length, seen, 'nor did any other service');
    await config().update('environment', undefined, vscode.ConfigurationTarget.Global);
  });
});
