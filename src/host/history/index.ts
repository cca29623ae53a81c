import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HistoryStorage, HistoryStore } from '../../client/history';
import type { Log } from '../platform/log';
import { fileHistoryStorage } from './fileStorage';
import { registerHistoryCommands, type HistoryCommandDeps } from './historyCommands';
import { registerHistoryView, type HistoryView } from './historyView';
import { INSPECTOR_SCHEME, Inspector } from './inspector';

export type { HistoryView } from './historyView';

const STORAGE_KEY = 'applicationQuery.history';
const UNREADABLE_KEY = 'applicationQuery.history.unreadable';
const FILE_NAME = 'history.json';

/**
 * Where History lives: `history.json` in the extension's global storage folder (this machine's
 * storage for the extension: not settings, not workspace files, not synced). A file rather than
 * globalState, which VS Code loads whole at every start and which is meant for small values. A
 * host without a file system (a web extension host) falls back to globalState.
 */
export function historyStorage(context: vscode.ExtensionContext): HistoryStorage {
  if (context.globalStorageUri.scheme !== 'file') {
    return {
      get: () => context.globalState.get<unknown>(STORAGE_KEY),
      update: (value) => Promise.resolve(context.globalState.update(STORAGE_KEY, value)),
      keepUnreadable: async (raw) => {
        await context.globalState.update(UNREADABLE_KEY, raw);
        return `the globalState value "${UNREADABLE_KEY}"`;
      },
    };
  }
  return fileHistoryStorage(path.join(context.globalStorageUri.fsPath, FILE_NAME));
}

/** Registers History: every exchange the runner reports is recorded; the view, the inspector and their commands. */
export function registerHistory(context: vscode.ExtensionContext, deps: Omit<HistoryCommandDeps, 'inspector'> & { readonly history: HistoryStore; readonly log: Log }): HistoryView {
  const inspector = new Inspector(deps.history);
  for (const problem of deps.history.problems) deps.log.warn(`History: ${problem}`);
  context.subscriptions.push(
    deps.history.onProblem((problem) => deps.log.warn(`History: ${problem}`)),
    vscode.workspace.registerTextDocumentContentProvider(INSPECTOR_SCHEME, inspector),
    deps.runner.onExchange((exchange) => {
      deps.history.add(exchange).catch((error: unknown) => deps.log.error(`History could not record the exchange: ${error instanceof Error ? error.message : String(error)}`));
    }),
  );
  const view = registerHistoryView(context, deps.history);
  registerHistoryCommands(context, { ...deps, inspector });
  return view;
}
