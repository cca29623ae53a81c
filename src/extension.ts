import type * as vscode from 'vscode';
import { registerApplicationsView } from './applications/applicationsView';
import { CurrentApplication } from './config/currentApplication';
import { registerStatusBar } from './applications/statusBar';
import { ChatHistory } from './chat/chatHistory';
import { registerChatView } from './chat/chatView';
import { registerApplicationCommands } from './commands/applicationCommands';
import { registerDiagnoseCommand } from './commands/diagnoseCommand';
import { registerGetCommand } from './commands/getCommand';
import { registerKeyCommands } from './commands/keyCommands';
import { registerLanguageModelFeatures } from './lm';
import { registerQueryCommands } from './commands/queryCommands';
import { registerSettingsProblems } from './config/problems';
import { Settings } from './config/settings';
import { HistoryStore } from './core/history';
import { historyStorage, registerHistory } from './history';
import { Log } from './log/log';
import { FailureNotifier } from './notifications/failures';
import { AnswerChannel } from './output/outputChannelSink';
import { AnswerPanels } from './panel/answerPanel';
import { QueryRegistry } from './query/registry';
import { QueryRunner } from './query/runner';
import { KeyStore } from './secrets/keyStore';

/** The long-lived parts of the extension (the test build's entry point reads them; the product exports nothing). */
export interface ExtensionParts {
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly log: Log;
  readonly registry: QueryRegistry;
  readonly runner: QueryRunner;
  readonly channel: AnswerChannel;
  readonly history: HistoryStore;
  readonly current: CurrentApplication;
}

/** VS Code calls this once; everything it builds is disposed through `context.subscriptions`. */
export function activate(context: vscode.ExtensionContext): void {
  compose(context);
}

/** Composition root: builds the parts and registers each feature. No logic lives here. */
export function compose(context: vscode.ExtensionContext): ExtensionParts {
  const settings = new Settings();
  const keys = new KeyStore(context.secrets);
  const log = new Log(() => keys.knownSecrets());
  const registry = new QueryRegistry();
  const current = new CurrentApplication(context.globalState, settings);
  const runner = new QueryRunner(settings, keys, log, registry);
  const notifier = new FailureNotifier(log);
  const channel = new AnswerChannel();
  const panels = new AnswerPanels({ extensionUri: context.extensionUri, registry });
  context.subscriptions.push(settings, keys, log, registry, current, channel, panels);

  registerSettingsProblems(context, settings, log);
  registerQueryCommands(context, { settings, current, runner, notifier, registry, panels, channel });
  registerKeyCommands(context, { settings, keys, current, log });
  registerApplicationCommands(context, settings, current);
  registerGetCommand(context, { settings, keys, current, log });
  registerDiagnoseCommand(context, { settings, keys, current, log });
  registerChatView(context, { extensionUri: context.extensionUri, settings, keys, current, runner, registry, history: new ChatHistory(context.workspaceState, () => keys.knownSecrets()) });
  const history = new HistoryStore(historyStorage(context));
  registerHistory(context, { history, log, settings, current, runner, notifier, registry, panels });
  registerApplicationsView(context, settings, keys, current);
  registerStatusBar(context, current, registry, settings);
  registerLanguageModelFeatures(context, { extensionUri: context.extensionUri, settings, keys, current, runner, log });
  return { settings, keys, log, registry, runner, channel, history, current };
}

/** Nothing to do: every part is disposed through `context.subscriptions`. */
export function deactivate(): void {}
