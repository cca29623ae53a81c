import * as vscode from 'vscode';
import { AnswerCollector, planQuery, runQueries, type PlannedQuery, type QueryResult, type QuerySender, type SentQuery } from '../../client/queryFiles/engine';
import { outcomeFacts } from '../../client/queryFiles/facts';
import { serviceOrigin } from '../../client/queryFiles/sources';
import type { QueryOutcome } from '../../shared/outcome';
import { plain, plainText, terminalText } from '../../shared/plainText';
import { caseLabel, caseQuery, type CasesTable, type ExpectationResult, type QueryEntry, type Span } from '../../shared/queryFile';
import { loadCases } from '../../client/queryFiles/checks';
import { withAbortSignal } from '../platform/cancellation';
import type { QueryRunner } from '../query/runner';
import type { QueryInfo, QuerySink } from '../query/types';
import type { QueryFileCatalog, CatalogEntry } from './catalog';
import { contextReader } from './contextFiles';
import { knownNames, type PlanDeps } from './plan';
import { queryTargets, type KnownNames, type QueryTarget } from '../../shared/queryFile/targets';
import { vscodeModelJudge } from './modelJudge';
import { requireTrust, TRUST_MESSAGE } from './trust';

/** The test controller's id and label (the product's contract). */
export const CONTROLLER_ID = 'applicationQuery.queries';
const CONTROLLER_LABEL = 'Application Query';

/** What the Testing view needs. */
export interface QueryTestingDeps extends PlanDeps {
  readonly runner: QueryRunner;
  readonly catalog: QueryFileCatalog;
}

/** What the Testing view keeps with each planned query to report it. */
interface Leaf {
  readonly item: vscode.TestItem;
  readonly file: vscode.Uri;
}

/** Which query (and which of its applications) a test item stands for. */
interface ItemRef {
  readonly file: vscode.Uri;
  /** The query's name and its position among queries of that name in the file (names are the key: results survive reordering). */
  readonly name: string;
  readonly occurrence: number;
  /** Set on a per-application child of a query with several applications. */
  readonly applicationId?: string;
  /** Set on a case of a query with a cases file: its row number (1-based). */
  readonly caseNumber?: number;
}

/**
 * VS Code's Testing view for query files: every `*.aq.md` file of the workspace, each query in it
 * (and, for a query with several applications, one child per application), kept current as files
 * change. Running sends each query, checks its expectations and reports them; nothing streams into
 * a panel, and every exchange is recorded in History like any other query.
 */
export class QueryTesting implements vscode.Disposable {
  readonly controller: vscode.TestController;
  /** The one run profile (Run). */
  readonly runProfile: vscode.TestRunProfile;
  private readonly refs = new WeakMap<vscode.TestItem, ItemRef>();
  private readonly disposables: vscode.Disposable[] = [];
  private knownCache: KnownNames | undefined;
  private knownSignature = '';
  /** The History entry of each item's latest run (this window's), for Show Changes Since Last Run. */
  private readonly exchanges = new Map<string, string>();
  /** The latest listing of each query's cases (by item id), so an older one that ends later is dropped. */
  private readonly caseListings = new Map<string, number>();

  constructor(private readonly deps: QueryTestingDeps) {
    this.knownSignature = signature(this.known());
    this.controller = vscode.tests.createTestController(CONTROLLER_ID, CONTROLLER_LABEL);
    this.controller.resolveHandler = async (item) => {
      if (item === undefined) await this.deps.catalog.discover();
    };
    this.controller.refreshHandler = async () => {
      await this.deps.catalog.discover(true);
    };
    this.runProfile = this.controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
    for (const entry of deps.catalog.all()) this.update(entry.uri, entry);
    this.disposables.push(
      this.controller,
      deps.catalog.onDidChange(({ uri, entry }) => this.update(uri, entry)),
      // Only the names decide the per-application children: any other setting (a timeout, the concurrency) rebuilds nothing.
      deps.settings.onDidChange(() => this.namesChanged()),
      deps.current.onDidChange(() => this.namesChanged()),
    );
  }

