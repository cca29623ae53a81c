import * as vscode from 'vscode';
import type { Log } from './log';
import type { Settings } from './settings';
import { plain } from '../../shared/plainText';

/**
 * Tells the user about settings that cannot be used as written: entries of
 * `applicationQuery.applications` that are skipped or partly ignored (repeated or bad ids, a
 * `requestTemplate` or `responseFormat` of the wrong shape), and a workspace that tries to set the
 * base URL. Each problem is logged, and a warning with Open Settings is shown once per new set of
 * problems (at start and after every change), so a request never goes out in another shape silently.
 */
export function registerSettingsProblems(context: vscode.ExtensionContext, settings: Settings, log: Log): void {
  let shown = '';
  const check = (): void => {
    const problems = [...settings.applications().problems, ...settings.environments().problems];
    const key = problems.join('\n');
    if (key === shown) return;
    shown = key;
    for (const problem of problems) log.warn(problem);
    if (problems.length === 0) return;
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}; see the log)` : '';
    void vscode.window.showWarningMessage(plain`Application Query: ${first}${more}`, 'Open Settings', 'Show Log').then((choice) => {
      if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettingsJson');
      else if (choice === 'Show Log') log.show();
    });
  };
  check();
  context.subscriptions.push(settings.onDidChange(check));
  if (settings.workspaceTriesBaseUrl()) {
    log.warn('This workspace sets applicationQuery.baseUrl. It is ignored: the base URL is read from your user settings only, so a repository cannot send your keys elsewhere.');
  }
}
