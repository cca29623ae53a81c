import * as vscode from 'vscode';
import type { Exchange, HistoryStore } from '../../client/history';
import { plain } from '../../shared/plainText';
import type { AnswerDocuments, AnswerText } from '../platform/answerDocuments';
import { Commands } from '../platform/commandIds';
import type { QueryTesting } from './testing';

/** What Show Changes Since Last Run needs. */
export interface ShowChangesDeps {
  readonly testing: QueryTesting;
  readonly history: HistoryStore;
  readonly answers: AnswerDocuments;
}

/**
 * Show Changes Since Last Run: on a query (or case) of the Testing view, VS Code's diff editor with
 * the answer of the run before and this run's, both from History. The run before is the latest
 * earlier exchange of the same application, environment and request body. A change is information,
 * never a failure.
 */
export function registerShowChanges(context: vscode.ExtensionContext, deps: ShowChangesDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.showChanges, async (arg?: unknown) => {
      const item = isTestItem(arg) ? arg : undefined;
      if (item === undefined) {
        void vscode.window.showInformationMessage('Show Changes Since Last Run works on a query in the Testing view: right-click one that has run.');
        return;
      }
      const latestId = deps.testing.latestExchange(item.id);
      const latest = latestId === undefined ? undefined : deps.history.get(latestId);
      if (latest === undefined) {
        void vscode.window.showInformationMessage(plain`"${item.label}" has no run in History since the window opened: run it, then ask again.`);
        return;
      }
      const previous = deps.history.list().find((e) => e.id !== latest.id && e.surface === 'queryFile' && e.applicationId === latest.applicationId && e.environment === latest.environment && e.request.body === latest.request.body && e.when <= latest.when);
      if (previous === undefined) {
        void vscode.window.showInformationMessage(plain`History holds one run of "${item.label}" with this question: run it again to see what changed.`);
        return;
      }
      await deps.answers.diff(answerOf(previous, 'before'), answerOf(latest, 'this run'));
    }),
  );
}

/** Whether a command's argument is a test item (the Testing view passes the item it was run on). */
function isTestItem(arg: unknown): arg is vscode.TestItem {
  return typeof arg === 'object' && arg !== null && typeof (arg as { id?: unknown }).id === 'string' && typeof (arg as { label?: unknown }).label === 'string' && 'children' in arg;
}

/** A History entry's answer for the diff editor, with what History did not keep said in the text. */
function answerOf(exchange: Exchange, which: string): AnswerText {
  const text = exchange.response?.text ?? '';
  const cut = exchange.response?.textTruncated === true ? `\n\n[History kept the first ${text.length} of ${exchange.textChars} characters of this answer.]` : '';
  return { id: exchange.id, label: `${exchange.applicationLabel} (${which}, ${new Date(exchange.when).toLocaleString()})`, text: text + cut };
}
