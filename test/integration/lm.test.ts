// VS Code's own Chat from inside the extension host: our models through vscode.lm (selectChatModels,
// sendRequest, cancellation) and the askApplication tool through vscode.lm.invokeTool, against the
// reference service. On a VS Code without the model API (1.100), activation still succeeds and the
// log names what was skipped.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { bulkBytes } from '../../service/apps';
import { CurrentApplication } from '../../src/host/platform/currentApplication';
import { Settings } from '../../src/host/platform/settings';
import type { LanguageModelDeps } from '../../src/host/vscodeChat/deps';
import { ApplicationParticipant } from '../../src/host/vscodeChat/participant';
import { AskApplicationTool } from '../../src/host/vscodeChat/tool';
import { Log } from '../../src/host/platform/log';
import { QueryRegistry } from '../../src/host/query/registry';
import { QueryRunner } from '../../src/host/query/runner';
import { KeyStore } from '../../src/host/platform/keyStore';
import { EXTENSION_ID, hooks, received, serviceKeys, waitFor } from './hooks';
import { MemoryMemento, MemorySecrets } from './memoryStores';

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
  readonly capabilities?: { readonly supportsImageToText?: boolean; readonly supportsToolCalling?: boolean };
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
    // What "Manage Language Models" shows as "vision" is what extensions read as supportsImageToText (1.139).
    assert.deepEqual({ ...echo.capabilities }, { supportsImageToText: false, supportsToolCalling: true, editToolsHint: undefined }, 'no image input; tool-bearing requests accepted');
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

/** The Chat parts' dependencies, built as the extension builds them, with keys for `ids` stored. */
async function chatDeps(ids: readonly string[]): Promise<LanguageModelDeps & vscode.Disposable> {
  const settings = new Settings();
  const keys = new KeyStore(new MemorySecrets());
  const log = new Log(() => keys.knownSecrets());
  const registry = new QueryRegistry();
  const current = new CurrentApplication(new MemoryMemento(), settings);
  const base = settings.baseUrl();
  if (!base.ok) throw new Error(base.message);
  const serviceKeyOf = await serviceKeys();
  for (const id of ids) await keys.set({ baseUrl: base.normalized, applicationId: id }, serviceKeyOf[id]);
  const runner = new QueryRunner(settings, keys, log, registry);
  const extensionUri = vscode.Uri.file(__dirname);
  return { extensionUri, settings, keys, current, runner, log, dispose: () => {
      vscode.Disposable.from(settings, log, registry, current).dispose();
    } };
}

const NO_TOKEN = new vscode.CancellationTokenSource().token;

