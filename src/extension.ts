import type * as vscode from 'vscode';
import { registerApplicationsView } from './host/applications/applicationsView';
import { CurrentApplication } from './host/platform/currentApplication';
import { registerStatusBar } from './host/applications/statusBar';
import { ChatHistory } from './host/sidebarChat/chatHistory';
import { registerChatView } from './host/sidebarChat/chatView';
import { registerApplicationCommands } from './host/commands/applicationCommands';
import { registerDiagnoseCommand } from './host/commands/diagnoseCommand';
import { registerGetCommand } from './host/commands/getCommand';
import { registerKeyCommands } from './host/commands/keyCommands';
import { registerLanguageModelFeatures } from './host/vscodeChat';
import { registerQueryCommands } from './host/commands/queryCommands';
import { registerSettingsProblems } from './host/platform/settingsProblems';
import { Settings } from './host/platform/settings';
import { HistoryStore } from './client/history';
import { historyStorage, registerHistory, type HistoryView } from './host/history';
import { Log } from './host/platform/log';
import { FailureNotifier } from './host/query/failures';
import { AnswerChannel } from './host/output/outputChannelSink';
import { AnswerPanels } from './host/answerPanel/answerPanel';
import { QueryRegistry } from './host/query/registry';
import { QueryRunner } from './host/query/runner';
import { KeyStore } from './host/platform/keyStore';
import { registerEnvironmentCommands } from './host/commands/environmentCommands';
import { registerQueryFiles } from './host/queryFiles';
import { registerCompare } from './host/compare';
import { AnswerDocuments } from './host/platform/answerDocuments';
import type { QueryTesting } from './host/queryFiles/testing';
import { registerWalkthrough } from './host/walkthrough/walkthrough';

/** The long-lived parts of the extension (the test build's entry point reads them; the product exports nothing). */
export interface ExtensionParts {
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly log: Log;
  readonly registry: QueryRegistry;
  readonly runner: QueryRunner;
  readonly channel: AnswerChannel;
  readonly history: HistoryStore;
  readonly historyView: HistoryView;
  readonly current: CurrentApplication;
  readonly queryTesting: QueryTesting;
}

/** VS Code calls this once; everything it builds is disposed through `context.subscriptions`. */
export function activate(context: vscode.ExtensionContext): void {
  compose(context);
}

/** Composition root: builds the parts and registers each feature. No logic lives here. */
export function compose(context: vscode.ExtensionContext): ExtensionParts {
  const settings = new Settings();
  const keys = new KeyStore(context.secrets, () => {
    const base = settings.baseUrl();
    return base.ok ? base.normalized : undefined;
  });
  const log = new Log(() => keys.knownSecrets());
  const registry = new QueryRegistry();
  const current = new CurrentApplication(context.globalState, settings);
  const runner = new QueryRunner(settings, keys, log, registry);
  const notifier = new FailureNotifier(log);
  const channel = new AnswerChannel();
  const panels = new AnswerPanels({ extensionUri: context.extensionUri, registry });
  const answers = new AnswerDocuments();
  context.subscriptions.push(settings, keys, log, registry, current, channel, panels, answers);

  registerSettingsProblems(context, settings, log);
  registerQueryCommands(context, { settings, current, runner, notifier, registry, panels, channel });
  registerKeyCommands(context, { settings, keys, current, log });
  registerApplicationCommands(context, settings, current);
  registerEnvironmentCommands(context, settings, log);
  registerGetCommand(context, { settings, keys, current, log });
  registerDiagnoseCommand(context, { settings, keys, current, log });
  registerChatView(context, { extensionUri: context.extensionUri, settings, keys, current, runner, registry, history: new ChatHistory(context.workspaceState, () => keys.knownSecrets()) });
  const history = new HistoryStore(historyStorage(context));
  const historyView = registerHistory(context, { history, log, settings, current, runner, notifier, registry, panels, answers });
  const compare = registerCompare(context, { extensionUri: context.extensionUri, settings, runner, registry, answers, current });
  registerApplicationsView(context, settings, keys, current);
  registerStatusBar(context, current, registry, settings);
  registerLanguageModelFeatures(context, { extensionUri: context.extensionUri, settings, keys, current, runner, log });
  const queryTesting = registerQueryFiles(context, { settings, current, runner, notifier, registry, panels, channel, compare, history, answers });
  registerWalkthrough(context, { settings, keys, history, log });
  return { settings, keys, log, registry, runner, channel, history, historyView, current, queryTesting };
}

/** Nothing to do: every part is disposed through `context.subscriptions`. */
export function deactivate(): void {}
