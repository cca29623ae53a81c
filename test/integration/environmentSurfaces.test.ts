// Environments in History, Replay, Diagnose and the models of VS Code's Chat, in a real extension
// host: an exchange records the environment it went to, Replay sends it there again whatever is
// current (or says it cannot), Diagnose names what it diagnosed, and each model names its service.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { CurrentApplication } from '../../src/host/platform/currentApplication';
import { KeyStore } from '../../src/host/platform/keyStore';
import { Log } from '../../src/host/platform/log';
import { Settings } from '../../src/host/platform/settings';
import { QueryRegistry } from '../../src/host/query/registry';
import { QueryRunner } from '../../src/host/query/runner';
import { ApplicationModelProvider } from '../../src/host/vscodeChat/provider';
import { hooks, received, serviceKeys, serviceUrl, waitFor } from './hooks';
import { MemoryMemento, MemorySecrets } from './memoryStores';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('applicationQuery');

/** The key Environment beta knows for echo (its own: never the reference service's). */
const BETA_KEY = 'beta_Kx8Qm3Vz6Rb1Tw9Ln4Pj';

describe('Environments in History, Replay, Diagnose and the Chat models', () => {
  let beta: http.Server;
  let betaUrl: string;
  let betaRequests: { path: string; authorization: string; body: string }[];
  let keys: Record<string, string>;

  const select = (name: string): Thenable<unknown> => vscode.commands.executeCommand('applicationQuery.selectEnvironment', name);
  const environments = (value: object | undefined): Thenable<void> => config().update('environments', value, vscode.ConfigurationTarget.Global);

  before(async () => {
    betaRequests = [];
    beta = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        betaRequests.push({ path: req.url ?? '', authorization: req.headers.authorization ?? '', body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('beta answer');
      });
    });
    await new Promise<void>((resolve) => beta.listen(0, '127.0.0.1', resolve));
    betaUrl = `http://127.0.0.1:${(beta.address() as AddressInfo).port}`;
    keys = await serviceKeys();
    await environments({ alpha: { baseUrl: serviceUrl() }, beta: { baseUrl: betaUrl } });
    const api = await hooks();
    await select('alpha');
    await api.setApiKey('echo', keys.echo);
    await select('beta');
    await api.setApiKey('echo', BETA_KEY);
  });

  after(async () => {
    const api = await hooks();
    await select('beta');
    await api.removeApiKey('echo');
    await config().update('environment', undefined, vscode.ConfigurationTarget.Global);
    await environments(undefined);
    await new Promise<void>((resolve) => beta.close(() => resolve()));
  });

  /** Runs a question on echo in environment `name` and returns its History entry, as a reloaded window reads it. */
  async function recordedOn(name: string, question: string): Promise<string> {
    const api = await hooks();
    await select(name);
    const result = await api.runQuery({ applicationId: 'echo', question });
    assert.equal(result.outcome.kind, 'done', result.outcome.message);
    const id = result.outcome.exchangeId;
    assert.ok(id !== undefined);
    await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.id === id), 'the exchange in History');
    return id;
  }

  it('a query on an environment is recorded with its name', async () => {
    const api = await hooks();
    const alphaId = await recordedOn('alpha', `recorded on alpha ${Date.now()}`);
    const alpha = api.storedHistory().reloaded.find((exchange) => exchange.id === alphaId);
    assert.equal(alpha?.environment, 'alpha');
    assert.ok(alpha?.request.url.startsWith(`${serviceUrl().replace(/\/+$/, '')}/`), alpha?.request.url);
    const betaId = await recordedOn('beta', 'recorded on beta');
    const recorded = api.storedHistory().reloaded.find((exchange) => exchange.id === betaId);
    assert.equal(recorded?.environment, 'beta');
    assert.equal(recorded?.response?.text, 'beta answer');
  });

  it("Replay sends to the recorded environment's service after switching to another, with that service's key", async () => {
    const api = await hooks();
    const question = `replay on alpha ${Date.now()}`;
    const id = await recordedOn('alpha', question);
    await select('beta');
    const before = (await received()).length;
    const betaBefore = betaRequests.length;
    await vscode.commands.executeCommand('applicationQuery.replay', id);
    const sent = await waitFor(async () => (await received()).slice(before).find((r) => r.path.endsWith('/echo/query') && r.body.includes(question)), "the replay at alpha's service");
    assert.equal(sent.headers.authorization, `Bearer ${keys.echo}`, "alpha's own key");
    const replayed = await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.replayOf === id && exchange.outcome.kind === 'done'), 'the replay in History');
    assert.equal(replayed.environment, 'alpha');
    assert.equal(replayed.surface, 'replay');
    assert.equal(betaRequests.length, betaBefore, 'beta, the current environment, received nothing');
    assert.equal(config().inspect<string>('environment')?.globalValue, 'beta', 'the current environment is unchanged');
  });

  it('Replay of an exchange whose environment is gone goes to the current service', async () => {
    const api = await hooks();
    const question = `replay after a rename ${Date.now()}`;
    const id = await recordedOn('alpha', question);
    await environments({ 'alpha-renamed': { baseUrl: serviceUrl() }, beta: { baseUrl: betaUrl } });
    try {
      await select('beta');
      const before = (await received()).length;
      await vscode.commands.executeCommand('applicationQuery.replay', id);
      const sent = await waitFor(() => betaRequests.find((r) => r.path.endsWith('/echo/query') && r.body.includes(question)), "the replay at the current (beta) service");
      assert.equal(sent.authorization, `Bearer ${BETA_KEY}`, "beta's own key, never alpha's");
      const replayed = await waitFor(() => api.storedHistory().reloaded.find((exchange) => exchange.replayOf === id), 'the replay in History');
      assert.equal(replayed.environment, 'beta');
      assert.ok(!(await received()).slice(before).some((r) => r.body.includes(question)), 'the old service received nothing');
    } finally {
      await environments({ alpha: { baseUrl: serviceUrl() }, beta: { baseUrl: betaUrl } });
    }
  });

  it('Diagnose Connection names the environment it diagnosed; without an argument the current one is first in the pick', async () => {
    const report = async (run: () => Promise<unknown>): Promise<string> => {
      const opened = new Promise<vscode.TextDocument>((resolve) => {
        const subscription = vscode.workspace.onDidOpenTextDocument((document) => {
          if (document.getText().startsWith('# Application Query: connection diagnosis')) {
            subscription.dispose();
            resolve(document);
          }
        });
      });
      await run();
      return (await opened).getText();
    };
    const alpha = await report(() => Promise.resolve(vscode.commands.executeCommand('applicationQuery.diagnose', 'alpha')));
    assert.match(alpha, /^# Application Query: connection diagnosis\n\nEnvironment: alpha\n/);
    assert.ok(alpha.includes(serviceUrl().replace(/\/+$/, '')), 'the report is about alpha\'s service');
    const none = await report(() => Promise.resolve(vscode.commands.executeCommand('applicationQuery.diagnose', '')));
    assert.match(none, /\n\nEnvironment: none \(applicationQuery\.baseUrl\)\n/);
    const missing = await report(() => Promise.resolve(vscode.commands.executeCommand('applicationQuery.diagnose', 'gamma')));
    assert.match(missing, /Environment: gamma\n/);
    assert.match(missing, /environment "gamma".*not in applicationQuery\.environments/);

    await select('beta');
    // The quick pick opens with the current environment highlighted: Enter diagnoses it.
    const picked = await report(async () => {
      const running = vscode.commands.executeCommand('applicationQuery.diagnose');
      let done = false;
      void Promise.resolve(running).then(() => (done = true), () => (done = true));
      for (let i = 0; i < 100 && !done; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
    });
    assert.match(picked, /Environment: beta\n/);
    assert.ok(picked.includes(betaUrl), "the report is about beta's service");
  });

  it("each model names the environment its requests go to, and the list follows a switch", async function () {
    const settings = new Settings();
    const secrets = new MemorySecrets();
    const store = new KeyStore(secrets);
    const log = new Log(() => store.knownSecrets());
    const registry = new QueryRegistry();
    const current = new CurrentApplication(new MemoryMemento(), settings);
    const runner = new QueryRunner(settings, store, log, registry);
    const provider = new ApplicationModelProvider({ extensionUri: vscode.Uri.file(__dirname), settings, keys: store, current, runner, log });
    try {
      await select('alpha');
      const alpha = settings.baseUrl();
      assert.ok(alpha.ok);
      await store.set({ baseUrl: alpha.normalized, applicationId: 'echo' }, keys.echo);
      const onAlpha = await provider.provideLanguageModelChatInformation();
      const echo = onAlpha.find((model) => model.id === 'echo');
      assert.ok(echo, 'echo is a model on alpha');
      assert.equal(echo.detail, `alpha · ${new URL(alpha.origin).host}`);
      assert.ok(echo.tooltip?.includes(`on alpha (${alpha.origin})`), echo.tooltip);

      let fired = 0;
      const subscription = provider.onDidChangeLanguageModelChatInformation((): void => void fired++);
      await select('beta');
      await waitFor(() => fired > 0 || undefined, 'the model list to change with the environment');
      subscription.dispose();
      assert.deepEqual((await provider.provideLanguageModelChatInformation()).map((model) => model.id), [], 'beta has no keys in this store: no models');
      const betaBase = settings.baseUrl();
      assert.ok(betaBase.ok);
      await store.set({ baseUrl: betaBase.normalized, applicationId: 'echo' }, BETA_KEY);
      const onBeta = (await provider.provideLanguageModelChatInformation()).find((model) => model.id === 'echo');
      assert.equal(onBeta?.detail, `beta · ${new URL(betaUrl).host}`);

      await config().update('environment', undefined, vscode.ConfigurationTarget.Global);
      const base = settings.baseUrl();
      assert.ok(base.ok);
      await store.set({ baseUrl: base.normalized, applicationId: 'echo' }, keys.echo);
      const plain = (await provider.provideLanguageModelChatInformation()).find((model) => model.id === 'echo');
      assert.equal(plain?.detail, new URL(base.origin).host, 'no environment: the host alone, as before');
    } finally {
      provider.dispose();
      vscode.Disposable.from(settings, log, registry, current, store).dispose();
    }
  });
});

