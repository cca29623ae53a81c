// Keys bound to each environment's base URL in a real extension host: staging and production on one
// origin keep separate keys, switching never sends one to the other, and a key saved by an earlier
// version (for the whole origin) moves to one environment only.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { hooks } from './hooks';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('applicationQuery');
const STAGING_KEY = 'stg_Qv7Zr2Lm9Xk4Tb8Wn3Pd';
const PRODUCTION_KEY = 'prd_Hc5Jw8Ys1Fq6Gv2Nx7Ka';
const OLD_KEY = 'old_Rm4Tz9Bq2Wd7Lx5Vc8Hp';

describe('Keys: bound to the environment\'s base URL, not its origin', () => {
  let server: http.Server;
  /** What the one origin received: path and Authorization of every request. */
  let seen: string[];

  before(async () => {
    seen = [];
    server = http.createServer((req, res) => {
      seen.push(`${req.url ?? ''} ${req.headers.authorization ?? '(none)'}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(`answer from ${req.url ?? ''}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await config().update('environments', { staging: { baseUrl: `${origin}/staging` }, production: { baseUrl: `${origin}/prod/` } }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    const api = await hooks();
    for (const environment of ['staging', 'production']) {
      await vscode.commands.executeCommand('applicationQuery.selectEnvironment', environment);
      await api.removeApiKey('echo');
    }
    await config().update('environment', undefined, vscode.ConfigurationTarget.Global);
    await config().update('environments', undefined, vscode.ConfigurationTarget.Global);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('staging and production on one origin keep their own keys, and each request carries its own', async () => {
    const api = await hooks();
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'staging');
    await api.setApiKey('echo', STAGING_KEY);
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'production');
    assert.equal(await api.hasApiKey('echo'), false, 'the staging key is not offered to production');
    await api.setApiKey('echo', PRODUCTION_KEY);
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'staging');
    assert.equal(await api.hasApiKey('echo'), true, 'setting production\'s key left staging\'s in place');

    seen.length = 0;
    for (const environment of ['staging', 'production', 'staging']) {
      await vscode.commands.executeCommand('applicationQuery.selectEnvironment', environment);
      const result = await api.runQuery({ applicationId: 'echo', question: environment });
      assert.equal(result.outcome.kind, 'done', result.outcome.message);
    }
    assert.deepEqual(seen, [
      `/staging/api/applications/echo/query Bearer ${STAGING_KEY}`,
      `/prod/api/applications/echo/query Bearer ${PRODUCTION_KEY}`,
      `/staging/api/applications/echo/query Bearer ${STAGING_KEY}`,
    ]);
  });

  it('a key an earlier version saved for the origin moves to the environment in use, and the other does not get it', async () => {
    const api = await hooks();
    for (const environment of ['staging', 'production']) {
      await vscode.commands.executeCommand('applicationQuery.selectEnvironment', environment);
      await api.removeApiKey('echo');
    }
    await api.storeOriginKey('echo', OLD_KEY);
    assert.equal(await api.hasApiKey('echo'), true, 'production (in use) takes the old key');
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'staging');
    assert.equal(await api.hasApiKey('echo'), false, 'staging, on the same origin, does not');
    seen.length = 0;
    await vscode.commands.executeCommand('applicationQuery.selectEnvironment', 'production');
    const result = await api.runQuery({ applicationId: 'echo', question: 'after the move' });
    assert.equal(result.outcome.kind, 'done', result.outcome.message);
    assert.deepEqual(seen, [`/prod/api/applications/echo/query Bearer ${OLD_KEY}`]);
  });
});
