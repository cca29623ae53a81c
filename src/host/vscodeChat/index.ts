import * as vscode from 'vscode';
import { applicationLabel } from '../../shared/applications';
import { plain, plainText } from '../../shared/plainText';
import { Commands } from '../platform/commandIds';
import { type ChatApis, detectChatApis } from './api';
import type { LanguageModelDeps } from './deps';
import { createParticipant } from './participant';
import { ApplicationModelProvider, VENDOR } from './provider';
import { AskApplicationTool, TOOL_NAME } from './tool';

export type { LanguageModelDeps } from './deps';

/**
 * Our applications in VS Code's own Chat: the `@app` participant, one model per application with a
 * key, and the `askApplication` tool. Each part needs an API the running VS Code may lack (models
 * arrive in 1.104); a missing part is skipped with one line in the log, and nothing throws.
 */
export function registerLanguageModelFeatures(context: vscode.ExtensionContext, deps: LanguageModelDeps, apis: ChatApis = detectChatApis()): void {
  const skipped: string[] = [];
  const attempt = (part: string, api: string, register: (() => vscode.Disposable) | undefined): void => {
    if (register === undefined) {
      skipped.push(part);
      deps.log.info(`VS Code's Chat: ${part} skipped: this VS Code (${vscode.version}) has no ${api}.`);
      return;
    }
    try {
      context.subscriptions.push(register());
    } catch (error) {
      skipped.push(part);
      deps.log.warn(`VS Code's Chat: ${part} skipped: ${api} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const { createChatParticipant, registerTool, registerLanguageModelChatProvider } = apis;
  attempt('the @app participant', 'vscode.chat.createChatParticipant', createChatParticipant && (() => createParticipant(createChatParticipant, deps)));
  attempt('the askApplication tool', 'vscode.lm.registerTool', registerTool && (() => registerTool(TOOL_NAME, new AskApplicationTool(deps))));
  attempt('the application models', 'vscode.lm.registerLanguageModelChatProvider', registerLanguageModelChatProvider && (() => {
    const provider = new ApplicationModelProvider(deps);
    const registration = registerLanguageModelChatProvider(VENDOR, provider);
    // Resolving the models once makes them known to the Chat before anyone opens the model picker
    // (without that, a chat whose model is ours can say "Language model unavailable").
    void Promise.resolve(vscode.lm.selectChatModels({ vendor: VENDOR })).catch(() => undefined);
    return vscode.Disposable.from(registration, provider);
  }));
  context.subscriptions.push(vscode.commands.registerCommand(Commands.manageChatModels, () => manageModels(deps)));
  if (skipped.length < 3) deps.log.info(`VS Code's Chat: ${3 - skipped.length} of 3 parts registered${skipped.length > 0 ? ` (skipped: ${skipped.join(', ')})` : ''}.`);
}

/** The model provider's management command: which applications are models, and adding keys and applications. */
async function manageModels(deps: LanguageModelDeps): Promise<void> {
  const base = deps.settings.baseUrl();
  if (!base.ok) {
    const setting = deps.settings.environment() === '' ? 'applicationQuery.baseUrl' : 'applicationQuery.environments';
    const choice = await vscode.window.showWarningMessage(`${plainText(base.message)} Fix the service first: the models are the applications with a key for the current service.`, 'Open Settings');
    if (choice !== undefined) await vscode.commands.executeCommand('workbench.action.openSettings', setting);
    return;
  }
  type Item = vscode.QuickPickItem & { readonly run: () => Thenable<unknown> };
  const items: Item[] = [];
  for (const app of deps.settings.applications().applications) {
    const hasKey = await deps.keys.hasFor(base, app.id);
    items.push({
      label: `${hasKey ? '$(check)' : '$(key)'} ${plainText(applicationLabel(app))}`,
      description: hasKey ? 'in the model picker' : 'no API key: choose to set one',
      run: () => vscode.commands.executeCommand(hasKey ? Commands.removeApiKey : Commands.setApiKey, app.id),
      ...(hasKey ? { detail: 'Choose to remove its key (and the model)' } : {}),
    });
  }
  items.push({ label: '$(add) Add Application…', run: () => vscode.commands.executeCommand(Commands.addApplication) });
  const picked = await vscode.window.showQuickPick(items, {
    title: plain`Application Query models (${base.origin})`,
    placeHolder: 'Each application with an API key for this service is a model in the Chat',
  });
  await picked?.run();
}
