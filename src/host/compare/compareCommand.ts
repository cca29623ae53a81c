import * as vscode from 'vscode';
import { applicationLabel, type ApplicationConfig } from '../../shared/applications';
import { plain, plainText } from '../../shared/plainText';
import type { QueryContext } from '../../shared/prepare';
import { Commands } from '../platform/commandIds';
import type { CurrentApplication } from '../platform/currentApplication';
import { fileContext, selectionContext, userEditor } from '../platform/editorContext';
import type { Settings } from '../platform/settings';
import type { ComparePanels, CompareTarget } from './comparePanel';

/** What Compare Applications… needs. */
export interface CompareCommandDeps {
  readonly settings: Settings;
  readonly current: CurrentApplication;
  readonly compare: ComparePanels;
}

/** Compare Applications… called with its choices made (a keybinding, a test): application ids, environment names, the question. */
interface CompareArgs {
  readonly applications?: readonly string[];
  readonly environments?: readonly string[];
  readonly question?: string;
}

/**
 * Registers Compare Applications…: pick two or more applications (and, where environments exist,
 * environments), ask once with the selection or the file as context (as Query Application does),
 * and every request starts at once into one Compare panel.
 */
export function registerCompareCommand(context: vscode.ExtensionContext, deps: CompareCommandDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand(Commands.compare, (arg?: unknown) => compare(deps, isArgs(arg) ? arg : {})));
}

function isArgs(value: unknown): value is CompareArgs {
  return typeof value === 'object' && value !== null && !(value instanceof vscode.Uri);
}

async function compare(deps: CompareCommandDeps, args: CompareArgs): Promise<void> {
  const apps = deps.settings.applications().applications;
  const { environments } = deps.settings.environments();
  if (apps.length === 0) {
    void vscode.window.showInformationMessage('No applications yet: run "Add Application…" first, then compare them.');
    return;
  }
  const chosenApps = args.applications !== undefined ? apps.filter((app) => args.applications?.includes(app.id)) : await pickApplications(apps, deps.current.id, environments.length > 0);
  if (chosenApps === undefined || chosenApps.length === 0) return;
  let chosenEnvironments: readonly (string | undefined)[] = [undefined];
  if (args.environments !== undefined) {
    chosenEnvironments = args.environments;
  } else if (environments.length > 0) {
    const picked = await pickEnvironments(environments.map((e) => e.name), deps.settings.environment(), chosenApps.length);
    if (picked === undefined) return;
    chosenEnvironments = picked;
  }
  const targets: CompareTarget[] = [];
  for (const environment of chosenEnvironments) {
    for (const app of chosenApps) targets.push({ applicationId: app.id, applicationLabel: applicationLabel(app), ...(environment === undefined ? {} : { environment }) });
  }
  if (targets.length < 2) {
    void vscode.window.showInformationMessage('Pick at least two applications, or one application and two environments, to compare.');
    return;
  }
  const editor = userEditor();
  const queryContext: QueryContext | undefined = selectionContext(editor) ?? (editor === undefined ? undefined : fileContext(editor.document));
  const question =
    args.question ??
    (await vscode.window.showInputBox({
      title: plain`Compare ${targets.length} answers`,
      prompt: queryContext === undefined ? 'Your question for every application' : plain`Your question about ${queryContext.label} (optional: press Enter to send it as it is)`,
      placeHolder: queryContext === undefined ? 'Ask anything' : 'e.g. Explain this code',
      ignoreFocusOut: true,
      validateInput: (value) => (queryContext === undefined && value.trim() === '' ? 'Type a question: there is no selection or file to send.' : undefined),
    }));
  if (question === undefined) return;
  deps.compare.open({
    question: question.trim(),
    ...(queryContext === undefined ? {} : { contextLabel: queryContext.label }),
    targets,
    input: (target) => ({ applicationId: target.applicationId, question: question.trim(), ...(queryContext === undefined ? {} : { context: queryContext }) }),
  });
}

async function pickApplications(apps: readonly ApplicationConfig[], currentId: string | undefined, environmentsFollow: boolean): Promise<ApplicationConfig[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    apps.map((app) => ({ label: plainText(applicationLabel(app)), description: app.id === currentId ? 'current' : undefined, picked: app.id === currentId, app })),
    {
      title: 'Compare Applications…',
      placeHolder: environmentsFollow ? 'Pick the applications to compare (then the environments)' : 'Pick two or more applications to compare',
      canPickMany: true,
      ignoreFocusOut: true,
    },
  );
  return picked?.map((item) => item.app);
}

async function pickEnvironments(names: readonly string[], current: string, appCount: number): Promise<(string | undefined)[] | undefined> {
  const items = [
    { label: 'default', description: `applicationQuery.baseUrl${current === '' ? ' (current)' : ''}`, picked: current === '', environment: '' },
    ...names.map((name) => ({ label: plainText(name), description: name === current ? 'current' : undefined, picked: name === current, environment: name })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Compare Applications…: environments',
    placeHolder: appCount > 1 ? 'Pick the environments to ask (each application on each)' : 'Pick two or more environments to ask',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  return picked?.map((item) => item.environment);
}
