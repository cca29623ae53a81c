import * as vscode from 'vscode';
import { formatBytes } from '../../shared/format';
import type { QueryOutcome } from '../../shared/outcome';
import type { Log } from '../platform/log';
import { plain } from '../../shared/plainText';
import { type RemedyAction, remedyActions, runRemedy } from './remedies';

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
    const actions = this.actions(outcome, context);
    actions.set('Show Log', { title: 'Show Log', run: () => this.log.show() });
    const kept = outcome.textChars > 0 ? ` The partial answer (${outcome.textChars.toLocaleString('en-US')} characters, ${formatBytes(outcome.wireBytes)} received) is kept.` : '';
    const message = this.log.mask(outcome.message ?? 'The query failed.');
    void vscode.window.showErrorMessage(plain`${context.applicationLabel}: ${message}` + kept, ...actions.keys()).then((choice) => this.choose(actions, choice));
  }

  private warn(outcome: QueryOutcome, context: FailureContext): void {
    const actions = this.actions(outcome, context);
    const warning = this.log.mask(outcome.warning ?? '');
    void vscode.window.showWarningMessage(plain`${context.applicationLabel}: ${warning}`, ...actions.keys()).then((choice) => this.choose(actions, choice));
  }

  /** The remedy table's actions by title; Retry asks again after the service's wait. */
  private actions(outcome: QueryOutcome, context: FailureContext): Map<string, RemedyAction> {
    const retry = context.retry;
    const wait = outcome.retryAfterMs ?? 0;
    const list = remedyActions(outcome, context.applicationId, (title) => (retry === undefined ? undefined : { title, run: wait > 0 ? () => void setTimeout(retry, wait) : retry }));
    return new Map(list.map((action) => [action.title, action]));
  }

  private choose(actions: ReadonlyMap<string, RemedyAction>, choice: string | undefined): void {
    const action = choice === undefined ? undefined : actions.get(choice);
    if (action !== undefined) runRemedy(action);
  }
}
