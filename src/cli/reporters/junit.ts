import type { QueryReport } from '../report';
import { durationOf, problemsOf, totalsOf } from '../report';

/**
 * Text as XML 1.0 character data or an attribute value: `& < > " '` escaped, and every character
 * XML cannot hold (controls but tab and line breaks, lone surrogates, U+FFFE/U+FFFF) removed.
 */
export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * A JUnit XML report as GitHub (test reporter actions), GitLab (`artifacts:reports:junit`) and Azure
 * Pipelines (PublishTestResults) read it: one `testsuite` per query file, one `testcase` per query
 * (and application); a failed expectation is a `failure` with its message and expected/actual, a
 * query that could not be sent an `error`, a stopped one `skipped`; the answer goes in `system-out`.
 */
export function junitReport(reports: readonly QueryReport[], totalMs: number): string {
  const files = new Map<string, QueryReport[]>();
  for (const report of reports) files.set(report.file, [...(files.get(report.file) ?? []), report]);
  const all = totalsOf(reports);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="application-query" tests="${reports.length}" failures="${all.failed}" errors="${all.errored}" skipped="${all.skipped}" time="${seconds(totalMs)}">`];
  for (const [file, cases] of files) {
    const totals = totalsOf(cases);
    const time = cases.reduce((sum, report) => sum + durationOf(report.result), 0);
    lines.push(`  <testsuite name="${xmlText(file)}" tests="${cases.length}" failures="${totals.failed}" errors="${totals.errored}" skipped="${totals.skipped}" time="${seconds(time)}">`);
    for (const report of cases) lines.push(...testCase(report));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function testCase(report: QueryReport): string[] {
  const { result } = report;
  const open = `    <testcase name="${xmlText(report.name)}" classname="${xmlText(report.file)}" file="${xmlText(report.file)}" line="${report.line + 1}" time="${seconds(durationOf(result))}">`;
  const lines = [open];
  const problems = problemsOf(result);
  if (result.verdict === 'skipped') lines.push('      <skipped message="stopped before it completed"/>');
  for (const problem of problems) {
    const element = result.verdict === 'errored' ? 'error' : 'failure';
    const body = [problem.message, problem.expected === undefined ? undefined : `expected: ${problem.expected}`, problem.actual === undefined ? undefined : `actual: ${problem.actual}`].filter((part) => part !== undefined).join('\n');
    lines.push(`      <${element} message="${xmlText(problem.message)}" type="${result.verdict === 'errored' ? 'not sent' : 'expectation'}">${xmlText(body)}</${element}>`);
  }
  const out = result.sent === undefined ? undefined : result.sent.answer;
  const change = report.change?.state === 'changed' ? `\n\nThe answer changed since the saved one:\n${report.change.diff}` : '';
  if (out !== undefined || change !== '') lines.push(`      <system-out>${xmlText((out ?? '') + change)}</system-out>`);
  lines.push('    </testcase>');
  return lines;
}
