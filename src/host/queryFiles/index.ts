import * as vscode from 'vscode';
import { QueryFileCatalog } from './catalog';
import { registerQueryFileCommands, type QueryFileCommandDeps } from './commands';
import { QueryFileCodeLens } from './codeLens';
import { QueryFileCompletion } from './completion';
import { registerQueryDiagnostics } from './diagnostics';
import { registerShowChanges, type ShowChangesDeps } from './showChanges';
import { QueryTesting } from './testing';

/** What query files need from the rest of the extension. */
export type QueryFileDeps = Omit<QueryFileCommandDeps, 'catalog' | 'testing'> & Omit<ShowChangesDeps, 'testing'>;

/** The selector of query files in every scheme (saved, unsaved, remote). */
const QUERY_FILES: vscode.DocumentSelector = { pattern: '**/*.aq.md' };

/**
 * Query files (`*.aq.md`): the catalog of the workspace's files, the Testing view's controller,
 * diagnostics with quick fixes, completion, CodeLens, and the commands. Returns the test controller
 * (the test build reads it).
 */
export function registerQueryFiles(context: vscode.ExtensionContext, deps: QueryFileDeps): QueryTesting {
  const catalog = new QueryFileCatalog();
  const testing = new QueryTesting({ ...deps, catalog });
  context.subscriptions.push(
    catalog,
    testing,
    vscode.languages.registerCodeLensProvider(QUERY_FILES, new QueryFileCodeLens(catalog)),
    vscode.languages.registerCompletionItemProvider(QUERY_FILES, new QueryFileCompletion(deps.settings), ':', ' ', ',', '/'),
  );
  registerQueryDiagnostics(context, { ...deps, catalog });
  registerQueryFileCommands(context, { ...deps, catalog, testing });
  registerShowChanges(context, { ...deps, testing });
  return testing;
}
