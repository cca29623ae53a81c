import * as vscode from 'vscode';
import { Commands } from './commands/ids';

/** Composition root: builds the parts and registers each feature. No logic lives here. */
export function activate(context: vscode.ExtensionContext): void {
  for (const id of Object.values(Commands)) {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, () => {
        void vscode.window.showInformationMessage(`Application Query: "${id}" is not built yet.`);
      }),
    );
  }
}

/** Nothing to do: every part is disposed through `context.subscriptions`. */
export function deactivate(): void {}
