// A run's results in a form a program reads: what each mocha run leaves in a JSON file (the reporter
// in ./reporter.ts writes it), what a launcher that runs mocha once per VS Code version merges, and
// what test/runAll.ts counts and recaps. The human report stays in the log; the counts come from here.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './util';

/** The environment variable that names the file a run writes its summary to. */
export const RESULTS_FILE_ENV = 'AQ_RESULTS_FILE';

/** One failed test or hook. */
export interface TestFailure {
  /** The full title ("suite test"), prefixed "[1.100.3] " when a launcher merged several runs. */
  title: string;
  message: string;
  /** The first stack frames of the error (where it was thrown). */
  where: string[];
}

/** What one run (or one lane) did. */
export interface ResultSummary {
  passed: number;
  failed: number;
  pending: number;
  failures: TestFailure[];
}

/** Where a lane leaves its summary: `test-results/summary/<name>.json`. */
export function summaryFile(name: string): string {
  return path.join(repoRoot(), 'test-results', 'summary', `${name}.json`);
}

/** The file of one part of a lane (e.g. one VS Code version) beside the lane's own: `<lane>-<part>.json`. */
export function partFile(laneFile: string, part: string): string {
  return laneFile.replace(/(\.json)?$/, `-${part.replace(/[^\w.-]+/g, '_')}.json`);
}

/** Writes `summary` to `file` (creating its folder), synchronously so that a process about to exit still leaves it. */
export function writeSummary(file: string, summary: ResultSummary): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(summary, undefined, 2)}\n`);
}

/** Reads a summary, or undefined when the file is missing or is not one. */
export function readSummary(file: string): ResultSummary | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { passed, failed, pending, failures } = parsed as Partial<ResultSummary>;
  if (typeof passed !== 'number' || typeof failed !== 'number' || typeof pending !== 'number' || !Array.isArray(failures)) return undefined;
  return { passed, failed, pending, failures };
}

/** A summary of one failure only (a run that broke before mocha could report). */
export function brokenRun(title: string, message: string): ResultSummary {
  return { passed: 0, failed: 1, pending: 0, failures: [{ title, message, where: [] }] };
}

/** Adds up several runs' summaries; each failure's title is prefixed with its run's label ("[1.100.3] …"). */
export function mergeSummaries(parts: readonly { label: string; summary: ResultSummary }[]): ResultSummary {
  const merged: ResultSummary = { passed: 0, failed: 0, pending: 0, failures: [] };
  for (const { label, summary } of parts) {
    merged.passed += summary.passed;
    merged.failed += summary.failed;
    merged.pending += summary.pending;
    merged.failures.push(...summary.failures.map((failure) => ({ ...failure, title: `[${label}] ${failure.title}` })));
  }
  return merged;
}
