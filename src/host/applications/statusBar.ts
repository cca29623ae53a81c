import * as vscode from 'vscode';
import type { QueryRegistry } from '../query/registry';
import type { Settings } from '../platform/settings';
import type { CurrentApplication } from '../platform/currentApplication';
import { Commands } from '../platform/commandIds';
import { applicationName } from '../../shared/applications';
import { plain, plainText } from '../../shared/plainText';
import { serviceLabel } from '../../shared/environments';

/** The status bar item: the current application, and a spinner while queries run. Click to select. */
export function registerStatusBar(context: vscode.ExtensionContext, current: CurrentApplication, registry: QueryRegistry, settings: Settings): void {
  const item = vscode.window.createStatusBarItem('applicationQuery.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'Application Query';
  item.command = Commands.selectApplication;
  const update = (): void => {
    const label = current.label();
    const running = registry.size;
    const app = current.id === undefined ? undefined : settings.resolve(current.id);
    const name = label !== undefined && app !== undefined ? applicationName(app) : 'No application';
    // The icons are ours; the name is outside text.
    item.text = `${running > 0 ? '$(loading~spin)' : '$(comment-discussion)'} ${plainText(name)}`;
    item.tooltip =
      running > 0
        ? plain`Application Query: ${running} quer${running === 1 ? 'y' : 'ies'} running (${registry.labels().join(', ')}). Click to select the application; run "Stop Query" to stop.`
        : plain`Application Query: current application ${label ?? '(none)'}. Click to select another.`;
    item.show();
    updateEnvironment();
  };
  // The environment, beside the application, once the user has environments (or one is selected).
  const environmentItem = vscode.window.createStatusBarItem('applicationQuery.environment', vscode.StatusBarAlignment.Right, 99);
  environmentItem.name = 'Application Query Environment';
  environmentItem.command = Commands.selectEnvironment;
  const updateEnvironment = (): void => {
    const name = settings.environment();
    if (name === '' && settings.environments().environments.length === 0) {
      environmentItem.hide();
      return;
    }
    const base = settings.baseUrl();
    environmentItem.text = `$(server-environment) ${name === '' ? 'default' : plainText(name)}`;
    environmentItem.tooltip = base.ok
      ? plain`Application Query: queries go to ${serviceLabel(base)}. Click to select another environment.`
      : plain`Application Query: ${base.message}`;
    environmentItem.show();
  };
  update();
  context.subscriptions.push(item, environmentItem, current.onDidChange(update), registry.onDidChange(update), settings.onDidChange(update));
}
