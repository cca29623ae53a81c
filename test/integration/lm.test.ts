// VS Code's own Chat from inside the extension host: our models through vscode.lm (selectChatModels,
// sendRequest, cancellation) and the askApplication tool through vscode.lm.invokeTool, against the
// reference service. On a VS Code without the model API (1.100), activation still succeeds and the
// log names what was skipped.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { bulkBytes } from '../../service/apps';
import { EXTENSION_ID, hooks, received, serviceKeys, waitFor } from './hooks';

const VENDOR = 'application-query';
const TOOL = 'applicationQuery_askApplication';
/** The bulk application, for this suite: 24,000 bytes of 1-4 byte UTF-8 in one-byte chunks. */
const BULK_TEMPLATE = { query: '${input}', size: 24_000, chunkBytes: 1 };
const BULK_TEXT = bulkBytes(24_000).toString('utf8');

const hasModelApi = typeof (vscode.lm as { registerLanguageModelChatProvider?: unknown }).registerLanguageModelChatProvider === 'function';

/** Minimal typing of the part of the 1.104 model API this suite reads. */
interface ChatModel {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly maxInputTokens: number;
  sendRequest(messages: vscode.LanguageModelChatMessage[], options?: object, token?: vscode.CancellationToken): Thenable<{ text: AsyncIterable<string> }>;
  countTokens(text: string): Thenable<number>;
}

async function models(): Promise<ChatModel[]> {
  const found: unknown = await vscode.lm.selectChatModels({ vendor: VENDOR });
  return found as ChatModel[];
}

async function model(id: string): Promise<ChatModel> {
  return waitFor(async () => (await models()).find((m) => m.id === id), `the model "${id}"`);
}

async function readAll(stream: AsyncIterable<string>): Promise<{ text: string; parts: number }> {
  let text = '';
  let parts = 0;
  for await (const piece of stream) {
    text += piece;
    parts++;
  }
  return { text, parts };
}

/** The extension's "Application Query Log" as written to disk (under the launcher's code-server folder). */
function extensionLog(): string {
  const found: string[] = [];
  const visit = (dir: string, depth: number): void => {
    if (depth > 6 || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full, depth + 1);
      else if (/Application Query Log\.log$/.test(entry.name)) found.push(full);
    }
  };
  // The launchers start code-server in its temporary folder, which holds the user-data-dir and so the logs.
  const root = process.env.VSCODE_CWD;
  if (root !== undefined) visit(root, 0);
  return found.map((file) => readFileSync(file, 'utf8')).join('\n');
}

async function setApplicationTemplate(id: string, requestTemplate: object | undefined): Promise<void> {
  const config = vscode.workspace.getConfiguration('applicationQuery');
  const apps = (config.inspect<{ id: string; name?: string; requestTemplate?: object }[]>('applications')?.globalValue ?? []).map((app) => (app.id === id ? { ...app, requestTemplate } : app));
  await config.update('applications', apps, vscode.ConfigurationTarget.Global);
}

describe("VS Code's Chat: our parts register (or are skipped) cleanly", () => {
  it('activates and registers the models management command', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    assert.equal(ext.isActive, true);
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('applicationQuery.manageChatModels'));
  });

  it('says in the log which parts were registered and which skipped', async () => {
    const log = await waitFor(() => {
      const text = extensionLog();
      return /VS Code's Chat: .*registered/.test(text) ? text : undefined;
    }, 'the log line about the Chat parts');
    if (hasModelApi) {
      assert.match(log, /VS Code's Chat: 3 of 3 parts registered\./);
    } else {
      assert.match(log, /the application models skipped: this VS Code \(1\.\d+\.\d+\) has no vscode\.lm\.registerLanguageModelChatProvider/);
      assert.match(log, /2 of 3 parts registered \(skipped: the application models\)/);
    }
  });
});

