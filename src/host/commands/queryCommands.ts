import * as vscode from 'vscode';
import type { CurrentApplication } from '../platform/currentApplication';
import type { AnswerChannel } from '../output/outputChannelSink';
import type { AnswerPanels } from '../answerPanel/answerPanel';
import type { QueryContext, QueryInput } from '../../shared/prepare';
import { Commands } from '../platform/commandIds';
import { documentFor, fileContext, selectionContext, userEditor } from '../platform/editorContext';
import { runCommandQuery, type CommandQueryDeps } from '../query/commandQuery';
import { applicationName } from '../../shared/applications';
import { plain, plainText } from '../../shared/plainText';

/** What the query commands need. */
export interface QueryCommandDeps extends CommandQueryDeps {
  readonly current: CurrentApplication;
  readonly panels: AnswerPanels;
  readonly channel: AnswerChannel;
}

/** Registers Query Application (…with Selection, …with Current File) and Stop Query. */
export function registerQueryCommands(context: vscode.ExtensionContext, deps: QueryCommandDeps): void {
  const launch = (input: QueryInput): void => {
    const retry = (): void => launch(input);
    const answer = deps.settings.output() === 'outputChannel' ? deps.channel.sink() : deps.panels.sink(input.applicationId, retry);
    runCommandQuery(deps, input, answer, { surface: 'command' }, retry);
  };

  const ask = async (title: string, contextLabel: string | undefined, required: boolean): Promise<string | undefined> => {
    return vscode.window.showInputBox({
      title: plainText(title),
      prompt: contextLabel
        ? plain`Your question about ${contextLabel} (optional: press Enter to send it as it is)`
        : 'Your question for the application',
      placeHolder: contextLabel ? 'e.g. Explain this code' : 'Ask anything',
      ignoreFocusOut: true,
      validateInput: (value) => (required && value.trim().length === 0 ? 'Type a question: there is no selection or file to send.' : undefined),
    });
  };

  const run = async (title: string, getContext: () => Promise<QueryContext | undefined> | QueryContext | undefined, arg?: unknown): Promise<void> => {
    const queryContext = await getContext();
    const app = typeof arg === 'string' ? deps.settings.resolve(arg) : await deps.current.pick({ title, always: true });
    if (!app) {
      return;
    }
    if (typeof arg === 'string') {
      await deps.current.set(app.id);
    }
    const question = await ask(`${title}: ${applicationName(app)}`, queryContext?.label, !queryContext);
    if (question === undefined) {
      return;
    }
    launch({ applicationId: app.id, question: question.trim(), context: queryContext });
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.query, (arg?: unknown) => {
      const appArg = typeof arg === 'string' ? arg : (arg as { app?: { id?: string } } | undefined)?.app?.id;
      const editor = userEditor();
      return run('Query Application', () => selectionContext(editor) ?? (editor ? fileContext(editor.document) : undefined), appArg);
    }),
    vscode.commands.registerCommand(Commands.querySelection, () => {
      const selection = selectionContext(userEditor());
      if (!selection) {
        void vscode.window.showInformationMessage('Select some text in an editor first, then run "Query Application with Selection".');
        return;
      }
      return run('Query Application with Selection', () => selection);
    }),
    vscode.commands.registerCommand(Commands.queryFile, async (uri?: unknown) => {
      let doc: vscode.TextDocument | undefined;
      try {
        doc = await documentFor(uri);
      } catch (err) {
        void vscode.window.showErrorMessage(plain`Could not read that file as text: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      if (!doc) {
        void vscode.window.showInformationMessage('Open a file first, then run "Query Application with Current File".');
        return;
      }
      const document = doc;
      return run('Query Application with Current File', () => fileContext(document));
    }),
    vscode.commands.registerCommand(Commands.stop, () => {
      const stopped = deps.registry.stopAll();
      if (stopped === 0) {
        vscode.window.setStatusBarMessage('Application Query: no query is running.', 3000);
      }
    }),
  );
}
