// The "Get Started with Application Query" walkthrough (contributes.walkthroughs in package.json):
// opened once, on the first start after install, for a user who has not set the extension up yet;
// and the context keys its steps complete on: a key stored, a first answer, a query file run.
import * as vscode from 'vscode';
import type { HistoryStore } from '../../client/history';
import type { KeyStore } from '../platform/keyStore';
import type { Log } from '../platform/log';
import type { Settings } from '../platform/settings';

/** The walkthrough's id, as package.json names it. */
export const WALKTHROUGH_ID = 'applicationQuery.gettingStarted';
/** Set once the walkthrough has had its one chance to open on its own. */
const OFFERED = 'applicationQuery.walkthroughOffered';
/** True while any configured application has a key for the current service (the key step's completion event). */
const HAS_KEY_CONTEXT = 'applicationQuery.hasApiKey';
/** True once History holds an answer that came back whole, asked from anywhere but a query file. */
const ANSWERED_CONTEXT = 'applicationQuery.hasAnswer';
/** True once History holds a query file's query that ran (from the Testing view, its CodeLens or Run Query File). */
const QUERY_FILE_RAN_CONTEXT = 'applicationQuery.hasQueryFileRun';

/** What the walkthrough reads. */
export interface WalkthroughDeps {
  readonly settings: Settings;
  readonly keys: KeyStore;
  readonly history: HistoryStore;
  readonly log: Log;
}

/** Keeps the steps' context keys current and opens the walkthrough on the first start after install. */
export function registerWalkthrough(context: vscode.ExtensionContext, deps: WalkthroughDeps): void {
  let generation = 0;
  const refresh = (): void => {
    const mine = ++generation;
    void anyKeyStored(deps).then((stored) => {
      // A later refresh has the newer answer; an older one must not overwrite it.
      if (mine === generation) void vscode.commands.executeCommand('setContext', HAS_KEY_CONTEXT, stored);
    });
  };
  context.subscriptions.push(deps.keys.onDidChange(refresh), deps.settings.onDidChange(refresh));
  refresh();
  const recorded = (): void => {
    const exchanges = deps.history.list();
    void vscode.commands.executeCommand('setContext', ANSWERED_CONTEXT, exchanges.some((e) => e.surface !== 'queryFile' && e.outcome.kind === 'done'));
    void vscode.commands.executeCommand('setContext', QUERY_FILE_RAN_CONTEXT, exchanges.some((e) => e.surface === 'queryFile'));
  };
  context.subscriptions.push(deps.history.onDidChange(recorded));
  recorded();
  void openOnFirstStart(context, deps);
}

async function anyKeyStored({ settings, keys }: WalkthroughDeps): Promise<boolean> {
  const base = settings.baseUrl();
  if (!base.ok) return false;
  for (const application of settings.applications().applications) {
    if (await keys.hasFor(base, application.id)) return true;
  }
  return false;
}

/**
 * Opens the walkthrough once per installation, the way VS Code opens one after an install from the
 * Extensions view (which a VSIX installed from the command line never gets). Not for someone who
 * already set a service up (an update from a release without the walkthrough), nor when the user
 * turned walkthroughs on install off.
 */
async function openOnFirstStart(context: vscode.ExtensionContext, { settings, log }: WalkthroughDeps): Promise<void> {
  if (context.globalState.get<boolean>(OFFERED) === true) return;
  await context.globalState.update(OFFERED, true);
  if ((settings.baseUrlSetting() ?? '') !== '') return;
  if (!vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall', true)) return;
  log.info('Opening the walkthrough "Get Started with Application Query": the first start after install.');
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#${WALKTHROUGH_ID}`, false);
}
