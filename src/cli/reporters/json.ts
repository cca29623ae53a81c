import type { QueryReport } from '../report';
import { problemsOf, totalsOf } from '../report';

/** The JSON report's shape version: a field added keeps it, a field changed or removed raises it. */
export const JSON_REPORT_VERSION = 1;

/** A run as JSON, for tools: totals, then each query with its verdict, timings, problems and answer. */
export function jsonReport(reports: readonly QueryReport[], totalMs: number, interrupted: boolean): string {
  return `${JSON.stringify(
    {
      version: JSON_REPORT_VERSION,
      interrupted,
      durationMs: totalMs,
      totals: totalsOf(reports),
      queries: reports.map((report) => {
        const sent = report.result.sent;
        const outcome = sent?.outcome;
        return {
          file: report.file,
          query: report.query,
          name: report.name,
          line: report.line + 1,
          application: report.target?.applicationId,
          environment: report.target?.environment,
          verdict: report.result.verdict,
          httpStatus: outcome?.httpStatus,
          firstByteMs: outcome?.firstByteMs,
          durationMs: outcome?.durationMs,
          end: outcome?.kind,
          message: outcome?.message,
          problems: problemsOf(report.result),
          answer: sent?.answer,
          answerCut: sent?.cut,
          answerChange: report.change?.state,
          answerDiff: report.change?.state === 'changed' ? report.change.diff : undefined,
        };
      }),
    },
    null,
    2,
  )}\n`;
}
