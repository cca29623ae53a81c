import * as vscode from 'vscode';
import { formatBytes, formatDuration } from '../../shared/format';
import { KeyedLimiter } from '../../shared/limiter';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInput } from '../../shared/prepare';
import { plain, plainText } from '../../shared/plainText';
import { checkExpectations, duration, type Expectation, type ExpectationResult, type Judgement, type OutsideVerdicts, type QueryEntry } from '../../shared/queryFile';
import { withAbortSignal } from '../platform/cancellation';
import type { QueryRunner } from '../query/runner';
import { CollectSink } from './collectSink';
import { askJudges, loadSchemas } from './outsideChecks';
import type { QueryFileCatalog, CatalogEntry } from './catalog';
import { knownNames, planQuery, type PlanDeps } from './plan';
import { queryTargets, type KnownNames, type QueryTarget } from '../../shared/queryFile/targets';
import { requireTrust, TRUST_MESSAGE } from './trust';

/** The test controller's id and label (the product's contract). */
export const CONTROLLER_ID = 'applicationQuery.queries';
const CONTROLLER_LABEL = 'Application Query';

/** How many characters of an answer are kept to check expectations against (the rest is counted, not kept). */
const ANSWER_CAP_CHARS = 4 * 1024 * 1024;

/** What the Testing view needs. */
export interface QueryTestingDeps extends PlanDeps {
  readonly runner: QueryRunner;
  readonly catalog: QueryFileCatalog;
}

/** A leaf ready to send: its query as the file says now, and where it goes. */
interface PlannedLeaf {
  readonly item: vscode.TestItem;
  readonly file: vscode.Uri;
  readonly query: QueryEntry;
  readonly target: QueryTarget;
  readonly input: QueryInput;
  /** The origin it goes to (the limiter's key). */
  readonly service: string;
}

/** Which query (and which of its applications) a test item stands for. */
interface ItemRef {
  readonly file: vscode.Uri;
  /** The query's name and its position among queries of that name in the file (names are the key: results survive reordering). */
  readonly name: string;
  readonly occurrence: number;
  /** Set on a per-application child of a query with several applications. */
  readonly applicationId?: string;
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
    if (entry === undefined || entry.parsed.queries.length === 0) {
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
      if (query.applications.length > 1 && targets.length > 1) {
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

  /** A test run: every item asked for (files expand to their queries), in file order, at most a few per service at once. */
  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request, undefined, true);
    const leaves = this.leaves(request);
    try {
      if (!requireTrust()) {
        for (const leaf of leaves) run.errored(leaf, new vscode.TestMessage(TRUST_MESSAGE));
        return;
      }
      for (const leaf of leaves) run.enqueued(leaf);
      const limiter = new KeyedLimiter(this.deps.settings.queryConcurrency());
      // Stop in the Testing view cancels the run's own token (also for a run Run Query File started); a profile's run has the request's too.
      await withAbortSignal(token, (request) =>
        withAbortSignal(run.token, async (view) => {
          const signal = AbortSignal.any([request, view]);
          const files = new Map<string, Promise<CatalogEntry | undefined>>();
          const known = knownNames(this.deps);
          const planned = (await Promise.all(leaves.map((leaf) => this.planLeaf(run, leaf, files, known)))).filter((leaf) => leaf !== undefined);
          return Promise.all(planned.map((leaf) => this.runLeaf(run, leaf, limiter, signal, known)));
        }),
      );
    } finally {
      run.end();
    }
  }

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
   * What one leaf sends, read from the file as it is now (its plan), or undefined after reporting
   * why it cannot run. Every leaf is planned before any is queued, so the queue follows file order.
   */
  private async planLeaf(run: vscode.TestRun, item: vscode.TestItem, files: Map<string, Promise<CatalogEntry | undefined>>, known: KnownNames): Promise<PlannedLeaf | undefined> {
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
    const plan = await planQuery(ref.file, query, this.deps, known);
    if (!plan.ok) {
      run.errored(item, located(new vscode.TestMessage(plainText(plan.message)), ref.file, plan.line));
      return undefined;
    }
    const target = plan.targets.find((t) => ref.applicationId === undefined || t.applicationId === ref.applicationId) ?? plan.targets[0];
    const service = target.environment === undefined ? this.deps.settings.baseUrl() : this.deps.settings.serviceFor(target.environment);
    return { item, file: ref.file, query, target, input: plan.input(target), service: service.ok ? service.origin : '' };
  }

