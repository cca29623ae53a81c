// Runs inside the real extension host: the extension is there, activates, registers its commands,
// and reads its settings where users put them.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'application-query.application-query';
/** The value the launchers write into the workspace folder's settings; it must never win. */
const WORKSPACE_BASE_URL = 'https://workspace-override.invalid';

interface ManifestCommand {
  command: string;
  title: string;
}

function manifestCommands(extension: vscode.Extension<unknown>): ManifestCommand[] {
  const manifest: unknown = extension.packageJSON;
  const commands: unknown = (manifest as { contributes?: { commands?: unknown } }).contributes?.commands;
  assert.ok(Array.isArray(commands), 'package.json contributes.commands is a list');
  return commands.map((entry: unknown) => {
    const { command, title } = entry as { command?: unknown; title?: unknown };
    assert.equal(typeof command, 'string');
    assert.equal(typeof title, 'string');
    return { command: command as string, title: title as string };
  });
}

function extension(): vscode.Extension<unknown> {
  const found = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(found, `${EXTENSION_ID} is installed in the extension host`);
  return found;
}

describe('Extension activation', () => {
  it('is present and activates', async () => {
    const ext = extension();
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers every command the manifest contributes, with the contract titles', async () => {
    const ext = extension();
    await ext.activate();
    const declared = manifestCommands(ext);
    const ids = declared.map((c) => c.command);
    for (const id of ['applicationQuery.query', 'applicationQuery.querySelection', 'applicationQuery.queryFile', 'applicationQuery.setApiKey', 'applicationQuery.removeApiKey', 'applicationQuery.addApplication', 'applicationQuery.selectApplication', 'applicationQuery.stop', 'applicationQuery.get']) {
      assert.ok(ids.includes(id), `the manifest declares ${id}`);
    }
    assert.equal(declared.find((c) => c.command === 'applicationQuery.query')?.title, 'Query Application');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = ids.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], 'every contributed command has a handler once the extension is active');
  });
});

describe('Settings', () => {
  it('defaults read as the manifest says', () => {
    const config = vscode.workspace.getConfiguration('applicationQuery');
    assert.equal(config.inspect<string>('output')?.defaultValue, 'panel');
    assert.equal(config.get<string>('output'), 'panel');
    assert.deepEqual(config.inspect('requestTemplate')?.defaultValue, { query: '${input}' });
    assert.deepEqual(config.get('requestTemplate'), { query: '${input}' });
  });

  it('the launcher passes the service address to the extension host environment', () => {
    const serviceUrl = process.env.AQ_SERVICE_URL;
    assert.ok(serviceUrl !== undefined && /^http:\/\/127\.0\.0\.1:\d+$/.test(serviceUrl), `AQ_SERVICE_URL is a loopback URL (got ${String(serviceUrl)})`);
  });

  it('the baseUrl from the user settings file is what the extension host reads', () => {
    const config = vscode.workspace.getConfiguration('applicationQuery');
    assert.equal(config.get<string>('baseUrl'), process.env.AQ_SERVICE_URL);
    assert.equal(config.inspect<string>('baseUrl')?.globalValue, process.env.AQ_SERVICE_URL);
  });

  it('the applications from the user settings file are visible', () => {
    const apps = vscode.workspace.getConfiguration('applicationQuery').get<unknown>('applications');
    assert.ok(Array.isArray(apps), 'applications is a list');
    const ids = apps.map((app: unknown) => (app as { id?: unknown }).id);
    assert.ok(ids.includes('echo'), `the reference service's "echo" application is configured (got ${JSON.stringify(ids)})`);
  });

  it('a workspace folder cannot redirect baseUrl', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a workspace folder is open');
    // The launchers plant a hostile value here; prove it is really there before asserting it is ignored.
    const raw = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json')));
    assert.ok(raw.includes(WORKSPACE_BASE_URL), 'the workspace settings try to set baseUrl');
    const config = vscode.workspace.getConfiguration('applicationQuery');
    assert.notEqual(config.get<string>('baseUrl'), WORKSPACE_BASE_URL);
    assert.equal(config.get<string>('baseUrl'), process.env.AQ_SERVICE_URL);
  });

  it('a workspace folder cannot switch the timeouts off', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    const raw = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json')))) as Record<string, unknown>;
    assert.equal(raw['applicationQuery.idleTimeoutSeconds'], 0, 'the workspace settings try to switch the idle timeout off');
    assert.equal(raw['applicationQuery.headersTimeoutSeconds'], 0);
    const config = vscode.workspace.getConfiguration('applicationQuery');
    assert.equal(config.get<number>('idleTimeoutSeconds'), 120);
    assert.equal(config.get<number>('headersTimeoutSeconds'), 60);
  });
});
