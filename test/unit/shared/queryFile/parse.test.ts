import * as assert from 'node:assert/strict';
import { optionAt, optionForm, parseContextValue, parseQueryFile, suggestKey, type ParsedQueryFile, type ProblemCode, type QueryEntry } from '../../../../src/shared/queryFile';

/** The one query named `name` (fails the test when there is not exactly one). */
function query(file: ParsedQueryFile, name: string): QueryEntry {
  const found = file.queries.filter((q) => q.name === name);
  assert.equal(found.length, 1, `one query named ${JSON.stringify(name)} in ${JSON.stringify(file.queries.map((q) => q.name))}`);
  return found[0];
}

/** The problems of a file as `code@line:start-end`. */
function problemsOf(file: ParsedQueryFile): string[] {
  return file.problems.map((p) => `${p.code}@${p.span.line}:${p.span.start}-${p.span.end}`);
}

/** The one problem with `code`. */
function problem(file: ParsedQueryFile, code: ProblemCode): ParsedQueryFile['problems'][number] {
  const found = file.problems.filter((p) => p.code === code);
  assert.equal(found.length, 1, `one ${code} in ${JSON.stringify(problemsOf(file))}`);
  return found[0];
}

const REALISTIC = [
  '# Support bot regression queries', // 0
  '', // 1
  'Run these before each release. ## is not a heading here.', // 2
  '', // 3
  '## Refund policy', // 4
  '', // 5
  '- application: support-bot, billing', // 6
  '- environment: staging', // 7
  '- context: docs/refunds.md#L10-40', // 8
  '- expect: contains "refund"', // 9
  '- expect: status 200', // 10
  '', // 11
  'A customer bought the plan 20 days ago.', // 12
  'What does our policy say?', // 13
  '', // 14
  '```json', // 15
  '## { "not": "a heading" }', // 16
  '```', // 17
  '', // 18
  '## Greeting', // 19
  'Say hello.', // 20
  '', // 21
].join('\n');

