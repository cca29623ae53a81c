import * as vscode from 'vscode';

/*
 * The Language Model Chat Provider API became final in VS Code 1.104, but the extension targets
 * ^1.100.0 and its @types/vscode (1.100) do not declare it. These are the parts of it this
 * extension uses, typed locally; whether the running VS Code has them is checked at run time.
 */

/** What a model can do (1.104 `LanguageModelChatCapabilities`). */
export interface ModelCapabilities {
  readonly imageInput?: boolean;
  readonly toolCalling?: boolean | number;
}

/** One model as the provider describes it (1.104 `LanguageModelChatInformation`). */
export interface ModelInformation {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly tooltip?: string;
  readonly detail?: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly capabilities: ModelCapabilities;
}

/** A message the provider receives (1.104 `LanguageModelChatRequestMessage`). */
export interface ModelRequestMessage {
  /** 1 user, 2 assistant, 3 system (the last is not final API yet, so it is read as a number). */
  readonly role: number;
  readonly content: ReadonlyArray<unknown>;
  readonly name: string | undefined;
}

/** What `provideLanguageModelChatResponse` may report (text is all this provider ever sends). */
export type ModelResponsePart = vscode.LanguageModelTextPart;

/** The provider contract (1.104 `LanguageModelChatProvider`). */
export interface ModelChatProvider {
  readonly onDidChangeLanguageModelChatInformation?: vscode.Event<void>;
  provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: vscode.CancellationToken): vscode.ProviderResult<ModelInformation[]>;
  provideLanguageModelChatResponse(
    model: ModelInformation,
    messages: readonly ModelRequestMessage[],
    options: unknown,
    progress: vscode.Progress<ModelResponsePart>,
    token: vscode.CancellationToken,
  ): Thenable<void>;
  provideTokenCount(model: ModelInformation, text: string | ModelRequestMessage, token: vscode.CancellationToken): Thenable<number>;
}

/** `vscode.lm.registerLanguageModelChatProvider` (1.104 and later). */
export type RegisterModelProvider = (vendor: string, provider: ModelChatProvider) => vscode.Disposable;

/** What the running VS Code offers for each of the three parts; undefined where it lacks the API. */
export interface ChatApis {
  readonly createChatParticipant?: typeof vscode.chat.createChatParticipant;
  readonly registerTool?: typeof vscode.lm.registerTool;
  readonly registerLanguageModelChatProvider?: RegisterModelProvider;
}

/** Looks up the chat APIs at run time: any of them may be missing in an older VS Code. */
export function detectChatApis(): ChatApis {
  const chat = (vscode as { chat?: Partial<typeof vscode.chat> }).chat;
  const lm = (vscode as { lm?: Partial<typeof vscode.lm> & { registerLanguageModelChatProvider?: unknown } }).lm;
  const register = lm?.registerLanguageModelChatProvider;
  return {
    createChatParticipant: typeof chat?.createChatParticipant === 'function' ? chat.createChatParticipant.bind(chat) : undefined,
    registerTool: typeof lm?.registerTool === 'function' ? lm.registerTool.bind(lm) : undefined,
    registerLanguageModelChatProvider: typeof register === 'function' ? (register as RegisterModelProvider).bind(lm) : undefined,
  };
}
