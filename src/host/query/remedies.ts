import * as vscode from 'vscode';
import { formatDuration } from '../../shared/format';
import type { QueryOutcome } from '../../shared/outcome';
import { Commands } from '../platform/commandIds';

/** An action a surface offers after a failure: a command to run, or (for Retry) its own way to ask again. */
export type RemedyAction = vscode.Command | { readonly title: string; readonly run: () => void };

/**
 * The one remedy table: the actions that help with `outcome`, in the order its remedies name
 * them, for every surface (notification buttons, buttons in VS Code's Chat). Retry is the
 * surface's own (`retry` gets the title, with the service's wait when it gave one, and returns
 * the action, or undefined where the surface cannot ask again).
 */
export function remedyActions(outcome: Pick<QueryOutcome, 'remedies' | 'retryable' | 'retryAfterMs' | 'exchangeId'>, applicationId: string, retry: (title: string) => RemedyAction | undefined): RemedyAction[] {
  const actions: RemedyAction[] = [];
  for (const remedy of outcome.remedies) {
    switch (remedy) {
      case 'setApiKey':
        actions.push({ title: 'Set API Key…', command: Commands.setApiKey, arguments: [applicationId] });
        break;
      case 'addApplication':
        actions.push({ title: 'Add Application…', command: Commands.addApplication });
        break;
      case 'openBaseUrlSetting':
        actions.push({ title: 'Open Settings', command: 'workbench.action.openSettings', arguments: ['applicationQuery.baseUrl'] });
        break;
      case 'checkApplications':
        actions.push({ title: 'Check Applications', command: 'workbench.action.openSettings', arguments: ['applicationQuery.applications'] });
        break;
      case 'retry': {
        if (!outcome.retryable) break;
        const wait = outcome.retryAfterMs;
        const action = retry(wait !== undefined && wait > 0 ? `Retry in ${formatDuration(wait)}` : 'Retry');
        if (action !== undefined) actions.push(action);
        break;
      }
      case 'showRaw':
        if (outcome.exchangeId !== undefined) actions.push({ title: 'Show Raw Response', command: Commands.showExchange, arguments: [outcome.exchangeId] });
        actions.push({ title: 'Set responseField', command: 'workbench.action.openSettings', arguments: ['applicationQuery.applications'] });
        break;
    }
  }
  return actions;
}

/** Runs an action from {@link remedyActions}. */
export function runRemedy(action: RemedyAction): void {
  if ('run' in action) action.run();
  else void vscode.commands.executeCommand(action.command, ...((action.arguments ?? []) as unknown[]));
}