  /** Sends one planned leaf (each of its runs) when its service has a free place, and reports it. */
  private async runLeaf(run: vscode.TestRun, leaf: PlannedLeaf, limiter: KeyedLimiter, signal: AbortSignal, known: KnownNames): Promise<void> {
    const schemas = await loadSchemas(leaf.file, leaf.query.expect);
    await limiter.run(leaf.service, async () => {
      if (signal.aborted) {
        run.skipped(leaf.item);
        return;
      }
      run.started(leaf.item);
      const runs = leaf.query.runs ?? 1;
      const verdicts: RunVerdict[] = [];
      for (let i = 0; i < runs && !signal.aborted; i++) {
        const sink = new CollectSink(ANSWER_CAP_CHARS);
        const environment = leaf.target.environment === undefined ? {} : { environment: leaf.target.environment };
        const outcome = await this.deps.runner.run(leaf.input, [sink], { surface: 'queryFile', signal, promptForKey: false, ...environment });
        const answered = outcome.kind === 'done' && outcome.httpStatus !== undefined && outcome.httpStatus >= 200 && outcome.httpStatus <= 299;
        const judgements = answered
          ? await askJudges(leaf.query.expect, { runner: this.deps.runner, known, question: leaf.query.question, answer: sink.text, signal, ...environment })
          : new Map<Expectation, Judgement>();
        const verdict = checkRun(leaf.query, sink, outcome, { schemas, judgements });
        verdicts.push(verdict);
        run.appendOutput(terminalText(runOutput(leaf, sink, outcome, verdict, runs > 1 ? `run ${i + 1} of ${runs}` : undefined)), undefined, leaf.item);
      }
      this.report(run, leaf, verdicts);
    });
  }

