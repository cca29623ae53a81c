import * as vscode from 'vscode';
import { validateBaseUrl } from '../../shared/baseUrl';
import { plain, plainText } from '../../shared/plainText';
import { Commands } from '../platform/commandIds';
import type { Log } from '../platform/log';
import type { Settings } from '../platform/settings';

/** The quick pick's row for `applicationQuery.baseUrl` (no environment). */
const DEFAULT_ROW = 'applicationQuery.baseUrl';

/**
 * Registers Select Environment…: picks the current environment (or none: `applicationQuery.baseUrl`)
 * among `applicationQuery.environments`, in the user's settings. Keys stay bound to each service's
 * origin, so switching never sends a key to another service: each environment has its own keys.
 */
export function registerEnvironmentCommands(context: vscode.ExtensionContext, settings: Settings, log: Log): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.selectEnvironment, async (arg?: unknown) => {
      const { environments } = settings.environments();
      const current = settings.environment();
      let chosen: string | undefined = typeof arg === 'string' ? arg : undefined;
      if (chosen !== undefined && chosen !== '' && !environments.some((e) => e.name === chosen)) {
        void vscode.window.showErrorMessage(plain`There is no environment "${chosen}" in applicationQuery.environments.`, 'Open Settings').then((choice) => {
          if (choice !== undefined) void vscode.commands.executeCommand('workbench.action.openSettings', 'applicationQuery.environments');
        });
        return;
      }
      if (chosen === undefined) {
        if (environments.length === 0) {
          const choice = await vscode.window.showInformationMessage(
            'No environments yet. Add them to applicationQuery.environments in your user settings, e.g. { "staging": { "baseUrl": "https://staging.example.com" } }.',
            'Open Settings',
          );
          if (choice !== undefined) void vscode.commands.executeCommand('workbench.action.openSettingsJson');
          return;
        }
        const describe = (raw: string | undefined, setting: string): string => {
          const check = validateBaseUrl(raw, setting);
          return check.ok ? check.origin : 'not usable: see the setting';
        };
        const rows = [
          { label: plainText(DEFAULT_ROW), description: plainText(describe(settings.baseUrlSetting(), 'applicationQuery.baseUrl')), detail: current === '' ? 'current' : undefined, name: '' },
          ...environments.map((e) => ({
            label: plainText(e.name),
            description: plainText(describe(e.baseUrl, `applicationQuery.environments["${e.name}"].baseUrl`)),
            detail: e.name === current ? 'current' : undefined,
            name: e.name,
          })),
        ];
        const picked = await vscode.window.showQuickPick(rows, {
          title: 'Select Environment…',
          placeHolder: 'Which service should queries go to? Each has its own API keys.',
          matchOnDescription: true,
          ignoreFocusOut: true,
        });
        if (picked === undefined) return;
        chosen = picked.name;
      }
      await settings.setEnvironment(chosen);
      log.info(chosen === '' ? 'Environment: none (applicationQuery.baseUrl).' : `Environment: ${chosen}.`);
    }),
  );
}