  /** Runs every query of one file, as the Testing view would (Run Query File, the file's CodeLens). */
  async runFile(uri: vscode.Uri): Promise<void> {
    await this.deps.catalog.discover();
    let item = this.controller.items.get(uri.toString());
    if (item === undefined) {
      const entry = await this.deps.catalog.current(uri);
      if (entry === undefined) return;
      this.update(uri, entry);
      item = this.controller.items.get(uri.toString());
    }
    if (item === undefined) return;
    const cancel = new vscode.CancellationTokenSource();
    try {
      await this.run(new vscode.TestRunRequest([item]), cancel.token);
    } finally {
      cancel.dispose();
    }
  }

  /** The names query files are checked against, read once until the settings change (listing 200 files reads them once, not 200 times). */
  private known(): KnownNames {
    this.knownCache ??= knownNames(this.deps);
    return this.knownCache;
  }

  private namesChanged(): void {
    const before = this.knownSignature;
    this.knownCache = undefined;
    this.knownSignature = signature(this.known());
    if (this.knownSignature === before) return;
    for (const entry of this.deps.catalog.all()) this.update(entry.uri, entry);
  }

  private update(uri: vscode.Uri, entry: CatalogEntry | undefined): void {
    const id = uri.toString();
    if (entry === undefined || (entry.parsed.queries.length === 0 && entry.tooLarge === undefined)) {
      this.controller.items.delete(id);
      return;
    }
    let fileItem = this.controller.items.get(id);
    if (fileItem === undefined) {
      fileItem = this.controller.createTestItem(id, plainText(basename(uri)), uri);
      // Where the file is: its folder in the workspace (and the workspace folder's name when there are several).
      const relative = vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
      const folder = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : '';
      if (folder !== '') fileItem.description = plainText(folder);
      // A range, so that clicking the file's row opens it (and the gutter offers to run the whole file).
      fileItem.range = new vscode.Range(0, 0, 0, 0);
      this.refs.set(fileItem, { file: uri, name: '', occurrence: -1 });
      this.controller.items.add(fileItem);
    }
    // A file over the size limit is listed with its problem and no queries: it was never parsed.
    const error = entry.tooLarge === undefined ? undefined : plainText(entry.parsed.problems[0]?.message ?? '');
    if (fileItem.error !== error) fileItem.error = error;
    if (entry.tooLarge !== undefined) {
      fileItem.children.replace([]);
      return;
    }
    const known = this.known();
    const seen = new Map<string, number>();
    const children: vscode.TestItem[] = [];
    for (const query of entry.parsed.queries) {
      const occurrence = seen.get(query.name) ?? 0;
      seen.set(query.name, occurrence + 1);
      const queryId = `${id}#${occurrence}:${query.name}`;
      const item = fileItem.children.get(queryId) ?? this.controller.createTestItem(queryId, plainText(query.name), uri);
      // Unchanged properties are not set again: each assignment is an update the Testing view has to process.
      const label = plainText(query.name);
      if (item.label !== label) item.label = label;
      const range = new vscode.Range(query.headingLine, 0, query.headingLine, 0);
      if (item.range?.isEqual(range) !== true) item.range = range;
      const sortText = String(query.index).padStart(6, '0');
      if (item.sortText !== sortText) item.sortText = sortText;
      this.refs.set(item, { file: uri, name: query.name, occurrence });
      const { targets } = queryTargets(query, known);
      if (query.cases !== undefined) {
        void this.listCases(item, { file: uri, name: query.name, occurrence }, query.cases);
      } else if (query.applications.length > 1 && targets.length > 1) {
        item.children.replace(
          targets.map((target, i) => {
            const childId = `${queryId}@${target.applicationId}`;
            const child = item.children.get(childId) ?? this.controller.createTestItem(childId, plain`on ${target.applicationLabel}`, uri);
            child.range = item.range;
            child.sortText = String(i).padStart(4, '0');
            this.refs.set(child, { file: uri, name: query.name, occurrence, applicationId: target.applicationId });
            return child;
          }),
        );
      } else {
        item.children.replace([]);
      }
      children.push(item);
    }
    fileItem.children.replace(children);
  }

