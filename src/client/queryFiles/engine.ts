import { KeyedLimiter } from '../../shared/limiter';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInput } from '../../shared/prepare';
import { checkExpectations, type ExpectationResult, type OutsideVerdicts, type QueryEntry } from '../../shared/queryFile';
import { queryTargets, type KnownNames, type QueryTarget } from '../../shared/queryFile/targets';
import { askJudges, loadSchemas, type ModelJudge } from './checks';
import { readQueryContext, type ContextFileReader } from './contextText';

/** Why a query cannot be sent (nothing was), and the line of the query file that says so. */
export interface PlanProblem {
  readonly ok: false;
  readonly message: string;
  readonly line: number;
}

/** A query ready to send: the requests it makes. Its context is read when each request is about to go out. */
export interface QueryPlan {
  readonly ok: true;
  readonly targets: readonly QueryTarget[];
}

/**
 * Which requests a query makes, checked against the user's settings (applications, environments),
 * or why none is sent. A query with a line that does not parse is not sent at all. Reads no file.
 */
export function planQuery(query: QueryEntry, known: KnownNames): QueryPlan | PlanProblem {
  // A line of the query that does not parse (a context path, an expectation, a key) stops all of it: nothing half-set-up is sent.
  const broken = query.problems.find((problem) => problem.severity === 'error');
  if (broken !== undefined) return { ok: false, message: `Not sent: ${broken.message}`, line: broken.span.line };
  const { targets, problems } = queryTargets(query, known);
  if (problems.length > 0) return { ok: false, message: problems[0].message, line: problems[0].span.line };
  if (query.question.trim() === '' && query.context.length === 0) return noQuestion(query);
  return { ok: true, targets };
}

function noQuestion(query: QueryEntry): PlanProblem {
  return { ok: false, message: 'Not sent: the query has no question and no context.', line: query.headingLine };
}

/** The input a query sends to one target, its context files read (inside the fence) now; or why it cannot be sent. */
export async function queryInput(query: QueryEntry, target: QueryTarget, read: ContextFileReader): Promise<QueryInput | PlanProblem> {
  const context = await readQueryContext(query.context, read);
  if (!context.ok) return { ok: false, message: `Not sent: ${context.message}`, line: context.ref.span.line };
  if (query.question.trim() === '' && context.context === undefined) return noQuestion(query);
  return { applicationId: target.applicationId, question: query.question, ...(context.context === undefined ? {} : { context: context.context }) };
}

/** What sending one query's request gives back: how it ended, the (masked) answer kept to check, and whether a request went out. */
export interface SentQuery {
  readonly outcome: QueryOutcome;
  /** The answer as shown (keys masked), up to {@link ANSWER_CAP_CHARS}. */
  readonly answer: string;
  /** Whether the answer went on past what was kept. */
  readonly cut: boolean;
  /** Whether a request reached the wire (false: a missing key or a setting stopped it before). */
  readonly sent: boolean;
}

/** Sends one query's input to its target: the editor's runner (keys from SecretStorage, History) or the command line's (keys from the environment). */
export type QuerySender = (input: QueryInput, target: QueryTarget, signal: AbortSignal) => Promise<SentQuery>;

/** How many characters of an answer are kept to check expectations against (the rest is counted, not kept). */
export const ANSWER_CAP_CHARS = 4 * 1024 * 1024;

/** One query of a query file against one target, planned and waiting for its turn. */
export interface PlannedQuery<Tag> {
  /** Whatever the caller needs to report it (a test item, a file name). */
  readonly tag: Tag;
  readonly query: QueryEntry;
  readonly target: QueryTarget;
  /** The service it goes to (its origin): the concurrency limit counts per service. */
  readonly service: string;
  /** Reads its context files, inside the fence of its query file's folder. */
  readonly readContext: ContextFileReader;
}

/** How one query ended, as every reporter (the Testing view, the command line) reports it. */
export type QueryResult =
  /** Not sent: a context file outside the fence, a missing key, a setting. */
  | { readonly verdict: 'errored'; readonly message: string; readonly line: number; readonly sent?: SentQuery }
  /** Stopped before or while it ran. */
  | { readonly verdict: 'skipped'; readonly sent?: SentQuery }
  | {
      readonly verdict: 'passed' | 'failed';
      readonly sent: SentQuery;
      readonly checks: readonly ExpectationResult[];
      /** For a query with `- runs:` above 1: each run's own result, in order, and how many passed. */
      readonly repeats?: { readonly runs: readonly QueryResult[]; readonly passed: number; readonly needed: number };
    };

/** What checking needs beyond the exchange: the names (to find a judge application) and, in the editor, a model judge. */
export interface CheckOptions {
  readonly known?: KnownNames;
  readonly askModel?: ModelJudge;
}

/** Checks what came back against the query's expectations. */
export function verdictOf(query: QueryEntry, sent: SentQuery, outside: OutsideVerdicts = {}): QueryResult {
  const { outcome } = sent;
  if (outcome.kind === 'stopped') return { verdict: 'skipped', sent };
  if (!sent.sent) return { verdict: 'errored', message: outcome.message ?? 'Not sent.', line: query.headingLine, sent };
  const checks = checkExpectations(
    query.expect,
    { status: outcome.httpStatus, answer: sent.answer, firstByteMs: outcome.firstByteMs, totalMs: outcome.durationMs, kind: outcome.kind, message: outcome.message, maxGapMs: outcome.maxGapMs },
    outside,
  );
  return { verdict: checks.every((check) => check.passed) ? 'passed' : 'failed', sent, checks };
}

