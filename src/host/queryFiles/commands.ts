import * as vscode from 'vscode';
import { applicationLabel } from '../../shared/applications';
import { plainText } from '../../shared/plainText';
import type { QueryEntry } from '../../shared/queryFile';
import type { AnswerPanels } from '../answerPanel/answerPanel';
import type { AnswerChannel } from '../output/outputChannelSink';
import type { ComparePanels } from '../compare';
import { Commands } from '../platform/commandIds';
import { userEditor } from '../platform/editorContext';
import { runCommandQuery, type CommandQueryDeps } from '../query/commandQuery';
import { isQueryFile, type QueryFileCatalog } from './catalog';
import { planQuery, type PlanDeps } from './plan';
import type { QueryTarget } from '../../shared/queryFile/targets';
import type { QueryTesting } from './testing';
import { requireTrust } from './trust';
import { exampleQueryFile } from './example';

/** What the query-file commands need. */
export interface QueryFileCommandDeps extends CommandQueryDeps, PlanDeps {
  readonly catalog: QueryFileCatalog;
  readonly testing: QueryTesting;
  readonly panels: AnswerPanels;
  readonly channel: AnswerChannel;
  readonly compare: ComparePanels;
}

/**
 * Registers New Query File, Run Query File, and the CodeLens commands that run one query (into the
 * answer panel, as every query) or run it on another application or environment.
 */
export function registerQueryFileCommands(context: vscode.ExtensionContext, deps: QueryFileCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.newQueryFile, () => newQueryFile(deps)),
    vscode.commands.registerCommand(Commands.runQueryFile, async (arg?: unknown) => {
      const uri = arg instanceof vscode.Uri ? arg : userEditor()?.document.uri;
      if (uri === undefined || !isQueryFile(uri)) {
        void vscode.window.showInformationMessage('Open a query file (*.aq.md) first, then run "Run Query File". "New Query File" writes an example.');
        return;
      }
      if (!requireTrust()) return;
      await deps.testing.runFile(uri);
    }),
    vscode.commands.registerCommand(Commands.runQuery, (uri: unknown, index: unknown) => runOne(deps, uri, index, undefined)),
    vscode.commands.registerCommand(Commands.runQueryOn, async (uri: unknown, index: unknown) => {
      const target = await pickTarget(deps);
      if (target !== undefined) await runOne(deps, uri, index, target);
    }),
  );
}

/** Runs one query of a query file into the answer panel (or the output channel), like Query Application; several applications into the Compare panel. */
async function runOne(deps: QueryFileCommandDeps, uri: unknown, index: unknown, override: { applicationId?: string; environment?: string } | undefined): Promise<void> {
  if (!(uri instanceof vscode.Uri) || typeof index !== 'number') return;
  if (!requireTrust()) return;
  const entry = await deps.catalog.current(uri);
  const query: QueryEntry | undefined = entry?.parsed.queries[index];
  if (query === undefined) {
    void vscode.window.showWarningMessage('That query is no longer in the file (it was edited): run it again from its CodeLens.');
    return;
  }
  const plan = await planQuery(uri, query, deps);
  if (!plan.ok) {
    void vscode.window.showErrorMessage(plainText(plan.message), 'Show the Line').then((choice) => {
      if (choice !== undefined) void vscode.window.showTextDocument(uri, { selection: new vscode.Range(plan.line, 0, plan.line, 0) });
    });
    return;
  }
  const targets: QueryTarget[] = plan.targets.map((target) => ({
    ...target,
    ...(override?.applicationId === undefined ? {} : { applicationId: override.applicationId }),
    ...(override?.environment === undefined ? {} : { environment: override.environment }),
  }));
  const unique = targets.filter((t, i) => targets.findIndex((u) => u.applicationId === t.applicationId && u.environment === t.environment) === i);
  if (unique.length > 1) {
    // A query with several applications: their answers side by side.
    const context = plan.input(unique[0]).context;
    deps.compare.open({ question: query.question, ...(context === undefined ? {} : { contextLabel: context.label }), targets: unique, input: plan.input });
    return;
  }
  for (const target of unique) {
    const input = plan.input(target);
    const launch = (): void => {
      const sink = deps.settings.output() === 'outputChannel' ? deps.channel.sink() : deps.panels.sink(target.applicationId, launch);
      runCommandQuery(deps, input, sink, { surface: 'queryFile', ...(target.environment === undefined ? {} : { environment: target.environment }) }, launch);
    };
    launch();
  }
}

interface TargetPick extends vscode.QuickPickItem {
  readonly target?: { applicationId?: string; environment?: string };
}

/** Another application, or (where environments exist) another environment, to run a query on. */
async function pickTarget(deps: QueryFileCommandDeps): Promise<{ applicationId?: string; environment?: string } | undefined> {
  const apps = deps.settings.applications().applications;
  const { environments } = deps.settings.environments();
  const items: TargetPick[] = [];
  if (apps.length > 0) items.push({ label: 'Applications', kind: vscode.QuickPickItemKind.Separator });
  for (const app of apps) items.push({ label: plainText(applicationLabel(app)), description: plainText(app.id), target: { applicationId: app.id } });
  if (environments.length > 0) {
    items.push({ label: 'Environments', kind: vscode.QuickPickItemKind.Separator });
    items.push({ label: 'default', description: 'applicationQuery.baseUrl', target: { environment: '' } });
    for (const e of environments) items.push({ label: plainText(e.name), description: plainText(e.baseUrl), target: { environment: e.name } });
  }
  if (apps.length === 0) {
    void vscode.window.showInformationMessage('No applications yet: run "Add Application…" first.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Run the query on…', placeHolder: 'An application (same environment), or an environment (same applications)' });
  return picked?.target;
}

/**
 * Writes an example query file that runs against the current application, as an unsaved editor
 * beside the workspace's first folder: nothing is written to the repository until the user saves.
 */
async function newQueryFile(deps: QueryFileCommandDeps): Promise<void> {
  const app = deps.settings.applications().applications.find((a) => a.id === deps.current.id);
  const folder = vscode.workspace.workspaceFolders?.[0];
  let uri: vscode.Uri;
  if (folder === undefined) {
    uri = vscode.Uri.from({ scheme: 'untitled', path: 'queries.aq.md' });
  } else {
    let n = 1;
    for (;;) {
      const name = n === 1 ? 'queries.aq.md' : `queries-${n}.aq.md`;
      const candidate = vscode.Uri.joinPath(folder.uri, name);
      const taken = await vscode.workspace.fs.stat(candidate).then(
        () => true,
        () => false,
      );
      if (!taken && !vscode.workspace.textDocuments.some((d) => d.uri.path === candidate.path)) {
        uri = candidate.with({ scheme: 'untitled' });
        break;
      }
      n++;
    }
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), exampleQueryFile(app?.id)));
  if (app === undefined) {
    void vscode.window.showInformationMessage('The example names no application yet: run "Add Application…", then put its id after "application:".');
  }
}
