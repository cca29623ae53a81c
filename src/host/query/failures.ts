import * as vscode from 'vscode';
import { formatBytes, formatDuration } from '../../shared/format';
import type { QueryOutcome, Remedy } from '../../shared/outcome';
import { Commands } from '../platform/commandIds';
import type { Log } from '../platform/log';
import { plain } from '../../shared/plainText';

/** What a failure notification is about, and what Retry does. */
export interface FailureContext {
  readonly applicationId: string;
  readonly applicationLabel: string;
  readonly retry?: () => void;
}

/**
 * The failure policy of the command surfaces: an error notification with the numeric status, its
 * meaning, and the buttons that help (Set API Key… for 401/403, Retry with the service's wait,
 * Show Log). A stop is never a failure. A complete answer with a warning gets a warning.
 */
export class FailureNotifier {
  constructor(private readonly log: Log) {}

  /** Shows the notification the outcome deserves, if any. */
  report(outcome: QueryOutcome, context: FailureContext): void {
    if (outcome.kind === 'stopped') return;
    if (outcome.kind === 'done') {
      if (outcome.warning !== undefined) this.warn(outcome, context);
      return;
    }
    const actions = new Map<string, () => void>();
    for (const remedy of outcome.remedies) this.addAction(actions, remedy, outcome, context);
    actions.set('Show Log', () => this.log.show());
    const kept = outcome.textChars > 0 ? ` The partial answer (${outcome.textChars.toLocaleString('en-US')} characters, ${formatBytes(outcome.wireBytes)} received) is kept.` : '';
    const message = this.log.redact(outcome.message ?? 'The query failed.');
    void vscode.window.showErrorMessage(plain`${context.applicationLabel}: ${message}` + kept, ...actions.keys()).then((choice) => {
      if (choice !== undefined) actions.get(choice)?.();
    });
  }

  private warn(outcome: QueryOutcome, context: FailureContext): void {
    const actions = new Map<string, () => void>();
    for (const remedy of outcome.remedies) this.addAction(actions, remedy, outcome, context);
    const warning = this.log.redact(outcome.warning ?? '');
    void vscode.window.showWarningMessage(plain`${context.applicationLabel}: ${warning}`, ...actions.keys()).then((choice) => {
      if (choice !== undefined) actions.get(choice)?.();
    });
  }

  private addAction(actions: Map<string, () => void>, remedy: Remedy, outcome: QueryOutcome, context: FailureContext): void {
    const run = (command: string, ...args: unknown[]) => (): void => void vscode.commands.executeCommand(command, ...args);
    switch (remedy) {
      case 'setApiKey':
        actions.set('Set API Key…', run(Commands.setApiKey, context.applicationId));
        break;
      case 'addApplication':
        actions.set('Add Application…', run(Commands.addApplication));
        break;
      case 'openBaseUrlSetting':
        actions.set('Open Settings', run('workbench.action.openSettings', 'applicationQuery.baseUrl'));
        break;
      case 'checkApplications':
        actions.set('Check Applications', run('workbench.action.openSettings', 'applicationQuery.applications'));
        break;
      case 'retry': {
        const retry = context.retry;
        if (retry === undefined || !outcome.retryable) break;
        const wait = outcome.retryAfterMs;
        if (wait !== undefined && wait > 0) actions.set(`Retry in ${formatDuration(wait)}`, () => void setTimeout(retry, wait));
        else actions.set('Retry', retry);
        break;
      }
      case 'showRaw':
        if (outcome.exchangeId !== undefined) actions.set('Show Raw Response', run(Commands.showExchange, outcome.exchangeId));
        actions.set('Set responseField', run('workbench.action.openSettings', 'applicationQuery.applications'));
        break;
    }
  }
}
