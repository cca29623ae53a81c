import * as vscode from 'vscode';
import { type ApplicationConfig, applicationLabel } from '../../shared/applications';
import type { BaseUrlCheck } from '../../shared/baseUrl';
import { serviceLabel } from '../../shared/environments';
import type { QueryContext, QueryInput } from '../../shared/prepare';
import type { ModelChatProvider, ModelInformation, ModelRequestMessage, ModelResponsePart } from './api';
import { withAbortSignal } from '../platform/cancellation';
import { type ConversationTurn, estimateTokens, historyText, MAX_INPUT_TOKENS, MAX_OUTPUT_TOKENS, splitUserRequest } from '../../shared/conversation';
import type { LanguageModelDeps } from './deps';
import { plain, plainText } from '../../shared/plainText';
import { ChatTextSink } from './sink';

/** The vendor and the family of every model (fixed by package.json and the product contract). */
export const VENDOR = 'application-query';
const FAMILY = 'application-query';

const USER = 1;
const ASSISTANT = 2;

/**
 * Each configured application with a stored key (for the current base URL's origin) as a model in
 * VS Code's model picker. Our applications answer text: they read no images and never call a tool.
 * Each model's detail and tooltip name the service its requests go to (the current environment).
 * The list changes when applications, keys, the base URL or the environment change (every
 * `applicationQuery.*` setting change fires it).
 */
export class ApplicationModelProvider implements ModelChatProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private readonly listeners: vscode.Disposable[];

  constructor(private readonly deps: LanguageModelDeps) {
    const fire = (): void => this.changed.fire();
    this.listeners = [deps.settings.onDidChange(fire), deps.keys.onDidChange(fire)];
  }

  async provideLanguageModelChatInformation(): Promise<ModelInformation[]> {
    const base = this.deps.settings.baseUrl();
    if (!base.ok) return [];
    const models: ModelInformation[] = [];
    for (const app of this.deps.settings.applications().applications) {
      if (await this.deps.keys.hasFor(base, app.id)) models.push(modelOf(app, base));
    }
    return models;
  }

  async provideLanguageModelChatResponse(model: ModelInformation, messages: readonly ModelRequestMessage[], _options: unknown, progress: vscode.Progress<ModelResponsePart>, token: vscode.CancellationToken): Promise<void> {
    const input = conversationInput(model.id, messages);
    const sink = new ChatTextSink((text) => progress.report(new vscode.LanguageModelTextPart(text)));
    const outcome = await withAbortSignal(token, (signal) => this.deps.runner.run(input, [sink], { surface: 'model', signal, promptForKey: false }));
    if (outcome.kind === 'done' || outcome.kind === 'stopped' && token.isCancellationRequested) return;
    // The chat shows a rejected request as the failure, under whatever text already arrived.
    const hint = outcome.remedies.includes('setApiKey') ? ' Run "Application Query: Set API Key…" to store a new key.' : '';
    throw new Error(this.deps.log.mask(`${model.name}: ${outcome.message ?? 'The query failed.'}${hint}`));
  }

  provideTokenCount(_model: ModelInformation, text: string | ModelRequestMessage): Promise<number> {
    return Promise.resolve(estimateTokens(typeof text === 'string' ? text : messageText(text)));
  }

  dispose(): void {
    for (const listener of this.listeners) listener.dispose();
    this.changed.dispose();
  }
}

/** One application as a model of the service `base` (its environment, when it has one, named in the detail and tooltip). */
function modelOf(app: ApplicationConfig, base: BaseUrlCheck & { ok: true }): ModelInformation {
  const host = base.url.host;
  return {
    id: app.id,
    // The picker and "Manage Language Models" show these as text; an application's name is outside text.
    name: plainText(app.name ?? app.id),
    family: FAMILY,
    version: '1',
    tooltip: plain`${applicationLabel(app)} on ${serviceLabel(base)}: answers with text; reads no images; never calls tools.`,
    detail: base.environment === undefined ? plainText(host) : plain`${base.environment.replace(/\s+/g, ' ')} · ${host}`,
    maxInputTokens: MAX_INPUT_TOKENS,
    maxOutputTokens: MAX_OUTPUT_TOKENS,
    // `toolCalling` says the model accepts requests that offer tools, and VS Code's Chat lists in
    // Agent mode (its only mode without a Copilot sign-in) only models that do. Our applications
    // accept such requests and answer them with text; they never call a tool, so an agent's turn
    // ends with their answer. Without this the models (and @app, which needs a usable model) would
    // be unusable in that Chat.
    // `imageInput` is what "Manage Language Models" shows as "vision" (1.139 maps it to the
    // workbench's `capabilities.vision`, and to `supportsImageToText` for extensions): said
    // explicitly, so the Chat also tells a user who attaches an image that it is left out.
    capabilities: { toolCalling: true, imageInput: false },
  };
}

/** The text parts of a message, joined (tool calls, tool results and data parts are not text our applications read). */
function messageText(message: ModelRequestMessage): string {
  return message.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

/**
 * A conversation as one query: the last user message is the question (`${question}`; with the
 * chat's own context around the person's words, that context travels as the context, so
 * `${input}` holds the whole message), earlier user and assistant messages are `${history}`.
 * System messages are instructions for general-purpose models and are not sent.
 */
export function conversationInput(applicationId: string, messages: readonly ModelRequestMessage[]): QueryInput {
  const turns: ConversationTurn[] = [];
  for (const message of messages) {
    if (message.role === USER || message.role === ASSISTANT) turns.push({ role: message.role === USER ? 'user' : 'assistant', text: messageText(message) });
  }
  let last = turns.length;
  while (last > 0 && turns[last - 1].role !== 'user') last--;
  const { question, rest } = splitUserRequest(last > 0 ? turns[last - 1].text : '');
  const context: QueryContext | undefined = rest === '' ? undefined : { kind: 'selection', label: 'Context from the chat', text: rest, fileName: '', languageId: '', fileText: '' };
  return { applicationId, question, context, history: historyText(turns.slice(0, Math.max(0, last - 1))) };
}
