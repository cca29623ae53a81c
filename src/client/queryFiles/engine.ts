import { KeyedLimiter } from '../../shared/limiter';
import type { QueryOutcome } from '../../shared/outcome';
import type { QueryInput } from '../../shared/prepare';
import { checkExpectations, type ExpectationResult, type QueryEntry } from '../../shared/queryFile';
import { queryTargets, type KnownNames, type QueryTarget } from '../../shared/queryFile/targets';
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
  | { readonly verdict: 'passed' | 'failed'; readonly sent: SentQuery; readonly checks: readonly ExpectationResult[] };

/** Checks what came back against the query's expectations. */
export function verdictOf(query: QueryEntry, sent: SentQuery): QueryResult {
  const { outcome } = sent;
  if (outcome.kind === 'stopped') return { verdict: 'skipped', sent };
  if (!sent.sent) return { verdict: 'errored', message: outcome.message ?? 'Not sent.', line: query.headingLine, sent };
  const checks = checkExpectations(query.expect, { status: outcome.httpStatus, answer: sent.answer, firstByteMs: outcome.firstByteMs, totalMs: outcome.durationMs, kind: outcome.kind, message: outcome.message });
  return { verdict: checks.every((check) => check.passed) ? 'passed' : 'failed', sent, checks };
}

/**
 * Runs one planned query: its context read (inside the fence) and its request sent, then its
 * expectations checked. The seam every feature that runs a query builds on.
 */
export async function runPlannedQuery<Tag>(planned: PlannedQuery<Tag>, send: QuerySender, signal: AbortSignal): Promise<QueryResult> {
  const input = await queryInput(planned.query, planned.target, planned.readContext);
  if ('ok' in input) return { verdict: 'errored', message: input.message, line: input.line };
  if (signal.aborted) return { verdict: 'skipped' };
  return verdictOf(planned.query, await send(input, planned.target, signal));
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
export async function runQueries<Tag>(planned: readonly PlannedQuery<Tag>[], send: QuerySender, options: { readonly concurrency: number; readonly signal: AbortSignal; readonly listener: RunListener<Tag> }): Promise<QueryResult[]> {
  const limiter = new KeyedLimiter(options.concurrency);
  return Promise.all(
    planned.map((one) =>
      limiter.run(one.service, async () => {
        let result: QueryResult;
        if (options.signal.aborted) result = { verdict: 'skipped' };
        else {
          options.listener.started(one);
          result = await runPlannedQuery(one, send, options.signal);
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
