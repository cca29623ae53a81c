import * as vscode from 'vscode';
import { validateApplicationId } from '../../shared/applications';
import type { CurrentApplication } from '../platform/currentApplication';
import type { Settings } from '../platform/settings';
import { applicationIdFromArg } from '../platform/args';
import { Commands } from '../platform/commandIds';
import { plain, plainText } from '../../shared/plainText';

/** Registers Add Application… and Select Application…. */
export function registerApplicationCommands(context: vscode.ExtensionContext, settings: Settings, current: CurrentApplication): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.addApplication, async () => {
      const id = await vscode.window.showInputBox({
        title: 'Add Application… (1/2)',
        prompt: "The application's id, as shown in the service's dashboard",
        placeHolder: 'application id',
        ignoreFocusOut: true,
        validateInput: (value) => (value.length === 0 ? undefined : validateApplicationId(value.trim())),
      });
      if (!id?.trim() || validateApplicationId(id.trim())) {
        return;
      }
      const name = await vscode.window.showInputBox({
        title: 'Add Application… (2/2)',
        prompt: 'A display name (optional)',
        placeHolder: plainText(id.trim()),
        ignoreFocusOut: true,
      });
      if (name === undefined) {
        return;
      }
      await settings.addApplication({ id: id.trim(), name: name.trim() || undefined });
      await current.set(id.trim());
      const choice = await vscode.window.showInformationMessage(plain`Added ${name.trim() || id.trim()} to your applications.`, 'Set API Key…');
      if (choice) {
        await vscode.commands.executeCommand(Commands.setApiKey, id.trim());
      }
    }),
    vscode.commands.registerCommand(Commands.selectApplication, async (arg?: unknown) => {
      const id = applicationIdFromArg(arg);
      if (id && settings.resolve(id)) {
        await current.set(id);
        return;
      }
      await current.pick({ title: 'Select Application…', always: true });
    }),
  );
}
