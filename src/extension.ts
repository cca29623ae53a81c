import type * as vscode from 'vscode';
import { registerApplicationsView } from './applications/applicationsView';
import { CurrentApplication } from './applications/currentApplication';
import { registerStatusBar } from './applications/statusBar';
import { ChatHistory } from './chat/chatHistory';
import { registerChatView } from './chat/chatView';
import { registerApplicationCommands } from './commands/applicationCommands';
import { registerGetCommand } from './commands/getCommand';
import { registerKeyCommands } from './commands/keyCommands';
import { registerQueryCommands } from './commands/queryCommands';
import { Settings } from './config/settings';
import { Log } from './log/log';
import { AnswerChannel } from './output/outputChannelSink';
import { AnswerPanels } from './panel/answerPanel';
import { QueryService } from './query/queryService';
import { QueryRegistry } from './query/registry';
import { KeyStore } from './secrets/keyStore';
import { type TestHooks, testHooks } from './testing/testHooks';

/** Composition root: builds the parts and registers each feature. No logic lives here. */
export function activate(context: vscode.ExtensionContext): TestHooks | undefined {
  const settings = new Settings();
  const keys = new KeyStore(context.secrets);
  const log = new Log(() => keys.knownSecrets());
  const registry = new QueryRegistry();
  const current = new CurrentApplication(context.globalState, settings);
  const queries = new QueryService(settings, keys, log, registry);
  const channel = new AnswerChannel();
  const panels = new AnswerPanels({ extensionUri: context.extensionUri, registry });
  context.subscriptions.push(settings, keys, log, registry, current, channel, panels);

  registerQueryCommands(context, { settings, current, queries, registry, panels, channel });
  registerKeyCommands(context, { settings, keys, current, log });
  registerApplicationCommands(context, settings, current);
  registerGetCommand(context, { settings, keys, current, log });
  registerChatView(context, { extensionUri: context.extensionUri, settings, keys, current, queries, registry, history: new ChatHistory(context.workspaceState) });
  registerApplicationsView(context, settings, keys, current);
  registerStatusBar(context, current, registry, settings);
  warnAboutWorkspaceBaseUrl(settings, log);

  return testHooks(settings, keys, queries, channel);
}

/** A workspace that tries to set the base URL is ignored; say so once, in the log. */
function warnAboutWorkspaceBaseUrl(settings: Settings, log: Log): void {
  if (settings.workspaceTriesBaseUrl()) {
    log.warn('This workspace sets applicationQuery.baseUrl. It is ignored: the base URL is read from your user settings only, so a repository cannot send your keys elsewhere.');
  }
}

/** Nothing to do: every part is disposed through `context.subscriptions`. */
export function deactivate(): void {}