/**
 * Runs one planned query: its context read (inside the fence) and its request sent, then its
 * expectations checked. The seam every feature that runs a query builds on.
 */
export async function runPlannedQuery<Tag>(planned: PlannedQuery<Tag>, send: QuerySender, signal: AbortSignal, options: CheckOptions = {}): Promise<QueryResult> {
  const { query, target } = planned;
  const input = await queryInput(query, target, planned.readContext);
  if ('ok' in input) return { verdict: 'errored', message: input.message, line: input.line };
  if (signal.aborted) return { verdict: 'skipped' };
  const schemas = await loadSchemas(query.expect, planned.readContext);
  const runs = query.runs ?? 1;
  const results: QueryResult[] = [];
  for (let i = 0; i < runs && !signal.aborted; i++) {
    const sent = await send(input, target, signal);
    const { outcome } = sent;
    const answered = sent.sent && outcome.kind === 'done' && outcome.httpStatus !== undefined && outcome.httpStatus >= 200 && outcome.httpStatus <= 299;
    const judgements = answered
      ? await askJudges(query.expect, { send, known: options.known ?? { applications: [], environments: [] }, question: query.question, answer: sent.answer, signal, ...(target.environment === undefined ? {} : { environment: target.environment }), ...(options.askModel === undefined ? {} : { askModel: options.askModel }) })
      : undefined;
    const result = verdictOf(query, sent, { schemas, ...(judgements === undefined ? {} : { judgements }) });
    results.push(result);
    if (result.verdict === 'skipped') break;
  }
  return runs === 1 ? (results[0] ?? { verdict: 'skipped' }) : combineRuns(query, results, runs);
}

/**
 * The result of a repeated query: passed when at least `passes` (default: every) run met every
 * expectation; a failure lists how many did and each failed run's reasons. A run stopped part-way
 * makes the whole query skipped; runs that were none of them sent make it errored.
 */
function combineRuns(query: QueryEntry, results: readonly QueryResult[], runs: number): QueryResult {
  const last = results[results.length - 1];
  if (last === undefined || last.verdict === 'skipped' || results.length < runs) return { verdict: 'skipped', ...(last?.sent === undefined ? {} : { sent: last.sent }) };
  const lastSent = [...results].reverse().find((r) => r.verdict === 'passed' || r.verdict === 'failed');
  if (lastSent === undefined || lastSent.verdict === 'skipped' || lastSent.verdict === 'errored') return results[0];
  const needed = query.passes ?? runs;
  const passed = results.filter((r) => r.verdict === 'passed').length;
  const repeats = { runs: results, passed, needed };
  if (passed >= needed) return { verdict: 'passed', sent: lastSent.sent, checks: lastSent.checks, repeats };
  const summary: ExpectationResult = { passed: false, message: `${passed} of ${runs} runs passed; ${needed === runs ? 'every run must pass' : `at least ${needed} must`}.`, expected: `${needed} of ${runs}`, actual: `${passed} of ${runs}` };
  const checks: ExpectationResult[] = [summary];
  results.forEach((r, i) => {
    if (r.verdict === 'errored') checks.push({ passed: false, message: `Run ${i + 1}: ${r.message}` });
    else if (r.verdict === 'failed') for (const check of r.checks) if (!check.passed) checks.push({ ...check, message: `Run ${i + 1}: ${check.message}` });
  });
  return { verdict: 'failed', sent: lastSent.sent, checks, repeats };
}

/** What a run reports as it goes. */
export interface RunListener<Tag> {
  /** The query has its turn (a free place at its service) and starts now. */
  started(planned: PlannedQuery<Tag>): void;
  ended(planned: PlannedQuery<Tag>, result: QueryResult): void;
}

/**
 * Runs planned queries, at most `concurrency` per service at once, each service's in the order
 * given. A query's context is read only when it has its place, so what a run holds follows the
 * concurrency, not the number of queries. After `signal` aborts, queries that have not started are skipped.
 */
export async function runQueries<Tag>(planned: readonly PlannedQuery<Tag>[], send: QuerySender, options: { readonly concurrency: number; readonly signal: AbortSignal; readonly listener: RunListener<Tag>; readonly checks?: CheckOptions }): Promise<QueryResult[]> {
  const limiter = new KeyedLimiter(options.concurrency);
  return Promise.all(
    planned.map((one) =>
      limiter.run(one.service, async () => {
        let result: QueryResult;
        if (options.signal.aborted) result = { verdict: 'skipped' };
        else {
          options.listener.started(one);
          result = await runPlannedQuery(one, send, options.signal, options.checks);
        }
        options.listener.ended(one, result);
        return result;
      }),
    ),
  );
}

/** Keeps an answer's text (up to a cap) to check expectations against. */
export class AnswerCollector {
  text = '';
  cut = false;

  status(_httpStatus: number): void {}

  append(text: string): void {
    if (this.cut) return;
    const room = ANSWER_CAP_CHARS - this.text.length;
    if (text.length > room) {
      this.text += text.slice(0, room);
      this.cut = true;
    } else {
      this.text += text;
    }
  }
}
