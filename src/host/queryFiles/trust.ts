import * as vscode from 'vscode';

/** What the untrusted-workspace message says, for every way of running a query file. */
export const TRUST_MESSAGE = 'Query files come from the repository: running them needs a trusted workspace. Trust this workspace first (Manage Workspace Trust).';

/**
 * Whether a query file may run: only in a trusted workspace, since the file (its questions, context
 * files and applications) comes from a repository someone else may have written. Otherwise says so
 * once, with the way to trust the workspace, and returns false at once (never waits for the user).
 */
export function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(TRUST_MESSAGE, 'Manage Workspace Trust').then((choice) => {
    if (choice !== undefined) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}
