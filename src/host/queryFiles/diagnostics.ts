import * as vscode from 'vscode';
import { plainText } from '../../shared/plainText';
import { missingColumns, type ParsedQueryFile, type QueryEntry, type Span } from '../../shared/queryFile';
import { loadCases, loadSchemas } from '../../client/queryFiles/checks';
import type { Settings } from '../platform/settings';
import { Commands } from '../platform/commandIds';
import type { QueryFileCatalog } from './catalog';
import { isQueryFile } from './catalog';
import { checkContextFile, contextReader } from './contextFiles';
import { knownNames, type PlanDeps } from './plan';
import { findApplication, queryTargets, type KnownNames } from '../../shared/queryFile/targets';

/** The `source` of every diagnostic and code action of query files. */
const SOURCE = 'Application Query';
/** How long typing pauses before a file's context paths are checked on disk. */
const DEBOUNCE_MS = 250;

/** What the diagnostics need. */
export interface QueryDiagnosticsDeps extends PlanDeps {
  readonly catalog: QueryFileCatalog;
}

/**
 * Problems of open query files, in the editor and the Problems view: what the parser rejects (an
 * unknown key, an `expect:` that does not parse, a context path that cannot be one), names the
 * user's settings do not know (applications, environments), and context files that do not exist or
 * lie outside the workspace folder. Quick fixes offer the known names.
 */
export function registerQueryDiagnostics(context: vscode.ExtensionContext, deps: QueryDiagnosticsDeps): void {
  const collection = vscode.languages.createDiagnosticCollection('applicationQuery.queryFiles');
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const generations = new Map<string, number>();

  const check = async (doc: vscode.TextDocument): Promise<void> => {
    const key = doc.uri.toString();
    const generation = (generations.get(key) ?? 0) + 1;
    generations.set(key, generation);
    const diagnostics = await diagnose(doc, deps.catalog.parse(doc), deps);
    // A newer check (the user typed on) or a closed file wins.
    if (generations.get(key) !== generation || doc.isClosed) return;
    collection.set(doc.uri, diagnostics);
  };
  const schedule = (doc: vscode.TextDocument, delay: number): void => {
    if (!isQueryFile(doc.uri)) return;
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        void check(doc);
      }, delay),
    );
  };
  const checkAllOpen = (): void => {
    for (const doc of vscode.workspace.textDocuments) schedule(doc, 0);
  };

  context.subscriptions.push(
    collection,
    vscode.workspace.onDidOpenTextDocument((doc) => schedule(doc, 0)),
    vscode.workspace.onDidChangeTextDocument((e) => schedule(e.document, DEBOUNCE_MS)),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      clearTimeout(timers.get(doc.uri.toString()));
      timers.delete(doc.uri.toString());
      generations.delete(doc.uri.toString());
      collection.delete(doc.uri);
    }),
    vscode.workspace.onDidCreateFiles(checkAllOpen),
    vscode.workspace.onDidDeleteFiles(checkAllOpen),
    vscode.workspace.onDidRenameFiles(checkAllOpen),
    deps.settings.onDidChange(checkAllOpen),
    deps.current.onDidChange(checkAllOpen),
    vscode.languages.registerCodeActionsProvider({ pattern: '**/*.aq.md' }, new QueryFileFixes(deps.settings, deps.catalog), { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
    { dispose: () => timers.forEach((timer) => clearTimeout(timer)) },
  );
  checkAllOpen();
}

