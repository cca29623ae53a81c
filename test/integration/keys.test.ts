import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { hooks, received, serviceKeys, serviceUrl, waitFor } from './hooks';

describe('Set API Key… stays bound to the service it started with', () => {
  let capture: http.Server;
  let captured: string[];
  let captureUrl: string;

  before(async () => {
    captured = [];
    capture = http.createServer((req, res) => {
      captured.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
    captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
  });

  after(async () => {
    await vscode.workspace.getConfiguration('applicationQuery').update('baseUrl', serviceUrl(), vscode.ConfigurationTarget.Global);
    await new Promise<void>((resolve) => capture.close(() => resolve()));
  });

  it('a base URL changed while the password box is open gets neither the key nor its check', async () => {
    const api = await hooks();
    const key = (await serviceKeys())['demo-assistant'];
    await api.removeApiKey('demo-assistant');
    const before = (await received()).length;
    await api.setApiKeyWhilePrompting('demo-assistant', key, async () => {
      await vscode.workspace.getConfiguration('applicationQuery').update('baseUrl', captureUrl, vscode.ConfigurationTarget.Global);
    });
    // The check went to the service the flow started with, with the key typed there...
    await waitFor(async () => (await received()).slice(before).find((r) => r.method === 'GET' && r.path === '/api/applications/demo-assistant' && r.headers.authorization === `Bearer ${key}`), 'the key check at the original service');
    // ...and nothing reached the new origin.
    assert.deepEqual(captured, []);
    assert.equal(await api.hasApiKey('demo-assistant'), false, 'no key is stored for the new origin');
    await vscode.workspace.getConfiguration('applicationQuery').update('baseUrl', serviceUrl(), vscode.ConfigurationTarget.Global);
    assert.equal(await api.hasApiKey('demo-assistant'), true, 'the key is stored for the origin it was typed for');
  });
});