describe("VS Code's Chat: the askApplication tool sends only what the user confirmed", () => {
  let deps: LanguageModelDeps & vscode.Disposable;
  let tool: AskApplicationTool;

  before(async () => {
    deps = await chatDeps(['echo', 'demo-assistant']);
    tool = new AskApplicationTool(deps);
  });

  after(() => {
    deps.dispose();
  });

  function confirmation(input: { application?: string; question: string; context?: string }): { title: string; message: string } {
    const prepared = tool.prepareInvocation({ input });
    const messages = prepared.confirmationMessages;
    assert.ok(messages, 'the user is asked first');
    return { title: messages.title, message: typeof messages.message === 'string' ? messages.message : messages.message.value };
  }

  async function invoke(input: { application?: string; question: string; context?: string }): Promise<string> {
    const result = await tool.invoke({ input, toolInvocationToken: undefined }, NO_TOKEN);
    return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
  }

  async function sentSince(count: number): Promise<string[]> {
    return (await received()).slice(count).filter((r) => r.path.endsWith('/query')).map((r) => r.path);
  }

  it('sends to the application the user confirmed, though the current one changed since', async () => {
    await deps.current.set('echo');
    const input = { question: 'Which application am I? 7f3a' };
    const shown = confirmation(input);
    assert.match(shown.title, /Ask Echo/);
    await deps.current.set('demo-assistant');
    const before = (await received()).length;
    const text = await invoke(input);
    assert.deepEqual(await sentSince(before), ['/api/applications/echo/query']);
    assert.ok(shown.message.includes(text), 'the confirmation showed the exact body that was sent');
  });

  it('sends nothing when the request changed after the confirmation, and says why', async () => {
    await deps.current.set('echo');
    const input = { application: 'echo', question: 'What changed? 91bc' };
    confirmation(input);
    await setApplicationTemplate('echo', { query: '${input}', extra: 'added after the confirmation' });
    const before = (await received()).length;
    const text = await invoke(input).finally(() => setApplicationTemplate('echo', undefined));
    assert.match(text, /^Not sent: /);
    assert.match(text, /no longer the one the user confirmed/);
    assert.deepEqual(await sentSince(before), []);
  });

  it('sends nothing that was never confirmed, and a confirmation is used once', async () => {
    const before = (await received()).length;
    assert.match(await invoke({ application: 'echo', question: 'unconfirmed' }), /^Not sent: the user did not confirm/);
    const input = { application: 'echo', question: 'once' };
    confirmation(input);
    assert.match(await invoke(input), /"query":"once"/);
    assert.match(await invoke(input), /^Not sent: /);
    assert.equal((await sentSince(before)).length, 1);
  });

  it('shows a long request cut, saying it is the request that is cut, in a fence no backtick run closes', () => {
    const { message } = confirmation({ application: 'echo', question: '`'.repeat(10) + 'x'.repeat(6000) });
    assert.match(message, /The request is shown cut at [\d,]+ of [\d,]+ characters; all of it is sent\./);
    assert.doesNotMatch(message, /answer was cut/);
    assert.ok(message.includes(`${'`'.repeat(11)}json\n`), 'the fence is longer than the longest backtick run');
  });
});

describe("VS Code's Chat: @app sends only what the user attached", () => {
  let deps: LanguageModelDeps & vscode.Disposable;

  before(async () => {
    deps = await chatDeps(['echo', 'hostile']);
  });

  after(() => {
    deps.dispose();
  });

  /** Runs the participant's handler on a request of our making; returns the Markdown it streamed. */
  async function ask(prompt: string, references: readonly vscode.ChatPromptReference[], applicationId = 'echo'): Promise<string> {
    await deps.current.set(applicationId);
    const participant = new ApplicationParticipant(deps);
    let markdown = '';
    const stream = {
      markdown: (value: string | vscode.MarkdownString) => void (markdown += typeof value === 'string' ? value : value.value),
      button: () => undefined,
    } as unknown as vscode.ChatResponseStream;
    const request = { prompt, command: undefined, references, toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    await participant.handle(request, { history: [] }, stream, NO_TOKEN);
    return markdown;
  }

  it('sends an attached file and a selection, never the Chat\'s customizations index or instructions', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder);
    const sample = vscode.Uri.joinPath(folder, 'sample.ts');
    const readme = vscode.Uri.joinPath(folder, 'README.md');
    const index = '<skills>\n<skill name="secret-skill" path="/home/someone/.copilot/skills/secret-skill/SKILL.md"/>\n</skills>';
    const references = [
      { id: sample.toString(), name: 'sample.ts', value: sample },
      { id: 'vscode.implicit.selection', name: 'README.md', value: new vscode.Location(readme, new vscode.Range(0, 2, 0, 18)) },
      { id: 'vscode.customizations.index', name: 'prompt:customizationsIndex', value: index, modelDescription: 'Chat customizations index' },
      { id: `vscode.instructions.file.root__${readme.toString()}`, name: 'prompt:README.md', value: readme, toolReferences: [] },
      { id: 'vscode.implicit.string', name: 'another extension\'s context', value: 'context-from-elsewhere 5d1e' },
    ] as unknown as vscode.ChatPromptReference[];
    const before = (await received()).length;
    const markdown = await ask('What is this?', references);
    const sent = (await received()).slice(before).filter((r) => r.path.endsWith('/echo/query'));
    assert.equal(sent.length, 1);
    const body = sent[0].body;
    assert.ok(body.includes('return a + b;'), 'the attached file is sent');
    assert.ok(body.includes('Sample workspace'), 'the selection is sent');
    assert.ok(!body.includes('secret-skill') && !body.includes('.copilot'), 'the customizations index is not sent');
    assert.ok(!body.includes('Used by the integration tests'), 'the instructions file (the rest of README.md) is not sent');
    assert.ok(!body.includes('context-from-elsewhere'), 'an unknown string reference is not sent');
    assert.match(markdown, /Not sent \(not text\): another extension\\'s context/, 'the unknown reference is named');
    assert.doesNotMatch(markdown, /customizations/i, 'the Chat\'s own context is left out silently');
  });

  it('shows the images of an answer as links', async () => {
    const markdown = await ask('Show me', [], 'hostile');
    assert.ok(markdown.length > 0);
    assert.doesNotMatch(markdown.replace(/\\!/g, ''), /!\[/, 'no image syntax is left');
    assert.doesNotMatch(markdown, /<img/i);
  });
});
