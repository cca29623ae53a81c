import type { QueryResult } from '../client/queryFiles/engine';
import type { QueryTarget } from '../shared/queryFile/targets';

/** How an answer compares with the one saved before (`--compare-answers`). */
export type AnswerChange = { readonly state: 'same' | 'new' } | { readonly state: 'changed'; readonly diff: string };

/** One query (on one application) as every reporter reports it. */
export interface QueryReport {
  /** The query file, relative to the current folder with `/` separators. */
  readonly file: string;
  /** The query's heading. */
  readonly query: string;
  /** The heading line (0-based), for a locating message. */
  readonly line: number;
  /** Where it was sent; absent when it could not be planned. */
  readonly target?: QueryTarget;
  /** The query's name in reports: its heading, with the application when it asks several. */
  readonly name: string;
  readonly result: QueryResult;
  readonly change?: AnswerChange;
}

/** Counts of a run by verdict. */
export interface Totals {
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
}

/** How many reports ended each way. */
export function totalsOf(reports: readonly QueryReport[]): Totals {
  const totals: Totals = { passed: 0, failed: 0, errored: 0, skipped: 0 };
  for (const report of reports) totals[report.result.verdict]++;
  return totals;
}

/** How long a query took (what came back says), 0 when nothing was sent. */
export function durationOf(result: QueryResult): number {
  return result.sent?.outcome.durationMs ?? 0;
}

/** Each failed check of a report as words, expected and actual; the reason of an errored one. */
export function problemsOf(result: QueryResult): { message: string; expected?: string; actual?: string }[] {
  switch (result.verdict) {
    case 'failed':
      return result.checks.filter((check) => !check.passed).map((check) => ({ message: check.message, ...(check.expected === undefined ? {} : { expected: check.expected }), ...(check.actual === undefined ? {} : { actual: check.actual }) }));
    case 'errored':
      return [{ message: result.message }];
    default:
      return [];
  }
}
