import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { KeyStore } from '../../src/host/platform/keyStore';
import { keySlot } from '../../src/shared/keySlots';
import { hooks, received, serviceKeys, serviceUrl, waitFor } from './hooks';
import { MemorySecrets } from './memoryStores';

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

describe('Whether an application has a key', () => {
  const BASE = 'https://service.example.com/';
  const ref = (applicationId: string): { baseUrl: string; applicationId: string } => ({ baseUrl: BASE, applicationId });

  it('is read from SecretStorage once for all who ask, and again after any window changes a key', async () => {
    const secrets = new MemorySecrets();
    const store = new KeyStore(secrets);
    try {
      await store.set(ref('echo'), 'key-echo-0123456789');
      const ids = Array.from({ length: 40 }, (_, i) => (i === 0 ? 'echo' : `app-${i}`));
      const ask = (): Promise<boolean[]> => Promise.all(ids.map((id) => store.has(ref(id))));
      const first = await ask();
      const afterFirst = secrets.reads;
      // The views, the model list and the walkthrough each ask again on every change.
      for (let i = 0; i < 4; i++) assert.deepEqual(await ask(), first);
      assert.equal(secrets.reads, afterFirst, 'no more reads while nothing changed');
      assert.deepEqual(first.map((has, i) => has && ids[i]).filter(Boolean), ['echo']);

      // Another window stores a key (the change event), then removes one.
      await secrets.store(keySlot(ref('app-7')), 'key-seven-0123456789');
      assert.equal(await store.has(ref('app-7')), true, 'a key stored in another window counts at once');
      await secrets.delete(keySlot(ref('echo')));
      assert.equal(await store.has(ref('echo')), false, 'a key removed in another window is gone at once');
      // The key itself is read fresh on each request.
      assert.equal(await store.get(ref('app-7')), 'key-seven-0123456789');
    } finally {
      store.dispose();
    }
  });
});
