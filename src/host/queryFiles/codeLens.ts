import * as vscode from 'vscode';
import { Commands } from '../platform/commandIds';
import type { QueryFileCatalog } from './catalog';

/**
 * CodeLens in query files: above the first query, run the whole file (in the Testing view); above
 * each query, run it (into the answer panel) or run it on another application or environment.
 * The titles are the extension's own words; a query's name never goes into one.
 */
export class QueryFileCodeLens implements vscode.CodeLensProvider {
  constructor(private readonly catalog: QueryFileCatalog) {}

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const { queries } = this.catalog.parse(doc);
    if (queries.length === 0) return [];
    const lenses: vscode.CodeLens[] = [];
    const first = new vscode.Range(queries[0].headingLine, 0, queries[0].headingLine, 0);
    lenses.push(
      new vscode.CodeLens(first, {
        title: `$(run-all) Run Query File (${queries.length} ${queries.length === 1 ? 'query' : 'queries'})`,
        tooltip: 'Run every query of this file and check its expectations (results in the Testing view)',
        command: Commands.runQueryFile,
        arguments: [doc.uri],
      }),
    );
    for (const query of queries) {
      const at = new vscode.Range(query.headingLine, 0, query.headingLine, 0);
      lenses.push(
        new vscode.CodeLens(at, { title: '$(play) Run', tooltip: 'Send this query; the answer streams into the answer panel', command: Commands.runQuery, arguments: [doc.uri, query.index] }),
        new vscode.CodeLens(at, { title: 'Run on…', tooltip: 'Send this query to another application or environment', command: Commands.runQueryOn, arguments: [doc.uri, query.index] }),
      );
    }
    return lenses;
  }
}