describe('query files: parseQueryFile', () => {
  it('reads a realistic file: names, lines, options, question', () => {
    const file = parseQueryFile(REALISTIC);
    assert.equal(file.lineCount, 22);
    assert.deepEqual(file.queries.map((q) => [q.name, q.index, q.headingLine, q.endLine]), [
      ['Refund policy', 0, 4, 19],
      ['Greeting', 1, 19, 22],
    ]);
    assert.deepEqual(file.problems, []);
    const refund = query(file, 'Refund policy');
    assert.deepEqual(refund.applications, [
      { name: 'support-bot', span: { line: 6, start: 15, end: 26 } },
      { name: 'billing', span: { line: 6, start: 28, end: 35 } },
    ]);
    assert.deepEqual(refund.environment, { name: 'staging', span: { line: 7, start: 15, end: 22 } });
    assert.deepEqual(refund.context, [{ path: 'docs/refunds.md', startLine: 10, endLine: 40, span: { line: 8, start: 11, end: 33 } }]);
    assert.deepEqual(refund.expect.map((e) => e.kind), ['contains', 'status']);
    assert.deepEqual(refund.expect[0], { kind: 'contains', text: 'refund', negate: false, source: 'contains "refund"', span: { line: 9, start: 10, end: 27 } });
    assert.deepEqual(refund.options.map((o) => [o.key, o.value]), [
      ['application', 'support-bot, billing'],
      ['environment', 'staging'],
      ['context', 'docs/refunds.md#L10-40'],
      ['expect', 'contains "refund"'],
      ['expect', 'status 200'],
    ]);
    assert.deepEqual(refund.options[0], {
      key: 'application',
      value: 'support-bot, billing',
      span: { line: 6, start: 0, end: 35 },
      valueSpan: { line: 6, start: 15, end: 35 },
      keySpan: { line: 6, start: 2, end: 13 },
    });
    assert.equal(refund.question, 'A customer bought the plan 20 days ago.\nWhat does our policy say?\n\n```json\n## { "not": "a heading" }\n```');
    assert.equal(refund.questionLine, 12);
    assert.deepEqual(refund.headingSpan, { line: 4, start: 0, end: 16 });
    assert.deepEqual(refund.nameSpan, { line: 4, start: 3, end: 16 });
    const greeting = query(file, 'Greeting');
    assert.deepEqual([greeting.options, greeting.applications, greeting.environment, greeting.context, greeting.expect], [[], [], undefined, [], []]);
    assert.equal(greeting.question, 'Say hello.');
    assert.equal(greeting.questionLine, 20);
  });

  it('notes before the first heading are never in a question; a file without ## has no queries', () => {
    const file = parseQueryFile('# Title\nSECRET notes\n- application: x\n\n## Q\nask\n');
    assert.equal(file.queries.length, 1);
    assert.equal(file.queries[0].question, 'ask');
    assert.ok(file.queries.every((q) => !q.question.includes('SECRET')));
    assert.deepEqual(parseQueryFile('# Only a title\n\nAnd notes.\n### Not level 2\n'), { queries: [], problems: [], lineCount: 5 });
    assert.deepEqual(parseQueryFile(''), { queries: [], problems: [], lineCount: 1 });
  });

  it('ATX and setext level-2 headings both start a query; closing #s and inline markdown are kept as written', () => {
    const file = parseQueryFile('## One ##\nq1\n\nTwo *bold*\n---\nq2\n\n  ##   Three `code` #   \nq3\n\nFour\nand more\n--\nq4\n');
    assert.deepEqual(file.queries.map((q) => [q.name, q.headingLine, q.endLine, q.question]), [
      ['One', 0, 3, 'q1'],
      ['Two *bold*', 3, 7, 'q2'],
      ['Three `code`', 7, 10, 'q3'],
      ['Four and more', 10, 15, 'q4'],
    ]);
    assert.deepEqual(file.queries[0].nameSpan, { line: 0, start: 3, end: 6 });
    assert.deepEqual(file.queries[1].nameSpan, { line: 3, start: 0, end: 10 });
    assert.deepEqual(file.queries[2].nameSpan, { line: 7, start: 7, end: 19 });
    assert.deepEqual(file.queries[2].headingSpan, { line: 7, start: 2, end: 21 });
    // A multi-line setext heading: its lines joined by a space, its span on the first line.
    assert.deepEqual(file.queries[3].nameSpan, { line: 10, start: 0, end: 4 });
  });

  it('## inside a fence, a blockquote, a list or an HTML block is no query; ### and # stay in the question', () => {
    const text = [
      '## Real', // 0
      '```', // 1
      '## fenced', // 2
      '```', // 3
      '~~~md', // 4
      '## tilde fenced', // 5
      '~~~', // 6
      '> ## quoted', // 7
      '', // 8
      '1. ## in a list', // 9
      '', // 10
      '<div>', // 11
      '## in html', // 12
      '</div>', // 13
      '', // 14
      '    ## indented code', // 15
      '', // 16
      '### Sub heading', // 17
      '# Title', // 18
      'end', // 19
    ].join('\n');
    const file = parseQueryFile(text);
    assert.deepEqual(file.queries.map((q) => q.name), ['Real']);
    assert.equal(file.queries[0].question, text.split('\n').slice(1).join('\n'));
    assert.equal(file.queries[0].endLine, 20);
  });

  it('an unclosed fence runs to the end: no ## after it is a query', () => {
    const file = parseQueryFile('## A\n```\n## B\n');
    assert.deepEqual(file.queries.map((q) => q.name), ['A']);
    assert.equal(file.queries[0].question, '```\n## B');
  });

  it('CRLF and CR files: the same lines, columns and question as LF', () => {
    const lf = '## A\n- application: x, y\n- expect: nope\n\nQ1\nQ2\n## B\nQ3';
    const expected = parseQueryFile(lf);
    for (const eol of ['\r\n', '\r']) {
      const file = parseQueryFile(lf.split('\n').join(eol));
      assert.deepEqual(file, expected, JSON.stringify(eol));
    }
    assert.equal(expected.queries[0].question, 'Q1\nQ2');
    assert.deepEqual(expected.queries[0].applications[1].span, { line: 1, start: 18, end: 19 });
    assert.deepEqual(problemsOf(expected), ['badExpect@2:10-14']);
    // Mixed line breaks count one line each.
    assert.deepEqual(parseQueryFile('## A\r\n\rq\n').queries[0], { ...parseQueryFile('## A\n\nq\n').queries[0] });
  });

  it('columns are UTF-16 code units (emoji, tabs)', () => {
    const file = parseQueryFile('## 😀 Q\n-\tapplication:\t😀bot, b\nq');
    const q = file.queries[0];
    assert.equal(q.name, '😀 Q');
    assert.deepEqual(q.nameSpan, { line: 0, start: 3, end: 7 });
    assert.deepEqual(q.applications, [
      { name: '😀bot', span: { line: 1, start: 15, end: 20 } },
      { name: 'b', span: { line: 1, start: 22, end: 23 } },
    ]);
    assert.deepEqual(q.options[0].keySpan, { line: 1, start: 2, end: 13 });
  });

  it('option lines: any marker, blank lines before them, keys in any case, backticks, spaces around the colon', () => {
    const file = parseQueryFile('## Q\n\n\n* Application : `app-1`\n* CONTEXT: `src/a b.ts`\n* expect:status 2xx   \n\nq');
    const q = file.queries[0];
    assert.deepEqual(q.options.map((o) => [o.key, o.value, o.valueSpan]), [
      ['application', 'app-1', { line: 3, start: 17, end: 22 }],
      ['context', 'src/a b.ts', { line: 4, start: 12, end: 22 }],
      ['expect', 'status 2xx', { line: 5, start: 9, end: 19 }],
    ]);
    assert.deepEqual(q.options[2].span, { line: 5, start: 0, end: 19 });
    assert.deepEqual(q.applications.map((a) => a.name), ['app-1']);
    assert.deepEqual(q.context.map((c) => c.path), ['src/a b.ts']);
    assert.deepEqual(q.expect[0], { kind: 'status', min: 200, max: 299, source: 'status 2xx', span: { line: 5, start: 9, end: 19 } });
    assert.equal(q.question, 'q');
    assert.equal(q.questionLine, 7);
    // `+` lists, and a second list of options right after the first (a change of marker).
    const two = parseQueryFile('## Q\n+ application: a\n- environment: e\n\nq').queries[0];
    assert.deepEqual([two.applications.map((a) => a.name), two.environment?.name, two.question], [['a'], 'e', 'q']);
  });

  it('option list or question: a list with an item that is not `key: value` is the question', () => {
    const notOptions = [
      '## Q\n- application: a\n- just a bullet\n',
      '## Q\n- see https://example.com\n',
      '## Q\n- https://example.com\n',
      '## Q\n1. application: a\n',
      '## Q\nFirst a paragraph.\n- application: a\n',
      '## Q\n> - application: a\n',
      '## Q\n-\n  application: a\n',
      '## Q\n- key with space: a\n',
    ];
    for (const text of notOptions) {
      const q = parseQueryFile(text).queries[0];
      assert.deepEqual(q.options, [], text);
      assert.deepEqual(q.applications, [], text);
      assert.equal(q.question, text.slice(5, -1), text);
      assert.equal(q.questionLine, 1, text);
    }
  });

  it('a line of the option list that is not an item ends the options: the question starts there', () => {
    // A lazy continuation (the question right under the options, no blank line).
    const lazy = parseQueryFile('## Q\n- application: a\n- expect: contains "x"\nWhat is X?\nMore.').queries[0];
    assert.deepEqual(lazy.options.map((o) => o.key), ['application', 'expect']);
    assert.equal(lazy.question, 'What is X?\nMore.');
    assert.equal(lazy.questionLine, 3);
    // An indented continuation line: from there on everything is the question.
    const indented = parseQueryFile('## Q\n- application: a\n  more\n- expect: x\n').queries[0];
    assert.deepEqual(indented.options.map((o) => o.key), ['application']);
    assert.equal(indented.question, '  more\n- expect: x');
    // Later lists are question.
    const later = parseQueryFile('## Q\n- application: a\n\nText.\n\n- environment: e\n').queries[0];
    assert.equal(later.environment, undefined);
    assert.equal(later.question, 'Text.\n\n- environment: e');
  });

  it('the question keeps its text exactly: indentation, trailing spaces, fences, inner blank lines', () => {
    const q = parseQueryFile('## Q\n- application: a\n\n\n   indented  \n\n\n```ts\nconst a = 1;\n\n```\n\n\n').queries[0];
    assert.equal(q.question, '   indented  \n\n\n```ts\nconst a = 1;\n\n```');
    assert.equal(q.questionLine, 4);
  });

  it('context values: path, #L10, #L10-40, #L10-L40, backslashes normalised', () => {
    const file = parseQueryFile('## Q\n- context: src/a.ts\n- context: src/b.ts#L7\n- context: src/c.ts#L10-40\n- context: src\\d.ts#l10-L40\n- context: ./e.md#L3-3\n- context: dir/../f.ts\nq');
    assert.deepEqual(file.problems, []);
    assert.deepEqual(file.queries[0].context, [
      { path: 'src/a.ts', span: { line: 1, start: 11, end: 19 } },
      { path: 'src/b.ts', startLine: 7, span: { line: 2, start: 11, end: 22 } },
      { path: 'src/c.ts', startLine: 10, endLine: 40, span: { line: 3, start: 11, end: 26 } },
      { path: 'src/d.ts', startLine: 10, endLine: 40, span: { line: 4, start: 11, end: 27 } },
      { path: './e.md', startLine: 3, endLine: 3, span: { line: 5, start: 11, end: 22 } },
      { path: 'dir/../f.ts', span: { line: 6, start: 11, end: 22 } },
    ]);
    // A # that is no line range belongs to the path.
    assert.deepEqual(parseContextValue('notes#draft.md', { line: 0, start: 0, end: 14 }), { path: 'notes#draft.md', span: { line: 0, start: 0, end: 14 } });
  });

  it('bad context values: each an error on the value, and no context is kept for them', () => {
    const bad: Array<[string, RegExp]> = [
      ['/etc/passwd', /absolute path/],
      ['\\etc\\passwd', /absolute path/],
      ['C:\\Windows\\win.ini', /names a drive/],
      ['c:/x.ts', /names a drive/],
      ['C:x.ts', /names a drive/],
      ['\\\\server\\share\\x', /network \(UNC\) path/],
      ['//server/share/x', /network \(UNC\) path/],
      ['~/secrets', /home folder/],
      ['~user/x', /home folder/],
      ['../x.ts', /leads out of the workspace folder/],
      ['src/../../x.ts', /leads out of the workspace folder/],
      ['src\\..\\..\\x.ts', /leads out of the workspace folder/],
      ['a/./../b/../../c', /leads out of the workspace folder/],
      ['file:///etc/passwd', /is a URL/],
      ['https://example.com/x', /is a URL/],
      ['src/a\u0000.ts', /control character/],
      ['src/a\u001b.ts', /control character/],
      ['#L10', /path is empty/],
      ['src/..', /names the workspace folder itself/],
      ['.', /names the workspace folder itself/],
      ['src/.../x', /only of dots and spaces/],
      ['src/.. /x', /only of dots and spaces/],
      ['src/a.ts#L0', /Line numbers start at 1/],
      ['src/a.ts#L0-3', /Line numbers start at 1/],
      ['src/a.ts#L40-10', /ends before it starts/],
      ['src/a.ts#L', /is not a line range/],
      ['src/a.ts#Lx', /is not a line range/],
      ['src/a.ts#L10-', /is not a line range/],
      ['src/a.ts#10-20', /is not a line range/],
      ['src/a.ts#', /is not a line range/],
      ['src/a.ts#L1234567890', /is not a line range/],
    ];
    for (const [value, message] of bad) {
      const file = parseQueryFile(`## Q\n- context: ${value}\nq`);
      assert.deepEqual(file.queries[0].context, [], value);
      const p = problem(file, 'badContext');
      assert.match(p.message, message, value);
      assert.equal(p.severity, 'error');
      assert.deepEqual(p.span, { line: 1, start: 11, end: 11 + value.length }, value);
      assert.deepEqual(file.queries[0].problems, [p]);
      if (!/Line numbers|ends before/.test(p.message)) assert.match(p.message, /relative to the workspace folder, e\.g\. src\/app\.ts#L10-40/, value);
    }
  });

  it('unknownKey: an error on the key, with the key it most likely meant', () => {
    const file = parseQueryFile('## Q\n- app: a\n- Env: e\n- contexts: c\n- expectation: x\n- enviroment: e\n- question: why\nq');
    assert.deepEqual(file.problems.map((p) => [p.code, p.severity, p.span, p.suggestion]), [
      ['unknownKey', 'error', { line: 1, start: 2, end: 5 }, 'application'],
      ['unknownKey', 'error', { line: 2, start: 2, end: 5 }, 'environment'],
      ['unknownKey', 'error', { line: 3, start: 2, end: 10 }, 'context'],
      ['unknownKey', 'error', { line: 4, start: 2, end: 13 }, 'expect'],
      ['unknownKey', 'error', { line: 5, start: 2, end: 12 }, 'environment'],
      ['unknownKey', 'error', { line: 6, start: 2, end: 10 }, undefined],
    ]);
    assert.equal(file.problems[0].message, 'Unknown option "app". Did you mean "application"? The options are: application, environment, context, expect, cases, runs and passes.');
    assert.equal(file.problems[5].message, 'Unknown option "question". The options are: application, environment, context, expect, cases, runs and passes.');
    assert.ok(!('suggestion' in file.problems[5]));
    // Unknown keys are not options; the list is still the option list.
    assert.deepEqual(file.queries[0].options, []);
    assert.equal(file.queries[0].question, 'q');
    assert.equal(suggestKey('APPLICATIONS'), 'application');
    assert.equal(suggestKey('xyz'), undefined);
  });

  it('badExpect: an error on the value, saying which forms exist; the expectations that parse are kept', () => {
    const file = parseQueryFile('## Q\n- expect: contains refund\n- expect: contains "ok"\n- expect: matches /(/\nq');
    assert.deepEqual(problemsOf(file), ['badExpect@1:10-25', 'badExpect@3:10-21']);
    assert.match(file.problems[0].message, /contains takes quoted text, e\.g\. contains "refund"/);
    assert.match(file.problems[1].message, /matches takes a regex/);
    assert.deepEqual(file.queries[0].expect.map((e) => e.source), ['contains "ok"']);
    assert.equal(file.queries[0].options.length, 3);
  });

  it('duplicateEnvironment: an error on the second value; the first environment stays', () => {
    const file = parseQueryFile('## Q\n- environment: staging\n- environment: prod\nq');
    const p = problem(file, 'duplicateEnvironment');
    assert.deepEqual([p.span, p.severity], [{ line: 2, start: 15, end: 19 }, 'error']);
    assert.match(p.message, /already names the environment "staging" \(line 2\)/);
    assert.equal(file.queries[0].environment?.name, 'staging');
  });

  it('emptyValue: an error on the option line, with the place to type the value', () => {
    const file = parseQueryFile('## Q\n- application:\n- environment:   \n- context: ``\n- expect:\nq');
    assert.deepEqual(problemsOf(file), ['emptyValue@1:0-14', 'emptyValue@2:0-17', 'emptyValue@3:0-13', 'emptyValue@4:0-9']);
    assert.ok(file.problems.every((p) => p.severity === 'error'));
    const q = file.queries[0];
    assert.deepEqual(q.options.map((o) => o.valueSpan), [
      { line: 1, start: 14, end: 14 },
      { line: 2, start: 17, end: 17 },
      { line: 3, start: 12, end: 12 },
      { line: 4, start: 9, end: 9 },
    ]);
    assert.deepEqual([q.applications, q.environment, q.context, q.expect], [[], undefined, [], []]);
  });

  it('emptyApplication: an error on a comma that can go', () => {
    const cases: Array<[string, string[], string[]]> = [
      ['a,,b', ['emptyApplication@1:17-18'], ['a', 'b']],
      ['a, ', ['emptyApplication@1:16-17'], ['a']],
      [', a', ['emptyApplication@1:15-16'], ['a']],
      ['a,,', ['emptyApplication@1:17-18'], ['a']],
      [',', ['emptyApplication@1:15-16'], []],
    ];
    for (const [value, problems, names] of cases) {
      const file = parseQueryFile(`## Q\n- application: ${value}\nq`);
      assert.deepEqual(problemsOf(file), problems, value);
      assert.deepEqual(file.queries[0].applications.map((a) => a.name), names, value);
    }
  });

  it('emptyQuestion: a warning on the heading (a query with only context can still be sent)', () => {
    const file = parseQueryFile('## Only context\n- context: src/a.ts\n\n## Nothing\n\n\nSetext\n------\n');
    assert.deepEqual(problemsOf(file), ['emptyQuestion@0:0-15', 'emptyQuestion@3:0-10', 'emptyQuestion@6:0-6']);
    assert.ok(file.problems.every((p) => p.severity === 'warning'));
    assert.match(file.problems[0].message, /only its context is sent/);
    assert.deepEqual(file.queries.map((q) => [q.question, q.questionLine]), [['', undefined], ['', undefined], ['', undefined]]);
    assert.ok(file.queries.every((q) => !('questionLine' in q)));
  });

  it('duplicateName: a warning on the second heading', () => {
    const file = parseQueryFile('## Same\na\n## Other\nb\n  ## Same  \nc\n## same\nd');
    assert.deepEqual(problemsOf(file), ['duplicateName@4:2-9']);
    const p = problem(file, 'duplicateName');
    assert.deepEqual([p.severity, p.queryIndex], ['warning', 2]);
    assert.deepEqual(file.queries[2].problems, [p]);
  });

  it('every problem names its query and is also on that query', () => {
    const file = parseQueryFile('## A\n- app: x\nq\n## B\n- context: /x\nq\n');
    assert.deepEqual(file.problems.map((p) => [p.code, p.queryIndex]), [['unknownKey', 0], ['badContext', 1]]);
    assert.deepEqual(file.queries.flatMap((q) => q.problems), file.problems);
  });

  it('a leading front matter block is notes, not a setext heading', () => {
    const file = parseQueryFile('---\ntitle: Queries\n---\nNotes.\n\n## A\nq\n');
    assert.deepEqual(file.queries.map((q) => [q.name, q.headingLine]), [['A', 5]]);
    assert.deepEqual(parseQueryFile('---\nlist:\n  - a\n# comment\n\n...\n## A\nq').queries.map((q) => [q.name, q.headingLine]), [['A', 6]]);
    // Lines that are not YAML, or no closing line: a thematic break, and a setext heading under it as usual.
    assert.deepEqual(parseQueryFile('---\ntitle\n---\n').queries.map((q) => q.name), ['title']);
    assert.deepEqual(parseQueryFile('---\n## A\nq\n\n---\n').queries.map((q) => q.name), ['A']);
    assert.deepEqual(parseQueryFile('---\nkey: v\n\nIntro\n---\n').queries.map((q) => q.name), ['Intro']);
  });

  it('an empty heading is a query with an empty name (it does not merge into the query before it)', () => {
    const file = parseQueryFile('## A\na\n##\nb\n');
    assert.deepEqual(file.queries.map((q) => [q.name, q.question]), [['A', 'a'], ['', 'b']]);
    assert.deepEqual(file.queries[1].nameSpan, { line: 2, start: 2, end: 2 });
    assert.deepEqual(file.queries[1].headingSpan, { line: 2, start: 0, end: 2 });
  });

  it('optionForm reads the parts of an option line', () => {
    assert.deepEqual(optionForm('   - key_1-x :  v'), { marker: 3, keyStart: 5, keyEnd: 12, afterColon: 14 });
    assert.equal(optionForm('    - key: v'), undefined);
    assert.equal(optionForm('- : v'), undefined);
    assert.equal(optionForm('-key: v'), undefined);
    assert.equal(optionForm('- http://x'), undefined);
    assert.deepEqual(optionForm('- clé:'), { marker: 0, keyStart: 2, keyEnd: 5, afterColon: 6 });
  });
});

describe('query files: optionAt', () => {
  const file = parseQueryFile('notes\n## A\n- application: a\n- expect: status 200\n\nq\n## B\n  - environment: e\nq');

  it('finds the option line and its query at a position', () => {
    const at = optionAt(file, 2, 16);
    assert.equal(at?.query.name, 'A');
    assert.equal(at?.option?.key, 'application');
    assert.equal(optionAt(file, 3, 0)?.option?.key, 'expect');
    assert.equal(optionAt(file, 3, 200)?.option?.key, 'expect');
    assert.equal(optionAt(file, 7, 2)?.option?.key, 'environment');
    assert.equal(optionAt(file, 7, 2)?.query.name, 'B');
  });

  it('a position in a query but on no option gives the query alone; in the notes or past the end, nothing', () => {
    assert.deepEqual(optionAt(file, 5, 0), { query: file.queries[0] });
    assert.deepEqual(optionAt(file, 1, 0), { query: file.queries[0] });
    assert.deepEqual(optionAt(file, 7, 0), { query: file.queries[1] });
    assert.equal(optionAt(file, 0, 0), undefined);
    assert.equal(optionAt(file, 99, 0), undefined);
    assert.equal(optionAt(file, -1, 0), undefined);
  });
});
