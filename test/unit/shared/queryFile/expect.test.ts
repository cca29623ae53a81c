import * as assert from 'node:assert/strict';
import { checkExpectations, duration, parseExpectation, statusLabel, type Expectation, type RunResult, type Span } from '../../../../src/shared/queryFile';

const SPAN: Span = { line: 3, start: 10, end: 40 };

/** The expectation `value` parses to (fails the test on an error). */
function parsed(value: string): Expectation {
  const result = parseExpectation(value, SPAN);
  assert.ok(!('error' in result), `${value}: ${'error' in result ? result.error : ''}`);
  return result;
}

/** The error `value` gives (fails the test when it parses). */
function error(value: string): string {
  const result = parseExpectation(value, SPAN);
  assert.ok('error' in result, `${value} should not parse`);
  return result.error;
}

/** An expectation without its compiled regex (which has no value to compare). */
function withoutRegex(expectation: Expectation): object {
  if (expectation.kind !== 'matches') return expectation;
  const { regex, ...rest } = expectation;
  assert.equal(typeof regex.test, 'function');
  return rest;
}

const OK: RunResult = { status: 200, answer: 'Our refund policy:\nrefunds within 30 days.', firstByteMs: 420, totalMs: 3100, kind: 'done' };

describe('query files: parseExpectation', () => {
  it('contains / not contains: double or single quotes, escapes, any case of the keywords', () => {
    assert.deepEqual(parseExpectation('contains "refund"', SPAN), { kind: 'contains', text: 'refund', negate: false, source: 'contains "refund"', span: SPAN });
    assert.deepEqual(parseExpectation('  NOT   Contains \'I don\\\'t know\'  ', SPAN), { kind: 'contains', text: "I don't know", negate: true, source: "NOT   Contains 'I don\\'t know'", span: SPAN });
    assert.equal((parsed('contains "a \\"quoted\\" \\\\ b"') as { text: string }).text, 'a "quoted" \\ b');
    assert.equal((parsed('contains "line\\nnext\\ttab\\r"') as { text: string }).text, 'line\nnext\ttab\r');
    assert.equal((parsed('contains "\\u0041\\u{1F600}"') as { text: string }).text, 'A😀');
    assert.equal((parsed('contains "it\'s"') as { text: string }).text, "it's");
    assert.equal((parsed("contains 'say \"hi\"'") as { text: string }).text, 'say "hi"');
    assert.equal((parsed('contains"x"') as { text: string }).text, 'x');
  });

  it('matches / not matches: /pattern/flags, \\/ and [/] inside, flags validated', () => {
    assert.deepEqual(withoutRegex(parsed('matches /refund(s)?/i')), { kind: 'matches', pattern: 'refund(s)?', flags: 'i', negate: false, source: 'matches /refund(s)?/i', span: SPAN });
    assert.deepEqual(withoutRegex(parsed('not matches /a\\/b[/]c/gmsu')), { kind: 'matches', pattern: 'a\\/b[/]c', flags: 'gmsu', negate: true, source: 'not matches /a\\/b[/]c/gmsu', span: SPAN });
    assert.equal((parsed('Matches /\\d+ days/') as { pattern: string }).pattern, '\\d+ days');
  });

  it('status: a code, a class (2xx) or a range', () => {
    assert.deepEqual(parseExpectation('status 200', SPAN), { kind: 'status', min: 200, max: 200, source: 'status 200', span: SPAN });
    assert.deepEqual([parsed('STATUS 2xx'), parsed('status 4XX'), parsed('status 200 - 204')].map((e) => e.kind === 'status' && [e.min, e.max]), [[200, 299], [400, 499], [200, 204]]);
  });

  it('timings: first byte under / total under, in ms, s or m, with decimals and spaces', () => {
    assert.deepEqual(parseExpectation('first byte under 2s', SPAN), { kind: 'firstByteUnder', ms: 2000, source: 'first byte under 2s', span: SPAN });
    assert.deepEqual(parseExpectation('total under 10s', SPAN), { kind: 'totalUnder', ms: 10000, source: 'total under 10s', span: SPAN });
    const ms = (value: string): number => {
      const e = parsed(value);
      assert.ok(e.kind === 'firstByteUnder' || e.kind === 'totalUnder', value);
      return e.ms;
    };
    assert.deepEqual(
      ['first byte under 1.5s', 'First  Byte Under 500ms', 'total under 2 s', 'total under 1m', 'total under .5 S', 'total under 2 seconds', 'total under 1.25 min', 'total under 250 MS'].map(ms),
      [1500, 500, 2000, 60000, 500, 2000, 75000, 250],
    );
  });

  it('anything else is an error that lists the forms', () => {
    const forms = 'contains "text", not contains "text", matches /regex/flags, not matches /regex/flags, status 200 (or 2xx, or 200-204), first byte under 2s, total under 10s, json, json schema path/to/schema.json, max gap under 2s, judged by <application>: <criterion>, judged by model <name or id>: <criterion>';
    assert.equal(error('nope'), `"nope" is not an expectation. Use one of: ${forms}.`);
    assert.equal(error(''), `An empty expectation. Use one of: ${forms}.`);
    assert.equal(error('not status 200'), `"not status 200" is not an expectation. Use one of: ${forms}.`);
    assert.equal(error('containing "x"'), `"containing "x"" is not an expectation. Use one of: ${forms}.`);
    assert.match(error('x'.repeat(500)), /^"x{59}…" is not an expectation/);
  });

  it('bad values of a known form say what is wrong', () => {
    const cases: Array<[string, RegExp]> = [
      ['contains refund', /contains takes quoted text, e\.g\. contains "refund": the text is not in quotes\./],
      ['contains', /the text is missing/],
      ['contains "refund', /the closing quote is missing/],
      ['contains "a" b', /more after the closing quote/],
      ['contains "a\\qb"', /\\q is not an escape; the escapes are/],
      ['contains "a\\', /ends in a backslash|closing quote is missing/],
      ['contains "\\u12"', /\\u escape needs four hex digits/],
      ['contains "\\u{110000}"', /\\u escape needs/],
      ['contains ""', /needs some text between the quotes/],
      ['not contains x', /not contains takes quoted text, e\.g\. not contains "refund"/],
      ['matches refund', /between slashes/],
      ['matches /refund', /closing slash is missing/],
      ['matches //', /the regex is empty/],
      ['matches /a/x', /"x" is not a regex flag; the flags are i \(ignore case\), m/],
      ['matches /a/ii', /the flag i is given twice/],
      ['matches /a/v', /the v flag \(set notation\) is not supported/],
      ['matches /a/i junk', /is not a set of flags/],
      ['matches /(/', /the regex cannot be read \(missing closing \): `\(`\)\. Query files use RE2 syntax/],
      ['matches /a{1001}/', /the regex cannot be read \(invalid repeat count/],
      ['matches /a\\/', /closing slash is missing/],
      ['status', /status takes an HTTP status between 100 and 599/],
      ['status 20', /status takes/],
      ['status 600', /status takes/],
      ['status 6xx', /status takes/],
      ['status 204-200', /status takes/],
      ['status ok', /status takes/],
      ['first byte under', /first byte under takes a duration above zero in ms, s or m, e\.g\. first byte under 2s/],
      ['first byte under 2', /first byte under takes a duration/],
      ['first byte under 2 hours', /first byte under takes a duration/],
      ['total under 0s', /total under takes a duration above zero/],
      ['total under -1s', /total under takes a duration/],
      ['total under 1e3ms', /total under takes a duration/],
    ];
    for (const [value, message] of cases) assert.match(error(value), message, value);
  });
});