describe("VS Code's Chat: each application with a key is a model", function () {
  let keys: Record<string, string>;

  before(async function () {
    if (!hasModelApi) this.skip();
    keys = await serviceKeys();
    const api = await hooks();
    for (const id of ['echo', 'bulk', 'stall', 'fail-401']) await api.setApiKey(id, keys[id]);
    await setApplicationTemplate('bulk', BULK_TEMPLATE);
  });

  after(async () => {
    if (hasModelApi) await setApplicationTemplate('bulk', undefined);
  });

  it('lists the applications with a key as models: id, name, input size', async () => {
    const echo = await model('echo');
    assert.equal(echo.vendor, VENDOR);
    assert.equal(echo.name, 'Echo');
    // Capabilities are not visible to extensions using a model (1.139); the e2e suite sees the model in Agent mode's picker.
    assert.equal(echo.maxInputTokens, 131_072, 'the 512 K character confirmation threshold, in estimated tokens');
    const ids = (await models()).map((m) => m.id);
    assert.ok(ids.includes('bulk') && ids.includes('stall'));
    assert.ok(!ids.includes('html'), 'an application without a key is no model');
    assert.equal(await echo.countTokens('12345678'), 2, 'token counts are estimated at four characters a token');
  });

  it('refreshes the list when a key is removed or stored', async () => {
    const api = await hooks();
    await api.removeApiKey('fail-401');
    await waitFor(async () => !(await models()).some((m) => m.id === 'fail-401') || undefined, 'the model to go');
    await api.setApiKey('fail-401', keys['fail-401']);
    await model('fail-401');
  });

  it('streams a multibyte answer sent in one-byte chunks byte-exact, in few parts', async () => {
    const bulk = await model('bulk');
    const before = (await received()).length;
    const response = await bulk.sendRequest([vscode.LanguageModelChatMessage.User('Stream it')], {}, new vscode.CancellationTokenSource().token);
    const { text, parts } = await readAll(response.text);
    assert.equal(text.length, BULK_TEXT.length);
    assert.ok(text === BULK_TEXT, 'the answer arrives byte-exact');
    assert.ok(parts < 24_000 / 4, `the parts are batched (${parts} parts for 24,000 one-byte chunks)`);
    const sent = (await received()).slice(before).filter((r) => r.path.endsWith('/bulk/query'));
    assert.equal(sent.length, 1);
    assert.equal(sent[0].headers.authorization, `Bearer ${keys.bulk}`);
  });

  it('sends the last user message as the question and earlier turns as ${history}', async () => {
    await setApplicationTemplate('echo', { question: '${question}', history: '${history}' });
    const echo = await model('echo');
    const response = await echo.sendRequest([
      vscode.LanguageModelChatMessage.User('What is 2+2?'),
      vscode.LanguageModelChatMessage.Assistant('4'),
      vscode.LanguageModelChatMessage.User('And times 3? ü 日本 👍'),
    ]);
    const { text } = await readAll(response.text);
    await setApplicationTemplate('echo', undefined);
    assert.deepEqual(JSON.parse(text), { question: 'And times 3? ü 日本 👍', history: 'User: What is 2+2?\n\nAssistant: 4' });
    const sent = (await received()).filter((r) => r.path.endsWith('/echo/query')).at(-1);
    assert.equal(sent?.body, text, 'echo answered with the body as sent');
  });

  it('cancelling the request closes the connection, and what arrived was delivered', async () => {
    const stall = await model('stall');
    const before = (await received()).length;
    const source = new vscode.CancellationTokenSource();
    const response = await stall.sendRequest([vscode.LanguageModelChatMessage.User('Tell me a long story')], {}, source.token);
    let text = '';
    const reading = (async () => {
      for await (const piece of response.text) text += piece;
    })();
    await waitFor(() => text.length > 0 || undefined, 'the first part of the answer');
    source.cancel();
    await reading.catch(() => undefined);
    const closed = await waitFor(async () => (await received()).slice(before).find((r) => r.path.endsWith('/stall/query') && r.closedByClientAt), 'the service to see the close');
    assert.ok(closed.closedByClientAt);
    assert.ok(text.length > 0);
  });

  it('a failed request rejects with the numeric status and what to do', async () => {
    const revoked = await model('fail-401');
    await assert.rejects(async () => {
      const response = await revoked.sendRequest([vscode.LanguageModelChatMessage.User('x')]);
      await readAll(response.text);
    }, (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      assert.match(message, /401/);
      assert.match(message, /Set API Key/);
      assert.ok(!message.includes(keys['fail-401']), 'no key in the message');
      return true;
    });
  });
});

describe("VS Code's Chat: the askApplication tool", function () {
  let keys: Record<string, string>;

  before(async () => {
    keys = await serviceKeys();
    const api = await hooks();
    for (const id of ['echo', 'fail-500']) await api.setApiKey(id, keys[id]);
  });

  async function invoke(input: object): Promise<string> {
    const result = await vscode.lm.invokeTool(TOOL, { input, toolInvocationToken: undefined });
    return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
  }

  it('returns the answer of the named application, with the context sent', async () => {
    const text = await invoke({ application: 'echo', question: 'Is this safe?', context: 'rm -rf "$HOME" # ü' });
    const body = JSON.parse(text) as { query: string };
    assert.ok(body.query.startsWith('Is this safe?'));
    assert.ok(body.query.includes('rm -rf "$HOME" # ü'));
  });

  it('finds the application by name too, and names the configured ones when it does not exist', async () => {
    assert.match(await invoke({ application: 'echo', question: 'a' }), /"query":"a"/);
    assert.match(await invoke({ application: 'Echo', question: 'b' }), /"query":"b"/);
    const missing = await invoke({ application: 'no-such-app', question: 'c' });
    assert.match(missing, /No application "no-such-app"/);
    assert.match(missing, /"echo" \(Echo\)/);
  });

  it('reports a failure with its numeric status as the result', async () => {
    const text = await invoke({ application: 'fail-500', question: 'x' });
    assert.match(text, /HTTP 500/);
    assert.ok(!text.includes(keys['fail-500']));
  });
});