/** Every problem of one query file. */
async function diagnose(doc: vscode.TextDocument, parsed: ParsedQueryFile, deps: PlanDeps): Promise<vscode.Diagnostic[]> {
  const out: vscode.Diagnostic[] = [];
  for (const problem of parsed.problems) {
    const diagnostic = new vscode.Diagnostic(range(problem.span), plainText(problem.message), problem.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
    diagnostic.code = problem.code;
    out.push(withSource(diagnostic));
  }
  const known = knownNames(deps);
  const checks: Promise<void>[] = [];
  for (const query of parsed.queries) {
    for (const problem of queryTargets(query, known).problems) {
      const diagnostic = new vscode.Diagnostic(range(problem.span), plainText(problem.message), vscode.DiagnosticSeverity.Error);
      diagnostic.code = problem.code;
      out.push(withSource(diagnostic));
    }
    checks.push(checkChecks(doc, query, known, out));
    for (const ref of query.context) {
      checks.push(
        checkContextFile(doc.uri, ref).then((located) => {
          if (located.problem !== undefined) {
            const diagnostic = new vscode.Diagnostic(range(ref.span), plainText(located.problem), vscode.DiagnosticSeverity.Error);
            diagnostic.code = 'contextFile';
            out.push(withSource(diagnostic));
          }
        }),
      );
    }
  }
  await Promise.all(checks);
  return out.sort((a, b) => a.range.start.compareTo(b.range.start));
}

/**
 * The problems of a query's checks that need the settings or the disk: a judge application the
 * settings lack, a schema file that is missing or not a schema, a cases file that cannot be read,
 * and a `{{column}}` its cases file lacks.
 */
async function checkChecks(doc: vscode.TextDocument, query: QueryEntry, known: KnownNames, out: vscode.Diagnostic[]): Promise<void> {
  const add = (span: Span, message: string, code: string): void => {
    const diagnostic = new vscode.Diagnostic(range(span), plainText(message), vscode.DiagnosticSeverity.Error);
    diagnostic.code = code;
    out.push(withSource(diagnostic));
  };
  for (const e of query.expect) {
    if (e.kind === 'judgedBy' && findApplication(e.application, known.applications) === undefined) add(e.span, `There is no judge application "${e.application}" in applicationQuery.applications.`, 'unknownApplication');
  }
  const read = contextReader(doc.uri);
  if (query.expect.some((e) => e.kind === 'jsonSchema')) {
    const schemas = await loadSchemas(query.expect, read);
    for (const e of query.expect) {
      const schema = e.kind === 'jsonSchema' ? schemas.get(e.path) : undefined;
      if (schema !== undefined && 'error' in schema) add(e.span, `json schema: ${schema.error}`, 'schemaFile');
    }
  }
  if (query.cases === undefined) return;
  const table = await loadCases(query.cases, read);
  if ('error' in table) {
    add(query.cases.span, table.error, 'casesFile');
    return;
  }
  if (table.problems.length > 0) {
    const diagnostic = new vscode.Diagnostic(range(query.cases.span), plainText(`${table.problems.length === 1 ? 'A row' : 'Some rows'} of ${query.cases.path} cannot be read: ${table.problems.map((p) => p.message).join(' ')}`), vscode.DiagnosticSeverity.Warning);
    diagnostic.code = 'casesFile';
    out.push(withSource(diagnostic));
  }
  const questionLines = query.questionLine === undefined ? [] : query.question.split('\n');
  for (const missing of missingColumns(query, questionLines, table.columns)) {
    add(missing.span, `${query.cases.path} has no column "${missing.name}". Its columns: ${table.columns.slice(0, 12).join(', ')}${table.columns.length > 12 ? ', …' : ''}.`, 'unknownColumn');
  }
}

function withSource(diagnostic: vscode.Diagnostic): vscode.Diagnostic {
  diagnostic.source = SOURCE;
  return diagnostic;
}

/** A parser span as an editor range. */
export function range(span: Span): vscode.Range {
  return new vscode.Range(span.line, span.start, span.line, Math.max(span.start, span.end));
}

/** Quick fixes: a known application or environment in place of an unknown one, the key it most likely meant, or Add Application…. */
class QueryFileFixes implements vscode.CodeActionProvider {
  constructor(
    private readonly settings: Settings,
    private readonly catalog: QueryFileCatalog,
  ) {}

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== SOURCE) continue;
      const replaceWith = (title: string, text: string, where: vscode.Range = diagnostic.range, preferred = false): void => {
        const action = new vscode.CodeAction(plainText(title), vscode.CodeActionKind.QuickFix);
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(doc.uri, where, text);
        action.diagnostics = [diagnostic];
        action.isPreferred = preferred;
        actions.push(action);
      };
      switch (diagnostic.code) {
        case 'unknownApplication': {
          const apps = this.settings.applications().applications;
          apps.slice(0, 10).forEach((app, i) => replaceWith(`Use the application ${app.id}`, app.id, diagnostic.range, apps.length === 1 && i === 0));
          const add = new vscode.CodeAction('Add Application…', vscode.CodeActionKind.QuickFix);
          add.command = { command: Commands.addApplication, title: 'Add Application…' };
          add.diagnostics = [diagnostic];
          actions.push(add);
          break;
        }
        case 'unknownEnvironment': {
          const environments = this.settings.environments().environments;
          environments.forEach((e) => replaceWith(`Use the environment ${e.name}`, e.name, diagnostic.range, environments.length === 1));
          break;
        }
        case 'unknownKey': {
          const line = doc.lineAt(diagnostic.range.start.line).text;
          const match = /^(\s*[-*+]\s+)([A-Za-z0-9_-]+)(\s*:)/.exec(line);
          const at = diagnostic.range.start.line;
          const suggestion = this.catalog.parse(doc).problems.find((p) => p.code === 'unknownKey' && p.span.line === at)?.suggestion;
          if (match !== null && suggestion !== undefined) {
            const start = match[1].length;
            replaceWith(`Change to ${suggestion}:`, suggestion, new vscode.Range(diagnostic.range.start.line, start, diagnostic.range.start.line, start + match[2].length), true);
          }
          break;
        }
        case 'noApplication': {
          const add = new vscode.CodeAction('Add Application…', vscode.CodeActionKind.QuickFix);
          add.command = { command: Commands.addApplication, title: 'Add Application…' };
          add.diagnostics = [diagnostic];
          actions.push(add);
          break;
        }
        default:
          break;
      }
    }
    return actions;
  }
}