describe('query files: checkExpectations', () => {
  it('without a status expectation, an implicit first check: 2xx and a non-empty answer', () => {
    assert.deepEqual(checkExpectations([], OK), [{ passed: true, message: 'HTTP 200 and a non-empty answer.' }]);
    assert.deepEqual(checkExpectations([], { ...OK, status: 500 }), [{ passed: false, message: 'Expected HTTP 2xx, got HTTP 500.', expected: '2xx', actual: '500' }]);
    assert.deepEqual(checkExpectations([], { ...OK, answer: ' \n ' }), [{ passed: false, message: 'Expected a non-empty answer, the answer is empty.' }]);
    assert.deepEqual(checkExpectations([], { ...OK, status: undefined }), [{ passed: false, message: 'Expected HTTP 2xx, no status came back.', expected: '2xx' }]);
    const contains = parsed('contains "refund"');
    const results = checkExpectations([contains], OK);
    assert.equal(results.length, 2);
    assert.equal(results[0].expectation, undefined);
    assert.equal(results[1].expectation, contains);
  });

  it('a run that did not complete fails the implicit check, naming its kind and message', () => {
    assert.deepEqual(checkExpectations([], { ...OK, kind: 'interrupted', message: 'connection reset' }), [{ passed: false, message: 'The query did not complete (interrupted: connection reset).' }]);
    assert.deepEqual(checkExpectations([], { ...OK, kind: 'stopped' }), [{ passed: false, message: 'The query did not complete (stopped).' }]);
    assert.deepEqual(checkExpectations([], { answer: '', totalMs: 5, kind: 'error', message: 'ECONNREFUSED' }), [{ passed: false, message: 'The query did not complete (error: ECONNREFUSED).' }]);
  });

  it('with a status expectation there is no implicit check; the status decides', () => {
    const status = parsed('status 500');
    assert.deepEqual(checkExpectations([status], { ...OK, status: 500, answer: '', kind: 'error', message: 'Internal Server Error' }), [{ expectation: status, passed: true, message: 'HTTP 500, as expected.' }]);
    const ok = parsed('status 200');
    assert.deepEqual(checkExpectations([ok], { ...OK, status: 500 }), [{ expectation: ok, passed: false, message: 'Expected HTTP 200, got HTTP 500.', expected: '200', actual: '500' }]);
    const family = parsed('status 2xx');
    assert.deepEqual(checkExpectations([family], { ...OK, status: 404 })[0].message, 'Expected HTTP 2xx, got HTTP 404.');
    assert.deepEqual(checkExpectations([family], { answer: '', totalMs: 1, kind: 'error', message: 'ECONNREFUSED' }), [{ expectation: family, passed: false, message: 'Expected HTTP 2xx, no status came back (error: ECONNREFUSED).', expected: '2xx' }]);
    assert.deepEqual([statusLabel(200, 200), statusLabel(400, 499), statusLabel(200, 204)], ['200', '4xx', '200-204']);
  });

  it('contains: case-sensitive; a failure carries expected and actual for a diff', () => {
    const e = parsed('contains "refund"');
    assert.deepEqual(checkExpectations([e], OK)[1], { expectation: e, passed: true, message: 'The answer contains "refund".' });
    const upper = parsed('contains "Refund"');
    assert.deepEqual(checkExpectations([upper], { ...OK, answer: 'no refunds' })[1], { expectation: upper, passed: false, message: 'Expected the answer to contain "Refund", it does not.', expected: 'Refund', actual: 'no refunds' });
  });

  it('not contains: a failure says where the text was found', () => {
    const e = parsed('not contains "30 days"');
    const [, result] = checkExpectations([e], OK);
    assert.deepEqual(result, { expectation: e, passed: false, message: 'Expected the answer not to contain "30 days", found at line 2, column 16: "…icy: refunds within 30 days.".', actual: OK.answer });
    assert.deepEqual(checkExpectations([parsed('not contains "I don\'t know"')], OK)[1].passed, true);
    const long = `${'a'.repeat(100)}NEEDLE${'b'.repeat(100)}`;
    assert.equal(checkExpectations([parsed('not contains "NEEDLE"')], { ...OK, answer: long })[1].message, `Expected the answer not to contain "NEEDLE", found at line 1, column 101: "…${'a'.repeat(20)}NEEDLE${'b'.repeat(20)}…".`);
  });

  it('matches / not matches', () => {
    const e = parsed('matches /(\\d+) days/');
    assert.deepEqual(checkExpectations([e], OK)[1], { expectation: e, passed: true, message: 'The answer matches /(\\d+) days/.' });
    const miss = parsed('matches /weeks/i');
    assert.deepEqual(checkExpectations([miss], OK)[1], { expectation: miss, passed: false, message: 'Expected the answer to match /weeks/i, it does not.', actual: OK.answer });
    const not = parsed('not matches /REFUNDS/i');
    assert.deepEqual(checkExpectations([not], OK)[1], { expectation: not, passed: false, message: 'Expected the answer not to match /REFUNDS/i, it does at line 2, column 1: "Our refund policy: refunds within 30 days.".', actual: OK.answer });
    assert.equal(checkExpectations([parsed('not matches /weeks/')], OK)[1].passed, true);
  });

  it('a regex with the g (or y) flag gives the same result every time', () => {
    for (const source of ['matches /refund/g', 'matches /Our/y', 'not matches /weeks/g']) {
      const e = parsed(source);
      const first = checkExpectations([e], OK);
      const second = checkExpectations([e], OK);
      const third = checkExpectations([e, e], OK);
      assert.deepEqual(second, first, source);
      assert.equal(first[1].passed, true, source);
      assert.deepEqual([third[1].passed, third[2].passed], [true, true], source);
    }
  });

  it('an answer cut short proves nothing about what it lacks', () => {
    const status = parsed('status 200');
    const cut: RunResult = { ...OK, kind: 'interrupted', message: 'connection reset' };
    const results = checkExpectations([status, parsed('not contains "weeks"'), parsed('not matches /weeks/'), parsed('contains "refund"'), parsed('total under 10s')], cut);
    assert.deepEqual(results.map((r) => r.passed), [true, false, false, true, false]);
    assert.equal(results[1].message, 'Cannot tell whether the answer contains "weeks": it did not complete (interrupted: connection reset).');
    assert.equal(results[4].message, 'Expected the whole answer within 10 s, it did not complete (interrupted: connection reset).');
  });

  it('timings: under the limit passes; over it, or no first byte, fails with plain words', () => {
    const first = parsed('first byte under 2s');
    assert.deepEqual(checkExpectations([first], OK)[1], { expectation: first, passed: true, message: 'The first byte came after 420 ms (limit 2 s).' });
    assert.deepEqual(checkExpectations([first], { ...OK, firstByteMs: 3410 })[1], { expectation: first, passed: false, message: 'Expected the first byte within 2 s, it came after 3.41 s.', expected: '< 2 s', actual: '3.41 s' });
    assert.equal(checkExpectations([first], { ...OK, firstByteMs: 2000 })[1].passed, false);
    assert.deepEqual(checkExpectations([first], { ...OK, firstByteMs: undefined })[1], { expectation: first, passed: false, message: 'Expected the first byte within 2 s, no byte came.', expected: '< 2 s' });
    const total = parsed('total under 1.5s');
    assert.deepEqual(checkExpectations([total], OK)[1], { expectation: total, passed: false, message: 'Expected the whole answer within 1.5 s, it took 3.1 s.', expected: '< 1.5 s', actual: '3.1 s' });
    assert.equal(checkExpectations([parsed('total under 500ms')], { ...OK, totalMs: 499.4 })[1].message, 'The whole answer took 499 ms (limit 500 ms).');
    assert.deepEqual([duration(730), duration(2000), duration(3414), duration(90_000)], ['730 ms', '2 s', '3.41 s', '90 s']);
  });

  it('one result per expectation, in order, after the implicit one', () => {
    const list = ['contains "refund"', 'not contains "weeks"', 'matches /30/', 'first byte under 1s', 'total under 10s'].map(parsed);
    const results = checkExpectations(list, OK);
    assert.deepEqual(results.map((r) => [r.expectation?.source, r.passed]), [
      [undefined, true],
      ['contains "refund"', true],
      ['not contains "weeks"', true],
      ['matches /30/', true],
      ['first byte under 1s', true],
      ['total under 10s', true],
    ]);
  });
});