  /** The leaf's result: one run as before; several runs pass when at least `passes` of them met every expectation. */
  private report(run: vscode.TestRun, leaf: PlannedLeaf, verdicts: readonly RunVerdict[]): void {
    const { item, file, query } = leaf;
    const runs = query.runs ?? 1;
    const last = verdicts[verdicts.length - 1];
    if (last === undefined || last.kind === 'stopped') {
      run.skipped(item);
      return;
    }
    const total = verdicts.reduce((ms, v) => ms + v.outcome.durationMs, 0);
    if (runs === 1) {
      if (last.kind === 'notSent') run.errored(item, located(new vscode.TestMessage(plainText(last.message)), file, query.headingLine), total);
      else if (last.failed.length === 0) run.passed(item, total);
      else run.failed(item, last.failed.map((result) => failureMessage(result, file, query)), total);
      return;
    }
    if (verdicts.every((v) => v.kind === 'notSent')) {
      run.errored(item, located(new vscode.TestMessage(plainText(last.kind === 'notSent' ? last.message : 'Not sent.')), file, query.headingLine), total);
      return;
    }
    const needed = query.passes ?? runs;
    const passed = verdicts.filter((v) => v.kind === 'checked' && v.failed.length === 0).length;
    const summary = `${passed} of ${runs} runs passed${needed === runs ? '' : ` (${needed} needed)`}.`;
    run.appendOutput(terminalText(`${summary}\n`), undefined, item);
    if (passed >= needed) {
      run.passed(item, total);
      return;
    }
    const messages = [located(new vscode.TestMessage(plainText(`${summary} ${needed === runs ? 'Every run must pass.' : `At least ${needed} must.`}`)), file, query.headingLine)];
    verdicts.forEach((v, i) => {
      if (v.kind === 'notSent') messages.push(located(new vscode.TestMessage(plainText(`Run ${i + 1}: ${v.message}`)), file, query.headingLine));
      else if (v.kind === 'checked') for (const result of v.failed) messages.push(failureMessage({ ...result, message: `Run ${i + 1}: ${result.message}` }, file, query));
    });
    run.failed(item, messages, total);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** The query an item stands for, by name and occurrence (its position may have moved). */
function findQuery(queries: readonly QueryEntry[], ref: ItemRef): QueryEntry | undefined {
  return queries.filter((q) => q.name === ref.name)[ref.occurrence];
}

/** What one run of a leaf came to: stopped, not sent (and why), or checked (with the expectations that failed). */
type RunVerdict =
  | { readonly kind: 'stopped'; readonly outcome: QueryOutcome }
  | { readonly kind: 'notSent'; readonly outcome: QueryOutcome; readonly message: string }
  | { readonly kind: 'checked'; readonly outcome: QueryOutcome; readonly results: readonly ExpectationResult[]; readonly failed: readonly ExpectationResult[] };

/** Checks one run's answer against the query's expectations (with the schemas and judges' verdicts found for it). */
function checkRun(query: QueryEntry, sink: CollectSink, outcome: QueryOutcome, outside: OutsideVerdicts): RunVerdict {
  if (outcome.kind === 'stopped') return { kind: 'stopped', outcome };
  // Nothing was sent (no key, a setting): the query could not be tested.
  if (outcome.httpStatus === undefined && outcome.exchangeId === undefined) return { kind: 'notSent', outcome, message: outcome.message ?? 'Not sent.' };
  const results = checkExpectations(
    query.expect,
    { status: outcome.httpStatus, answer: sink.text, firstByteMs: outcome.firstByteMs, totalMs: outcome.durationMs, kind: outcome.kind, message: outcome.message, maxGapMs: outcome.maxGapMs },
    outside,
  );
  return { kind: 'checked', outcome, results, failed: results.filter((result) => !result.passed) };
}

/** One run in the test's output: what came back (status, timings, the stream's pace), the answer, and each check. */
function runOutput(leaf: PlannedLeaf, sink: CollectSink, outcome: QueryOutcome, verdict: RunVerdict, which: string | undefined): string {
  const { query, target } = leaf;
  const header = `${query.name} → ${target.applicationLabel}${target.environment === undefined ? '' : ` (${target.environment})`}${which === undefined ? '' : `, ${which}`}`;
  const facts = [
    outcome.httpStatus === undefined ? 'no response' : `HTTP ${outcome.httpStatus}`,
    outcome.firstByteMs === undefined ? undefined : `first byte ${formatDuration(outcome.firstByteMs)}`,
    `total ${formatDuration(outcome.durationMs)}`,
    outcome.maxGapMs === undefined ? undefined : `longest gap ${duration(outcome.maxGapMs)}`,
    `${formatBytes(outcome.wireBytes)} received`,
    `${outcome.textChars} characters`,
  ].filter((part) => part !== undefined);
  const lines = [`── ${header}`, facts.join(' · ')];
  if (outcome.message !== undefined) lines.push(outcome.message);
  if (outcome.warning !== undefined) lines.push(outcome.warning);
  lines.push('', sink.text + (sink.cut ? `\n[… the answer continues: ${outcome.textChars} characters in all; expectations were checked against the first ${sink.text.length}]` : ''), '');
  if (verdict.kind === 'checked') for (const result of verdict.results) lines.push(`${result.passed ? '✓' : result.notRun === true ? '–' : '✗'} ${result.message}`);
  lines.push('');
  return lines.join('\n');
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

/** Text for the test output (a terminal): CRLF line ends, and no escape sequence from an answer can style, move or link anything. */
function terminalText(text: string): string {
  return plainText(text).replace(/\r?\n/g, '\r\n');
}

function basename(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf('/') + 1);
}

/** What of the known names decides the tree (ids, names, environments, the current application). */
function signature(known: KnownNames): string {
  return JSON.stringify([known.applications.map((app) => [app.id, app.name]), known.environments.map((e) => e.name), known.currentApplication]);
}
