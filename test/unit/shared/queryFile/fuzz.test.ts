import * as assert from 'node:assert/strict';
import { parseCases } from '../../../../src/client/checks/cases';
import { answerJson, caseQuery, checkExpectations, parseExpectation, parseQueryFile, readVerdict, type ParsedQueryFile, type Span } from '../../../../src/shared/queryFile';
import { seededRandom } from '../../../support/random';

const LINE_BREAKS = /\r\n|\r|\n/;

/** Fragments that break parsers: Markdown structure, option syntax, escapes, odd characters. */
const FRAGMENTS = [
  '## ', '##', '###', '#', '# ', '## Q', '## Same', ' ## ', '    ## ', '## a ##', '##\t', '---', '===', '--', '***', '___',
  '```', '~~~', '```js', '````', '~~~md', '    ', '\t', ' ', '  ', '> ', '>', '1. ', '2) ', '- ', '* ', '+ ', '-', '-\t',
  '- expect: ', '- application: ', '- context: ', '- environment: ', '- env: ', '- app: ', '* expect:', '+ Context : ', '- a: ', '- http://x',
  '- cases: ', '- runs: ', '- passes: ', 'json', 'json schema ', 'max gap under ', 'judged by ', 'judged by model ', '{{', '}}', '{{x}}', '{{ }}', 'c.csv', 'a.jsonl', '21', '3',
  'contains ', 'not ', 'not contains ', 'matches /', 'not matches /', '/i', '/gy', 'status ', '200', '2xx', '600', 'first byte under ', 'total under ', '1.5s', '500ms', '0s', '2 m',
  '"', "'", '\\', '\\\\', '\\"', '\\u0041', '\\u{1F600}', '\\u', '\\/', '[/]', '(', ')', '[', ']', '*', '_', '`', '``', '```', '<div>', '</div>', '<!--', '-->',
  '#L', '#L10', '#L10-40', '#L10-L5', '#L0', '#', '..', '../', '..\\', '/', '//', '\\\\server\\', 'C:\\', 'c:/', '~/', 'file:///', 'https://', 'src/a.ts', '.',
  ',', ', ,', ':', ': ', 'word', 'Q', 'refund', 'é', 'ß', 'ǅ', '😀', '👩‍👩‍👧', '\u0000', '\u0001', '\u001b', '\u007f', '\u00a0', '\u2028', '\u2029', '\uFEFF', '\ud800', '\udfff', '\u200b', '\u202e',
];
const BREAKS = ['\n', '\n', '\n', '\r\n', '\r', '\n\n', '\r\n\r\n'];
/** Whole lines that make structure likely. */
const LINES = [
  '## Query', '## Query two', 'Heading\n---', '- application: a, b', '- environment: staging', '- context: src/a.ts#L1-2', '- expect: contains "x"',
  '- expect: matches /x/g', '- expect: status 2xx', '- expect: first byte under 2s', '```\n## fenced\n```', '> ## quoted', '- ## listed', 'What is X?', '',
  '- cases: data/c.csv', '- runs: 5', '- passes: 4', '- expect: json schema s.json', '- expect: judged by grader: polite', '- expect: contains "{{w}}"', '- context: docs/{{t}}.md', 'About {{t}}',
  '- app: x', '- expect: nope', '- context: ../x', '- environment: a\n- environment: b', '- application: a,,b', '* expect: not contains \'y\'', '- context:', '## Query\n- application: a',
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

/** A long line of one hostile piece repeated (up to about 20,000 characters). */
function longFragment(next: () => number): string {
  const piece = pick(next, ['x', ' ', '#', '- ', '`', '\\', '"', ',', '../', 'a,', '- a: ', '\t', '😀', '[', '<', '>', '~', '*']);
  return piece.repeat(1 + Math.floor(next() * (20_000 / piece.length)));
}

/** A generated document: lines, fragments, breaks of every kind, now and then a very long line. */
function document(next: () => number): string {
  let text = '';
  const count = 1 + Math.floor(next() * 80);
  for (let i = 0; i < count; i++) {
    const r = next();
    if (r < 0.2) text += pick(next, BREAKS);
    else if (r < 0.5) text += `${pick(next, LINES)}${pick(next, BREAKS)}`;
    else if (r < 0.51) text += longFragment(next);
    else text += pick(next, FRAGMENTS);
  }
  return text;
}

const BLANK = /^[ \t]*$/;

/** Whether a context path (as the parser gives it) names something inside the folder: relative, no drive, URL, control character, and never climbing above the start. */
function staysInside(path: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (path === '' || path.includes('\\') || path.startsWith('/') || path.startsWith('~') || /^[a-z][a-z0-9+.-]*:/i.test(path) || /[\u0000-\u001f\u007f]/.test(path)) return false;
  let depth = 0;
  for (const segment of path.split('/')) {
    if (segment === '..') depth--;
    else if (segment !== '' && segment !== '.') depth++;
    if (depth < 0) return false;
  }
  return depth > 0;
}

function assertInLine(lines: readonly string[], span: Span, what: string): void {
  assert.ok(Number.isInteger(span.line) && span.line >= 0 && span.line < lines.length, `${what}: line ${span.line} of ${lines.length}`);
  assert.ok(Number.isInteger(span.start) && Number.isInteger(span.end) && span.start >= 0 && span.start <= span.end && span.end <= lines[span.line].length, `${what}: ${JSON.stringify(span)} in a line of ${lines[span.line].length}`);
}

/** Every property a parse must have, whatever the text. */
function checkInvariants(text: string, file: ParsedQueryFile): void {
  const lines = text.split(LINE_BREAKS);
  assert.equal(file.lineCount, lines.length, 'lineCount');
  let previousEnd = 0;
  for (const [i, q] of file.queries.entries()) {
    const where = `query ${i} (${JSON.stringify(q.name)})`;
    assert.equal(q.index, i, `${where}: index`);
    assert.ok(q.headingLine >= previousEnd && q.headingLine < q.endLine && q.endLine <= file.lineCount, `${where}: lines ${q.headingLine}..${q.endLine} after ${previousEnd}`);
    if (i > 0) assert.equal(file.queries[i - 1].endLine, q.headingLine, `${where}: the query before it ends at its heading`);
    previousEnd = q.endLine;
    const inQuery = (span: Span, what: string): void => {
      assertInLine(lines, span, `${where} ${what}`);
      assert.ok(span.line >= q.headingLine && span.line < q.endLine, `${where} ${what}: line ${span.line} outside the query`);
    };
    // The name comes from the heading line (a setext heading's further lines are joined by a space).
    inQuery(q.headingSpan, 'headingSpan');
    inQuery(q.nameSpan, 'nameSpan');
    assert.equal(q.nameSpan.line, q.headingLine, `${where}: nameSpan on the heading line`);
    const onHeading = lines[q.headingLine].slice(q.nameSpan.start, q.nameSpan.end);
    assert.ok(q.name.startsWith(onHeading), `${where}: name starts with ${JSON.stringify(onHeading)}`);
    if (/^ {0,3}##(?:[ \t]|$)/.test(lines[q.headingLine])) assert.equal(q.name, onHeading, `${where}: an ATX name is its heading's text`);
    assert.equal(q.name, q.name.trim(), `${where}: name trimmed`);
    for (const option of q.options) {
      inQuery(option.span, 'option span');
      inQuery(option.valueSpan, 'valueSpan');
      inQuery(option.keySpan, 'keySpan');
      assert.equal(lines[option.span.line].slice(option.valueSpan.start, option.valueSpan.end), option.value, `${where}: value is its span's text`);
      assert.equal(lines[option.span.line].slice(option.keySpan.start, option.keySpan.end).toLowerCase(), option.key, `${where}: key is its span's text`);
      assert.ok(option.span.line > q.headingLine && (q.questionLine === undefined || option.span.line < q.questionLine), `${where}: options come before the question`);
    }
    for (const app of q.applications) {
      inQuery(app.span, 'application');
      assert.equal(lines[app.span.line].slice(app.span.start, app.span.end), app.name, `${where}: application name is its span's text`);
      assert.ok(app.name !== '' && !app.name.includes(','), `${where}: application name ${JSON.stringify(app.name)}`);
    }
    if (q.environment !== undefined) {
      inQuery(q.environment.span, 'environment');
      assert.equal(lines[q.environment.span.line].slice(q.environment.span.start, q.environment.span.end), q.environment.name);
    }
    for (const ref of q.context) {
      inQuery(ref.span, 'context');
      assert.ok(staysInside(ref.path), `${where}: context path ${JSON.stringify(ref.path)}`);
      assert.ok(ref.startLine === undefined || (ref.startLine >= 1 && (ref.endLine === undefined || ref.endLine >= ref.startLine)), `${where}: context range`);
    }
    for (const e of q.expect) {
      inQuery(e.span, 'expect');
      assert.ok(q.options.some((o) => o.key === 'expect' && o.valueSpan.line === e.span.line && o.valueSpan.start === e.span.start), `${where}: expectation on an expect line`);
    }
    if (q.questionLine === undefined) {
      assert.equal(q.question, '', `${where}: no questionLine, no question`);
    } else {
      assert.ok(q.questionLine > q.headingLine && q.questionLine < q.endLine, `${where}: questionLine ${q.questionLine}`);
      const questionLines = q.question.split('\n');
      assert.deepEqual(questionLines, lines.slice(q.questionLine, q.questionLine + questionLines.length), `${where}: the question is its lines as written`);
      assert.ok(q.questionLine + questionLines.length <= q.endLine, `${where}: the question ends inside the query`);
      assert.ok(!BLANK.test(questionLines[0]) && !BLANK.test(questionLines[questionLines.length - 1]), `${where}: no leading or trailing blank line`);
    }
    for (const p of q.problems) assert.equal(p.queryIndex, i, `${where}: its problems`);
  }
  if (file.queries.length > 0) assert.equal(file.queries[file.queries.length - 1].endLine, file.lineCount, 'the last query runs to the end');
  for (const p of file.problems) {
    assertInLine(lines, p.span, `problem ${p.code}`);
    const q = file.queries[p.queryIndex];
    assert.ok(q !== undefined && p.span.line >= q.headingLine && p.span.line < q.endLine, `problem ${p.code} inside its query`);
    assert.ok(p.message.length > 0 && (p.severity === 'error' || p.severity === 'warning'));
  }
  assert.deepEqual(file.queries.flatMap((q) => q.problems), file.problems, 'the file problems are the queries problems');
}

describe('query files: generated hostile documents', () => {
  it('parseQueryFile never throws, and every parse keeps its invariants (3,000 documents, seeds 1-3000)', function () {
    this.timeout(120_000);
    let queries = 0;
    let options = 0;
    let problems = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const text = document(seededRandom(seed));
      try {
        const file = parseQueryFile(text);
        checkInvariants(text, file);
        // The kind of line breaks changes nothing.
        assert.deepEqual(parseQueryFile(text.split(LINE_BREAKS).join('\n')), file, 'the same parse with \\n line breaks');
        queries += file.queries.length;
        options += file.queries.reduce((n, q) => n + q.options.length, 0);
        problems += file.problems.length;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        assert.fail(`seed ${seed}: ${message}\ndocument: ${JSON.stringify(text.length > 2000 ? `${text.slice(0, 2000)}…` : text)}`);
      }
    }
    // The generator reaches what it should test: many queries, options and problems.
    assert.ok(queries > 3000 && options > 1000 && problems > 1000, `queries ${queries}, options ${options}, problems ${problems}`);
  });

  it('parseExpectation never throws (3,000 strings, seeds 1-3000): an error with words, or an expectation as written', () => {
    const pieces = [...FRAGMENTS, 'json', ' schema ', 'max gap under ', 'judged by ', 'model ', ': ', 'contains "', 'matches /', '/', 'under', 'byte', 'first', 'total', 'status', 'ms', 's', 'm', '1', '0', '.', '-', 'x', 'XX'];
    for (let seed = 1; seed <= 3000; seed++) {
      const next = seededRandom(seed);
      let value = '';
      const count = 1 + Math.floor(next() * 8);
      for (let i = 0; i < count; i++) value += next() < 0.02 ? longFragment(next) : pick(next, pieces);
      const span: Span = { line: seed, start: 0, end: value.length };
      const result = parseExpectation(value, span);
      const where = `seed ${seed}: ${JSON.stringify(value.slice(0, 200))}`;
      if ('error' in result) {
        assert.ok(result.error.length > 10 && result.error.endsWith('.'), where);
        continue;
      }
      assert.equal(result.source, value.trim(), where);
      assert.equal(result.span, span, where);
      if (result.kind === 'matches') assert.doesNotThrow(() => result.regex.find(value), where);
      if (result.kind === 'status') assert.ok(result.min >= 100 && result.min <= result.max && result.max <= 599, where);
      if (result.kind === 'firstByteUnder' || result.kind === 'totalUnder') assert.ok(Number.isFinite(result.ms) && result.ms > 0, where);
      if (result.kind === 'contains') assert.ok(result.text !== '', where);
      if (result.kind === 'maxGapUnder') assert.ok(Number.isFinite(result.ms) && result.ms > 0, where);
      if (result.kind === 'judgedBy') assert.ok(result.application !== '' && result.criterion !== '', where);
      const checked = checkExpectations([result], { status: 200, answer: value, firstByteMs: 1, totalMs: 2, kind: 'done', maxGapMs: 1 });
      assert.equal(checked.length, result.kind === 'status' ? 1 : 2, where);
    }
  });

  it('cases: every query of a generated document, filled from generated rows, gives a query or an error on one of its lines', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const next = seededRandom(seed);
      const file = parseQueryFile(document(next));
      const values = new Map<string, string>();
      for (const name of ['t', 'w', 'x']) if (next() < 0.7) values.set(name, pick(next, FRAGMENTS));
      for (const query of file.queries) {
        const filled = caseQuery(query, { number: 1, line: 2, values });
        if ('error' in filled) assert.ok(filled.error.startsWith('Case 1: ') && filled.line >= query.headingLine && filled.line < query.endLine, `seed ${seed}: ${filled.error}`);
        else for (const ref of filled.context) assert.ok(staysInside(ref.path), `seed ${seed}: ${ref.path}`);
      }
    }
  });

  it('answers, verdicts and cases files: no text throws (3,000 texts of each, seeds 1-3000)', () => {
    const pieces = [...FRAGMENTS, '{', '}', '[', ']', '"pass"', ': true', ': false', ',', '"reason": "r"', 'PASS', 'FAIL', '```json\n', '\n```', 'a,b', '\n', '"', '""'];
    for (let seed = 1; seed <= 3000; seed++) {
      const next = seededRandom(seed);
      let text = '';
      const count = 1 + Math.floor(next() * 12);
      for (let i = 0; i < count; i++) text += next() < 0.02 ? longFragment(next) : pick(next, pieces);
      const where = `seed ${seed}: ${JSON.stringify(text.slice(0, 200))}`;
      const verdict = readVerdict(text);
      assert.ok('error' in verdict ? verdict.error.endsWith('.') : typeof verdict.pass === 'boolean' && verdict.reason.length <= 500, where);
      answerJson(text);
      for (const format of ['csv', 'jsonl', 'json'] as const) {
        const table = parseCases(text, format, 50);
        assert.ok(table.rows.length <= 50 && table.rows.every((row, i) => row.number === i + 1), `${where} as ${format}`);
      }
    }
  });

  it('quoted text round-trips: any text, escaped, reads back as itself (3,000 texts, seeds 1-3000)', () => {
    const alphabet = ['a', ' ', '"', "'", '\\', '\n', '\t', '\r', 'é', '😀', '\u0000', '/', 'u', '{', '}'];
    for (let seed = 1; seed <= 3000; seed++) {
      const next = seededRandom(seed);
      let text = '';
      const length = 1 + Math.floor(next() * 30);
      for (let i = 0; i < length; i++) text += pick(next, alphabet);
      const quote = next() < 0.5 ? '"' : "'";
      const escaped = text.replace(/[\\"'\n\t\r]/g, (c) => ({ '\\': '\\\\', '"': '\\"', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' })[c] ?? c);
      const result = parseExpectation(`${next() < 0.5 ? 'not ' : ''}contains ${quote}${escaped}${quote}`, { line: 0, start: 0, end: 1 });
      assert.ok(!('error' in result) && result.kind === 'contains' && result.text === text, `seed ${seed}: ${JSON.stringify(text)} -> ${JSON.stringify(result)}`);
    }
  });

  it('a query with more problems than a call takes arguments (140,000 unknown keys) still parses', function () {
    this.timeout(60_000);
    const file = parseQueryFile(`## Q\n${'- x: 1\n'.repeat(140_000)}`);
    // Every line an unknown key, then the query's empty question.
    assert.equal(file.problems.length, 140_001);
    assert.equal(file.queries[0].problems.length, 140_001);
    assert.deepEqual([file.problems[139_999].code, file.problems[139_999].span], ['unknownKey', { line: 140_000, start: 2, end: 3 }]);
    assert.equal(file.problems[140_000].code, 'emptyQuestion');
  });

  it('long hostile lines parse in linear time (no regex backtracking)', () => {
    const n = 200_000;
    const texts = [
      `## Q\n- application: ${'a,'.repeat(n / 2)}`,
      `## Q\n- ${'k'.repeat(n)}: v`,
      `## Q\n- expect: contains "${' '.repeat(n)}x`,
      `## Q\n- expect: matches /${'\\/'.repeat(n / 2)}`,
      `## Q\n- context: ${'../'.repeat(n / 3)}`,
      `## ${'a '.repeat(n / 2)}`,
      `${'x '.repeat(n / 4)}\n${' \n'.repeat(n / 4)}---`,
      `---\n${'a: b\n'.repeat(n / 5)}`,
      `## Q\n${'- a: b\n'.repeat(n / 7)}`,
      ' '.repeat(n),
      '\r'.repeat(n),
    ];
    for (const text of texts) {
      const started = performance.now();
      const file = parseQueryFile(text);
      const ms = performance.now() - started;
      checkInvariants(text, file);
      assert.ok(ms < 3000, `${JSON.stringify(text.slice(0, 40))}… took ${ms.toFixed(0)} ms`);
    }
  });
});