  /**
   * A query's cases as its children, one per row (read in the background, so a file of thousands
   * of rows never holds up the tree); a file that cannot be read shows its reason on the query.
   */
  private async listCases(item: vscode.TestItem, ref: ItemRef, cases: { readonly path: string; readonly span: Span }): Promise<void> {
    const generation = (this.caseListings.get(item.id) ?? 0) + 1;
    this.caseListings.set(item.id, generation);
    const table = await loadCases(cases, contextReader(ref.file));
    // A newer listing (the file changed again) wins.
    if (this.caseListings.get(item.id) !== generation) return;
    if ('error' in table) {
      item.error = plainText(table.error);
      item.children.replace([]);
      return;
    }
    item.error = undefined;
    item.children.replace(
      table.rows.map((row) => {
        const child = this.controller.createTestItem(`${item.id}~${row.number}`, plainText(caseLabel(row)), ref.file);
        child.range = item.range;
        child.sortText = String(row.number).padStart(6, '0');
        this.refs.set(child, { ...ref, caseNumber: row.number });
        return child;
      }),
    );
  }

  /** A test run: every item asked for (files expand to their queries), in file order, at most a few per service at once (the engine's run). */
  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request, undefined, true);
    const leaves = this.leaves(request);
    try {
      if (!requireTrust()) {
        // eslint-disable-next-line aq/outside-text -- TRUST_MESSAGE is the extension's own sentence (./trust).
        for (const leaf of leaves) run.errored(leaf, new vscode.TestMessage(TRUST_MESSAGE));
        return;
      }
      for (const leaf of leaves) run.enqueued(leaf);
      // Stop in the Testing view cancels the run's own token (also for a run Run Query File started); a profile's run has the request's too.
      await withAbortSignal(token, (request) =>
        withAbortSignal(run.token, async (view) => {
          const signal = AbortSignal.any([request, view]);
          const files = new Map<string, Promise<CatalogEntry | undefined>>();
          const known = knownNames(this.deps);
          const cases: CaseFiles = new Map();
          const planned = (await Promise.all(leaves.map((leaf) => this.planLeaf(run, leaf, files, known, cases)))).filter((leaf) => leaf !== undefined);
          await runQueries(planned, this.send, {
            concurrency: this.deps.settings.queryConcurrency(),
            signal,
            listener: { started: (leaf) => run.started(leaf.tag.item), ended: (leaf, result) => this.report(run, leaf, result) },
            checks: { known, askModel: vscodeModelJudge },
          });
        }),
      );
    } finally {
      run.end();
    }
  }

  /** The editor's way to send a query of a test run: through the runner, so it is masked, timed and recorded in History like any other. */
  private readonly send: QuerySender = async (input, target, signal) => {
    const answer = new CollectSink();
    const outcome = await this.deps.runner.run(input, [answer], {
      surface: 'queryFile',
      signal,
      promptForKey: false,
      ...(target.environment === undefined ? {} : { environment: target.environment }),
    });
    return { outcome, answer: answer.text, cut: answer.cut, sent: outcome.httpStatus !== undefined || outcome.exchangeId !== undefined };
  };

  /** The items that run: the asked-for ones, or all; a file or a query with children expands to its leaves; excluded ones are left out. */
  private leaves(request: vscode.TestRunRequest): vscode.TestItem[] {
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    const out: vscode.TestItem[] = [];
    const walk = (item: vscode.TestItem): void => {
      if (excluded.has(item.id)) return;
      if (item.children.size === 0) {
        if (this.refs.get(item)?.occurrence !== -1) out.push(item);
        return;
      }
      const children: vscode.TestItem[] = [];
      item.children.forEach((child) => children.push(child));
      children.sort((a, b) => (a.sortText ?? '').localeCompare(b.sortText ?? ''));
      for (const child of children) walk(child);
    };
    if (request.include !== undefined) for (const item of request.include) walk(item);
    else {
      const files: vscode.TestItem[] = [];
      this.controller.items.forEach((item) => files.push(item));
      files.sort((a, b) => (a.uri?.path ?? '').localeCompare(b.uri?.path ?? ''));
      for (const file of files) walk(file);
    }
    return out;
  }

  /**
   * Which query one leaf runs and where, from the file as it is now (its plan), or undefined after
   * reporting why it cannot run. Every leaf is planned before any is queued, so the queue follows
   * file order; context files are read only when a query's turn comes.
   */
  private async planLeaf(run: vscode.TestRun, item: vscode.TestItem, files: Map<string, Promise<CatalogEntry | undefined>>, known: KnownNames, cases: CaseFiles): Promise<PlannedQuery<Leaf> | undefined> {
    const ref = this.refs.get(item);
    if (ref === undefined) return undefined;
    // Each file is read and parsed once per run, however many of its queries run.
    let reading = files.get(ref.file.toString());
    if (reading === undefined) {
      reading = this.deps.catalog.current(ref.file);
      files.set(ref.file.toString(), reading);
    }
    const entry = await reading;
    const query = entry === undefined ? undefined : findQuery(entry.parsed.queries, ref);
    if (query === undefined) {
      run.errored(item, new vscode.TestMessage(plain`The query "${ref.name}" is no longer in ${basename(ref.file)}.`));
      return undefined;
    }
    const cased = await this.caseOf(query, ref, cases);
    if ('error' in cased) {
      run.errored(item, located(new vscode.TestMessage(plainText(cased.error)), ref.file, cased.line));
      return undefined;
    }
    const plan = planQuery(cased.query, known);
    if (!plan.ok) {
      run.errored(item, located(new vscode.TestMessage(plainText(plan.message)), ref.file, plan.line));
      return undefined;
    }
    const target = plan.targets.find((t) => ref.applicationId === undefined || t.applicationId === ref.applicationId) ?? plan.targets[0];
    return { tag: { item, file: ref.file }, query: cased.query, target, service: serviceOrigin(this.deps.settings, target), readContext: contextReader(ref.file) };
  }

  /** The query one leaf runs: the query itself, or for a case its row filled in (each cases file read once per run). */
  private async caseOf(query: QueryEntry, ref: ItemRef, cases: CaseFiles): Promise<{ query: QueryEntry } | { error: string; line: number }> {
    if (query.cases === undefined) return { query };
    const line = query.cases.span.line;
    const key = `${ref.file.toString()}\n${query.cases.path}`;
    let reading = cases.get(key);
    if (reading === undefined) {
      reading = loadCases(query.cases, contextReader(ref.file));
      cases.set(key, reading);
    }
    const table = await reading;
    if ('error' in table) return { error: `Not sent: ${table.error}`, line };
    if (ref.caseNumber === undefined) return { error: 'Run its cases: this query takes its questions from a cases file, and they are not listed yet.', line };
    const row = table.rows.find((r) => r.number === ref.caseNumber);
    if (row === undefined) return { error: `Case ${ref.caseNumber} is no longer in ${query.cases.path}.`, line };
    const filled = caseQuery(query, row);
    return 'error' in filled ? filled : { query: filled };
  }

  /** One leaf's result in the Testing view: the answer and its facts in the output, then its state. */
  private report(run: vscode.TestRun, leaf: PlannedQuery<Leaf>, result: QueryResult): void {
    const { item, file } = leaf.tag;
    const { query, target } = leaf;
    const repeats = result.verdict === 'passed' || result.verdict === 'failed' ? result.repeats : undefined;
    const exchangeId = result.sent?.outcome.exchangeId;
    if (exchangeId !== undefined) {
      this.exchanges.set(item.id, exchangeId);
      // The query's own item finds its latest run too, when it ran as its only application's or case's child.
      if (item.parent !== undefined && item.parent.children.size === 1) this.exchanges.set(item.parent.id, exchangeId);
    }
    if (repeats !== undefined) {
      repeats.runs.forEach((one, i) => {
        if (one.sent !== undefined) run.appendOutput(terminalText(outputText(query, target, one.sent, `run ${i + 1} of ${repeats.runs.length}`, checksOf(one))), undefined, item);
      });
      run.appendOutput(terminalText(`${repeats.passed} of ${repeats.runs.length} runs passed${repeats.needed === repeats.runs.length ? '' : ` (${repeats.needed} needed)`}.\n`), undefined, item);
    } else if (result.sent !== undefined) {
      run.appendOutput(terminalText(outputText(query, target, result.sent, undefined, checksOf(result))), undefined, item);
    }
    switch (result.verdict) {
      case 'skipped':
        run.skipped(item);
        return;
      case 'errored':
        // Nothing was sent (no key, a setting, a context file): the query could not be tested.
        run.errored(item, located(new vscode.TestMessage(plainText(result.message)), file, result.line), result.sent?.outcome.durationMs);
        return;
      case 'passed':
        run.passed(item, result.sent.outcome.durationMs);
        return;
      case 'failed':
        run.failed(
          item,
          result.checks.filter((check) => !check.passed).map((check) => failureMessage(check, file, query)),
          result.sent.outcome.durationMs,
        );
        return;
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  /** The History entry of an item's latest run in this window, if it ran. */
  latestExchange(itemId: string): string | undefined {
    return this.exchanges.get(itemId);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** The cases files a run has read (by query file and path), each once. */
type CaseFiles = Map<string, Promise<CasesTable | { readonly error: string }>>;

/** The query an item stands for, by name and occurrence (its position may have moved). */
function findQuery(queries: readonly QueryEntry[], ref: ItemRef): QueryEntry | undefined {
  return queries.filter((q) => q.name === ref.name)[ref.occurrence];
}

/** A failed expectation as the Testing view shows it: the words, and a diff where expected and actual texts exist. */
function failureMessage(result: ExpectationResult, file: vscode.Uri, query: QueryEntry): vscode.TestMessage {
  const message =
    result.expected !== undefined && result.actual !== undefined
      ? vscode.TestMessage.diff(plainText(result.message), result.expected, result.actual)
      : new vscode.TestMessage(plainText(result.message));
  return located(message, file, result.expectation?.span.line ?? query.headingLine);
}

function located(message: vscode.TestMessage, file: vscode.Uri, line: number): vscode.TestMessage {
  message.location = new vscode.Location(file, new vscode.Position(line, 0));
  return message;
}

function basename(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf('/') + 1);
}

/** Keeps an answer's text (up to a cap) to check expectations against. */
class CollectSink extends AnswerCollector implements QuerySink {
  start(_info: QueryInfo): void {}

  end(_outcome: QueryOutcome): void {}
}

/** What the test output shows of one exchange: where it went, its facts, its messages and the answer. */
function outputText(query: QueryEntry, target: QueryTarget, sent: SentQuery, which: string | undefined, checks: readonly ExpectationResult[]): string {
  const { outcome } = sent;
  const header = `${query.name} → ${target.applicationLabel}${target.environment === undefined ? '' : ` (${target.environment})`}${which === undefined ? '' : `, ${which}`}`;
  const lines = [`── ${header}`, outcomeFacts(outcome)];
  if (outcome.message !== undefined) lines.push(outcome.message);
  if (outcome.warning !== undefined) lines.push(outcome.warning);
  lines.push('', sent.answer + (sent.cut ? `\n[… the answer continues: ${outcome.textChars} characters in all; expectations were checked against the first ${sent.answer.length}]` : ''), '');
  // Each check with its verdict: a judge's reason and the longest gap show here also when they pass.
  for (const check of checks) lines.push(`${check.passed ? '✓' : check.notRun === true ? '–' : '✗'} ${check.message}`);
  if (checks.length > 0) lines.push('');
  return lines.join('\n');
}

/** The checks of one result (none for a query that was not sent or was stopped). */
function checksOf(result: QueryResult): readonly ExpectationResult[] {
  return result.verdict === 'passed' || result.verdict === 'failed' ? result.checks : [];
}

/** What of the known names decides the tree (ids, names, environments, the current application). */
function signature(known: KnownNames): string {
  return JSON.stringify([known.applications.map((app) => [app.id, app.name]), known.environments.map((e) => e.name), known.currentApplication]);
}
