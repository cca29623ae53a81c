import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { applicationLabel } from '../../shared/applications';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import { fileContext, selectionContext, userEditor } from '../platform/editorContext';
import { type ApplicationInfo, assertNever, type AttachmentInfo, type SurfaceState, type Turn } from '../../shared/protocol';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryContext, QueryInput } from '../../shared/prepare';
import type { QueryRegistry } from '../query/registry';
import type { QueryRunner } from '../query/runner';
import type { QuerySink } from '../query/types';
import type { KeyStore } from '../platform/keyStore';
import { background, copyText, isContentAction, openInEditor, runContentAction } from '../platform/webview/actions';
import { type SurfaceMessage, WebviewBridge } from '../platform/webview/bridge';
import { webviewHtml, webviewOptions } from '../platform/webview/html';
import { type ChatHistory, conversationTurns, transcriptMarkdown } from './chatHistory';
import { RetryMemory, stringBytes } from './retryMemory';
import { canRetry } from '../../shared/outcome';
import { historyText } from '../../shared/conversation';

/** The Chat view's id (fixed by package.json). */
export const CHAT_VIEW_ID = 'applicationQuery.chat';

/** What the Chat view needs. */
export interface ChatDeps {
  readonly extensionUri: vscode.Uri;
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly current: CurrentApplication;
  readonly runner: QueryRunner;
  readonly registry: QueryRegistry;
  readonly history: ChatHistory;
}

interface PendingAttachment extends AttachmentInfo {
  readonly context: QueryContext;
}

