import type * as vscode from 'vscode';
import { registerCompareCommand } from './compareCommand';
import { ComparePanels, type ComparePanelDeps } from './comparePanel';
import type { CurrentApplication } from '../platform/currentApplication';

export type { ComparePanels, CompareRequest, CompareTarget } from './comparePanel';

/** What Compare needs from the rest of the extension. */
export interface CompareDeps extends ComparePanelDeps {
  readonly current: CurrentApplication;
}

/** Compare: the panel that streams one question's answers side by side, and Compare Applications…. Returns the panels (query files open them too). */
export function registerCompare(context: vscode.ExtensionContext, deps: CompareDeps): ComparePanels {
  const compare = new ComparePanels(deps);
  context.subscriptions.push(compare);
  registerCompareCommand(context, { settings: deps.settings, current: deps.current, compare });
  return compare;
}
