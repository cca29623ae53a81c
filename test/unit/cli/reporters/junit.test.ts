// The JUnit writer: escaping, and characters XML cannot hold.
import * as assert from 'node:assert/strict';
import type { QueryReport } from '../../../../src/cli/report';
import { junitReport, xmlText } from '../../../../src/cli/reporters/junit';

function report(name: string, result: QueryReport['result']): QueryReport {
  return { file: 'queries/a&b.aq.md', query: name, line: 4, name, result };
}

const sent = (answer: string) => ({ outcome: { kind: 'done' as const, httpStatus: 200, wireBytes: 1, textChars: answer.length, durationMs: 1234, retryable: false, remedies: [] }, answer, cut: false, sent: true });

describe('command line: JUnit report', () => {
  it('escapes markup and removes characters XML 1.0 cannot hold (controls, lone surrogates, U+FFFE)', () => {
    assert.equal(xmlText('a<b>&"c\'\u0000\u001b[31m\uD800x\uFFFE\t\n😀'), 'a&lt;b&gt;&amp;&quot;c&apos;[31mx\t\n😀');
  });

  it('a suite per file, a case per query: failure with expected and actual, error for not sent, skipped, the answer in system-out', () => {
    const xml = junitReport(
      [
        report('passes <ok>', { verdict: 'passed', sent: sent('fine \u0007answer'), checks: [] }),
        report('fails', { verdict: 'failed', sent: sent('the answer'), checks: [{ passed: false, message: 'Expected the answer to contain "x", it does not.', expected: 'x', actual: 'the answer' }] }),
        report('not sent', { verdict: 'errored', message: 'No API key', line: 9 }),
        report('stopped', { verdict: 'skipped' }),
      ],
      5000,
    );
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="application-query" tests="4" failures="1" errors="1" skipped="1" time="5.000">/);
    assert.match(xml, /<testsuite name="queries\/a&amp;b.aq.md" tests="4" failures="1" errors="1" skipped="1" time="2.468">/);
    assert.match(xml, /<testcase name="passes &lt;ok&gt;" classname="queries\/a&amp;b.aq.md" file="queries\/a&amp;b.aq.md" line="5" time="1.234">\n\s+<system-out>fine answer<\/system-out>/);
    assert.match(xml, /<failure message="Expected the answer to contain &quot;x&quot;, it does not." type="expectation">Expected the answer to contain &quot;x&quot;, it does not.\nexpected: x\nactual: the answer<\/failure>/);
    assert.match(xml, /<error message="No API key" type="not sent">No API key<\/error>/);
    assert.match(xml, /<testcase name="stopped"[^>]*>\n\s+<skipped message="stopped before it completed"\/>/);
  });
});
