import * as assert from 'node:assert/strict';
import { checkExpectations, parseExpectation, type Expectation, type RunResult, type Span } from '../../../../src/shared/queryFile';

const SPAN: Span = { line: 0, start: 0, end: 1 };

/** What an `expect:` value reads as: the expectation, or the error's text. */
function read(value: string): Expectation | string {
  const result = parseExpectation(value, SPAN);
  return 'error' in result ? result.error : result;
}

/** Whether `expect: matches <regex>` passes on `answer`. */
function matches(regex: string, answer: string): boolean {
  const expectation = read(`matches ${regex}`);
  if (typeof expectation === 'string') assert.fail(`${regex}: ${expectation}`);
  const run: RunResult = { status: 200, answer, totalMs: 1, kind: 'done' };
  return checkExpectations([expectation], run)[1].passed;
}

describe('query files: matches runs in linear time (RE2) with JavaScript meaning', () => {
  it('the issue\'s pattern on a 99-character answer that almost matches ends at once (backtracking never ends)', () => {
    const answer = `${'a'.repeat(99)}!`;
    const started = process.hrtime.bigint();
    assert.equal(matches('/^(\\w+\\s?)+$/', answer), false);
    assert.equal(matches('/^(\\w+\\s?)+$/', 'two words'), true);
    // Not a speed goal (that is the bench's row): backtracking takes longer than the universe's age here.
    assert.ok(process.hrtime.bigint() - started < 5_000_000_000n);
  });

  it('backreferences and lookaround are errors on their line that say why and what to write instead', () => {
    for (const [value, what] of [
      ['matches /(a)\\1/', '"\\1" (a backreference)'],
      ['matches /(?<w>a)\\k<w>/', '"\\k<…>" (a named backreference)'],
      ['matches /a(?=b)/', '"(?=" (lookahead)'],
      ['not matches /a(?!b)/', '"(?!" (negative lookahead)'],
      ['matches /(?<=a)b/', '"(?<=" (lookbehind)'],
      ['matches /(?<!a)b/', '"(?<!" (negative lookbehind)'],
    ]) {
      const message = read(value);
      if (typeof message !== 'string') assert.fail(`${value} should not parse`);
      assert.ok(message.includes(`${what} is not supported: they can take exponential time on a long answer`), message);
      assert.match(message, /RE2 syntax/);
      assert.match(message, /Write the repeated text out|Match the text itself/);
    }
    assert.match(read(`matches /${'('.repeat(3000)}${')'.repeat(3000)}/`) as string, /the regex is 6000 characters long; the most is 4096/);
    // (?<name>…) is a named group, no lookbehind.
    assert.equal(matches('/(?<year>\\d{4})-\\d\\d/', 'on 2024-05'), true);
  });

  it('g, y and d are ignored; i, m, s and u mean what they mean in JavaScript', () => {
    assert.equal(matches('/REFUND/gi', 'a refund'), true);
    assert.equal(matches('/refund/yd', 'a refund'), true);
    assert.equal(matches('/^b$/', 'a\nb'), false);
    assert.equal(matches('/^b$/m', 'a\nb\nc'), true);
    assert.equal(matches('/a.b/', 'a\nb'), false);
    assert.equal(matches('/a.b/s', 'a\nb'), true);
    assert.equal(matches('/^.$/u', '😀'), true);
  });

  it('keeps JavaScript\'s meaning where RE2 reads the text differently', () => {
    // \s takes Unicode spaces; \S refuses them.
    assert.equal(matches('/a\\sb/', 'a\u00a0b'), true);
    assert.equal(matches('/a[\\s,]b/', 'a\u2003b'), true);
    assert.equal(matches('/a\\Sb/', 'a\u00a0b'), false);
    // . stops at \r, \u2028 and \u2029 as well as \n.
    assert.equal(matches('/a.b/', 'a\rb'), false);
    assert.equal(matches('/a.b/', 'a\u2028b'), false);
    // $ with m matches before \r\n (answers with Windows line ends).
    assert.equal(matches('/^first line$/m', 'first line\r\nsecond'), true);
    // $ without m is the end of the answer only, as in JavaScript.
    assert.equal(matches('/end$/', 'the end\n'), false);
    // \uXXXX, \u{…}, \cJ, [^] and [].
    assert.equal(matches('/\\u0041\\u{1F600}/u', 'A😀'), true);
    assert.equal(matches('/a\\cJb/', 'a\nb'), true);
    assert.equal(matches('/a[^]b/', 'a\nb'), true);
    assert.equal(matches('/a[]b/', 'ab'), false);
    // An escaped letter that is no JavaScript escape is the letter (RE2 would read \z as the end).
    assert.equal(matches('/\\z/', 'z'), true);
    assert.equal(matches('/\\A/', 'A'), true);
    // \d and \w stay ASCII, \b too.
    assert.equal(matches('/\\d/', '\u0663'), false);
    assert.equal(matches('/\\bcat\\b/', 'a cat!'), true);
  });

  it('not matches reports where the first match is, in the editor\'s columns', () => {
    const run: RunResult = { status: 200, answer: 'line one\n😀 say refund', totalMs: 1, kind: 'done' };
    const not = read('not matches /refund/');
    if (typeof not === 'string') assert.fail(not);
    const result = checkExpectations([not], run)[1];
    assert.equal(result.passed, false);
    assert.match(result.message, /at line 2, column 8: /);
  });
});