/** The sidebar chat: choose an application, ask with optional context, watch answers stream. */
class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private bridge: WebviewBridge<'chat'> | undefined;
  private attachments: PendingAttachment[] = [];
  private applications: ApplicationInfo[] = [];
  /**
   * What a streaming or failed answer was asked with, for Retry: in memory only and within a byte
   * budget (context can be large), dropped as soon as the answer is complete, retried, or its
   * conversation is cleared.
   */
  private readonly inputs = new RetryMemory<QueryInput>(stringBytes);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: ChatDeps) {
    const refresh = (): void => background(this.refreshApplications(), 'Reading the applications and their keys');
    this.disposables.push(deps.settings.onDidChange(refresh), deps.keys.onDidChange(refresh), deps.current.onDidChange(() => this.onCurrentChanged()));
    refresh();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.deps.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.deps.extensionUri, 'chat', 'Chat');
    this.bridge?.dispose();
    this.bridge = new WebviewBridge('chat', view.webview, () => this.state(), (m) => this.onMessage(m));
    view.onDidChangeVisibility(() => {
      if (!view.visible) {
        this.bridge?.markNotReady();
      }
    });
    view.onDidDispose(() => {
      this.bridge?.dispose();
      this.bridge = undefined;
    });
  }

  private get appId(): string | undefined {
    return this.deps.current.id;
  }

  private state(): SurfaceState {
    const appId = this.appId;
    return {
      surface: 'chat',
      title: 'Chat',
      applications: this.applications,
      currentApplicationId: appId,
      turns: appId ? this.deps.history.turns(appId) : [],
      attachments: this.attachments.map(({ id, label, kind }) => ({ id, label, kind })),
    };
  }

  private async refreshApplications(): Promise<void> {
    const base = this.deps.settings.baseUrl();
    const apps = this.deps.settings.applications().applications;
    this.applications = await Promise.all(
      apps.map(async (app) => ({
        id: app.id,
        label: applicationLabel(app),
        hasKey: await this.deps.keys.hasFor(base, app.id),
      })),
    );
    this.bridge?.post({ type: 'applications', applications: this.applications, currentApplicationId: this.appId });
  }

  private onCurrentChanged(): void {
    this.bridge?.post({ type: 'state', state: this.state() });
  }

  private onMessage(message: SurfaceMessage<'chat'>): void {
    if (isContentAction(message)) {
      runContentAction(message, this.appId);
      return;
    }
    switch (message.type) {
      case 'ready':
        break;
      case 'send':
        background(this.send(message.text), 'Sending the question');
        break;
      case 'stop':
        if (message.turnId !== undefined) this.deps.registry.stop(message.turnId);
        else this.deps.registry.stopAll('chat');
        break;
      case 'retry':
        background(this.retry(message.turnId), 'Retry');
        break;
      case 'copyAnswer': {
        const turn = this.appId === undefined ? undefined : this.deps.history.turns(this.appId).find((t) => t.id === message.turnId);
        if (turn !== undefined) background(copyText(turn.text), 'Copy');
        break;
      }
      case 'openAnswer': {
        const turn = this.appId === undefined ? undefined : this.deps.history.turns(this.appId).find((t) => t.id === message.turnId);
        if (turn !== undefined) background(openInEditor(turn.text, 'markdown'), 'Open as Markdown');
        break;
      }
      case 'selectApplication':
        if (this.deps.settings.resolve(message.applicationId)) {
          background(this.deps.current.set(message.applicationId), 'Choosing the application');
        }
        break;
      case 'attach':
        this.attach(message.kind);
        break;
      case 'removeAttachment':
        this.attachments = this.attachments.filter((a) => a.id !== message.id);
        this.postAttachments();
        break;
      case 'clear':
        background(this.clear(), 'Clearing the conversation');
        break;
      case 'exportMarkdown':
        background(this.exportMarkdown(), 'Export as Markdown');
        break;
      default:
        assertNever(message);
    }
  }

  private attach(kind: 'selection' | 'file'): void {
    const editor = userEditor();
    if (!editor) {
      void vscode.window.showInformationMessage('Open a file in an editor first: there is nothing to attach.');
      return;
    }
    const context = kind === 'selection' ? selectionContext(editor) : fileContext(editor.document);
    if (!context) {
      void vscode.window.showInformationMessage('Select some text in the editor first, then attach the selection.');
      return;
    }
    this.attachments.push({ id: randomUUID(), label: `${kind}: ${context.label}`, kind, context });
    this.postAttachments();
  }

  private postAttachments(): void {
    this.bridge?.post({ type: 'attachments', attachments: this.attachments.map(({ id, label, kind }) => ({ id, label, kind })) });
  }

  private async send(text: string): Promise<void> {
    const question = text.trim();
    if (!question && this.attachments.length === 0) {
      return;
    }
    let appId = this.appId;
    if (!appId) {
      appId = (await this.deps.current.pick({ title: 'Chat: choose an application', always: false }))?.id;
      if (!appId) {
        return;
      }
    }
    const prior = this.deps.history.turns(appId);
    const input: QueryInput = {
      applicationId: appId,
      question,
      context: mergeContexts(this.attachments.map((a) => a.context)),
      history: historyText(conversationTurns(prior)),
    };
    const userTurn: Turn = {
      id: randomUUID(),
      role: 'user',
      applicationId: appId,
      text: question,
      status: 'done',
      attachments: this.attachments.length > 0 ? this.attachments.map((a) => a.label) : undefined,
      startedAt: Date.now(),
    };
    this.attachments = [];
    this.postAttachments();
    this.deps.history.add(userTurn);
    this.bridge?.post({ type: 'turnStart', turn: userTurn });
    await this.answer(input);
  }

  private async answer(input: QueryInput): Promise<void> {
    const turn: Turn = { id: randomUUID(), role: 'assistant', applicationId: input.applicationId, text: '', status: 'streaming', startedAt: Date.now() };
    this.deps.history.add(turn);
    this.inputs.remember(turn.id, input);
    this.bridge?.post({ type: 'turnStart', turn });
    background(this.deps.history.save(), 'Saving the chat history');
    const shown = (): boolean => this.appId === input.applicationId;
    const sink: QuerySink = {
      start: () => undefined,
      status: (httpStatus) => {
        turn.httpStatus = httpStatus;
        if (shown()) {
          this.bridge?.post({ type: 'status', turnId: turn.id, httpStatus });
        }
      },
      append: (text) => {
        turn.text += text;
        if (shown()) {
          this.bridge?.append(turn.id, text);
        }
      },
      end: (outcome: QueryOutcome) => {
        if (outcome.kind === 'done') this.inputs.forget(turn.id);
        turn.status = outcome.kind;
        turn.httpStatus = outcome.httpStatus;
        turn.message = outcome.message ?? outcome.warning;
        turn.retryable = canRetry(outcome);
        turn.remedies = outcome.remedies;
        if (shown()) {
          this.bridge?.post({ type: 'turnEnd', turnId: turn.id, status: outcome.kind, httpStatus: outcome.httpStatus, message: turn.message, retryable: turn.retryable, remedies: turn.remedies });
        }
      },
    };
    await this.deps.runner.run(input, [sink], { surface: 'chat', queryId: turn.id });
    await this.deps.history.save();
  }

  private async retry(turnId: string): Promise<void> {
    const appId = this.appId;
    if (!appId) {
      return;
    }
    const turns = this.deps.history.turns(appId);
    const index = turns.findIndex((t) => t.id === turnId);
    if (index < 0 || turns[index].role !== 'assistant' || this.deps.registry.has(turnId)) {
      return;
    }
    const question = [...turns.slice(0, index)].reverse().find((t) => t.role === 'user');
    const input = this.inputs.get(turnId) ?? { applicationId: appId, question: question?.text ?? '', history: historyText(conversationTurns(turns.slice(0, index - 1))) };
    this.deps.history.remove(appId, turnId);
    this.inputs.forget(turnId);
    this.bridge?.post({ type: 'state', state: this.state() });
    await this.answer(input);
  }

  private async clear(): Promise<void> {
    const appId = this.appId;
    if (!appId) {
      return;
    }
    for (const turn of this.deps.history.turns(appId)) {
      this.deps.registry.stop(turn.id);
    }
    // Also the inputs of turns the chat history no longer lists.
    this.inputs.forgetWhere((input) => input.applicationId === appId);
    this.deps.history.clear(appId);
    await this.deps.history.save();
    this.bridge?.post({ type: 'state', state: this.state() });
  }

  private async exportMarkdown(): Promise<void> {
    const appId = this.appId;
    if (!appId) {
      return;
    }
    const app = this.deps.settings.resolve(appId);
    const title = `Chat with ${app ? applicationLabel(app) : appId}`;
    await openInEditor(transcriptMarkdown(title, this.deps.history.turns(appId)), 'markdown');
  }

  dispose(): void {
    this.deps.registry.stopAll('chat');
    this.inputs.clear();
    this.bridge?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** Several attachments travel as one context: each under its own label. */
function mergeContexts(contexts: readonly QueryContext[]): QueryContext | undefined {
  if (contexts.length <= 1) {
    return contexts[0];
  }
  const text = contexts.map((c) => `${c.label}:\n${c.text}`).join('\n\n');
  return {
    kind: contexts.some((c) => c.kind === 'file') ? 'file' : 'selection',
    label: contexts.map((c) => c.label).join(', '),
    text,
    fileName: contexts[0].fileName,
    languageId: contexts[0].languageId,
    fileText: contexts[0].fileText,
  };
}

/** Registers the Chat view. */
export function registerChatView(context: vscode.ExtensionContext, deps: ChatDeps): void {
  const provider = new ChatViewProvider(deps);
  context.subscriptions.push(provider, vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, provider));
}
