/**
 * The `expect:` lines of a query file: what each form means, how its value is read, and how a run's
 * result is checked against them. Plain functions of strings and numbers: the extension host calls
 * them once a query's answer is complete and shows each result in the Testing view.
 *
 * Every keyword is case-insensitive. Text is quoted (double or single quotes, with `\"`, `\'`,
 * `\\`, `\n`, `\r`, `\t`, `\uXXXX` and `\u{…}` escapes); a regex is written `/pattern/flags` and
 * is compiled once here (by RE2, in linear time: see ./regex), so a regex that cannot compile or
 * cannot run in linear time is an error on its line, never at run time.
 */
import type { Span } from './span';
import { compileAnswerRegex, type AnswerRegex } from './regex';

/** One expectation of a query, as parsed from its `expect:` line (`source` is the value as written). */
export type Expectation =
  | { readonly kind: 'contains'; readonly text: string; readonly negate: boolean; readonly source: string; readonly span: Span }
  | { readonly kind: 'matches'; readonly pattern: string; readonly flags: string; readonly regex: AnswerRegex; readonly negate: boolean; readonly source: string; readonly span: Span }
  | { readonly kind: 'status'; readonly min: number; readonly max: number; readonly source: string; readonly span: Span }
  | { readonly kind: 'firstByteUnder' | 'totalUnder'; readonly ms: number; readonly source: string; readonly span: Span }
  | { readonly kind: 'json'; readonly source: string; readonly span: Span }
  | { readonly kind: 'jsonSchema'; readonly path: string; readonly source: string; readonly span: Span }
  | { readonly kind: 'maxGapUnder'; readonly ms: number; readonly source: string; readonly span: Span }
  | { readonly kind: 'judgedBy'; readonly application: string; readonly criterion: string; readonly source: string; readonly span: Span }
  | { readonly kind: 'judgedByModel'; readonly model: string; readonly criterion?: string; readonly source: string; readonly span: Span };

/** The expectations whose verdict needs something beyond the run itself (a schema file, a judge). */
export type OutsideExpectation = Extract<Expectation, { kind: 'jsonSchema' | 'judgedBy' | 'judgedByModel' }>;

/** A compiled JSON Schema: the violations of a value, each with its JSON pointer (empty when it validates). */
export interface SchemaCheck {
  readonly violations: (value: unknown) => readonly { readonly pointer: string; readonly message: string }[];
}

/** A judge's verdict on an answer, or why there is none (`notRun`: nothing could ask it, as on the command line for VS Code's models). */
export type Judgement = { readonly pass: boolean; readonly reason: string } | { readonly error: string; readonly notRun?: boolean };

/**
 * What the caller found outside the run for the expectations that need it: each schema file
 * compiled (or why it cannot be), each judge's verdict. An expectation with nothing here fails.
 */
export interface OutsideVerdicts {
  /** By the `json schema` path as written. */
  readonly schemas?: ReadonlyMap<string, SchemaCheck | { readonly error: string }>;
  /** By the expectation object itself. */
  readonly judgements?: ReadonlyMap<Expectation, Judgement>;
}

/** What came back from one run. */
export interface RunResult {
  readonly status?: number;
  readonly answer: string;
  readonly firstByteMs?: number;
  readonly totalMs: number;
  /** 'done' when complete; otherwise the query stopped/failed */
  readonly kind: 'done' | 'stopped' | 'interrupted' | 'error';
  readonly message?: string;
  /** The longest silence between two chunks of the stream, where the bytes arrived (undefined: fewer than one chunk came). */
  readonly maxGapMs?: number;
}

/** The verdict on one expectation (or, without `expectation`, on the implicit "2xx and an answer" check). */
export interface ExpectationResult {
  readonly expectation?: Expectation;
  readonly passed: boolean;
  readonly message: string;
  readonly expected?: string;
  readonly actual?: string;
  /** The expectation could not be checked here at all (a VS Code model on the command line): neither passed nor failed by the answer. */
  readonly notRun?: boolean;
}

/** The forms an `expect:` value can take, as error messages list them. */
export const EXPECT_FORMS = 'contains "text", not contains "text", matches /regex/flags, not matches /regex/flags, status 200 (or 2xx, or 200-204), first byte under 2s, total under 10s, json, json schema path/to/schema.json, max gap under 2s, judged by <application>: <criterion>, judged by model <name or id>: <criterion>';

const NOT = /^not[ \t]+/i;
const CONTAINS = /^contains(?![\p{L}\p{N}_])/iu;
const MATCHES = /^matches(?![\p{L}\p{N}_])/iu;
const STATUS = /^status(?![\p{L}\p{N}_])/iu;
const FIRST_BYTE = /^first[ \t]+byte[ \t]+under(?![\p{L}\p{N}_])/iu;
const TOTAL = /^total[ \t]+under(?![\p{L}\p{N}_])/iu;
const JSON_FORM = /^json$/i;
const JSON_SCHEMA = /^json[ \t]+schema(?![\p{L}\p{N}_])/iu;
const MAX_GAP = /^max[ \t]+gap[ \t]+under(?![\p{L}\p{N}_])/iu;
const JUDGED_BY = /^judged[ \t]+by(?![\p{L}\p{N}_])/iu;
const MODEL = /^model(?![\p{L}\p{N}_])/iu;
const DURATION = /^(\d{1,12}(?:\.\d{1,12})?|\.\d{1,12})[ \t]*([a-z]{1,12})$/i;
const STATUS_CODE = /^([1-5]\d\d)$/;
const STATUS_CLASS = /^([1-5])xx$/i;
const STATUS_RANGE = /^([1-5]\d\d)[ \t]*-[ \t]*([1-5]\d\d)$/;
const FLAGS = /^[a-z]*$/i;

/** Milliseconds per unit of a duration (`ms`, `s`, `m` and their longer spellings). */
const UNITS: ReadonlyMap<string, number> = new Map([
  ['ms', 1], ['msec', 1], ['millisecond', 1], ['milliseconds', 1],
  ['s', 1000], ['sec', 1000], ['secs', 1000], ['second', 1000], ['seconds', 1000],
  ['m', 60_000], ['min', 60_000], ['mins', 60_000], ['minute', 60_000], ['minutes', 60_000],
]);

const UNKNOWN = (source: string): string =>
  `${source === '' ? 'An empty expectation' : `"${clip(source, 60)}" is not an expectation`}. Use one of: ${EXPECT_FORMS}.`;

/**
 * Reads one `expect:` value. Returns the expectation, or `{ error }` saying what is wrong and which
 * forms exist. Never throws.
 */
export function parseExpectation(value: string, span: Span): Expectation | { readonly error: string } {
  const source = value.trim();
  let rest = source;
  const not = NOT.exec(rest);
  if (not !== null) rest = rest.slice(not[0].length);
  const negate = not !== null;

  const contains = CONTAINS.exec(rest);
  if (contains !== null) {
    const quoted = rest.slice(contains[0].length).trimStart();
    const read = readQuoted(quoted);
    if ('error' in read) return { error: `${negate ? 'not contains' : 'contains'} takes quoted text, e.g. ${negate ? 'not ' : ''}contains "refund": ${read.error}` };
    if (read.text === '') return { error: `${negate ? 'not contains' : 'contains'} needs some text between the quotes, e.g. contains "refund".` };
    return { kind: 'contains', text: read.text, negate, source, span };
  }
  const matches = MATCHES.exec(rest);
  if (matches !== null) {
    const read = readRegex(rest.slice(matches[0].length).trimStart());
    if ('error' in read) return { error: `${negate ? 'not matches' : 'matches'} takes a regex, e.g. matches /refund(s)?/i: ${read.error}` };
    return { kind: 'matches', pattern: read.pattern, flags: read.flags, regex: read.regex, negate, source, span };
  }
  if (negate) return { error: UNKNOWN(source) };

  if (STATUS.test(rest)) {
    const range = readStatus(rest.slice('status'.length).trim());
    if (range === undefined) return { error: `status takes an HTTP status between 100 and 599: status 200, status 2xx or status 200-204.` };
    return { kind: 'status', min: range[0], max: range[1], source, span };
  }
  const firstByte = FIRST_BYTE.exec(rest);
  const total = firstByte === null ? TOTAL.exec(rest) : null;
  if (firstByte !== null || total !== null) {
    const head = firstByte ?? total;
    const ms = readDuration(rest.slice(head === null ? 0 : head[0].length).trim());
    const form = firstByte !== null ? 'first byte under' : 'total under';
    if (ms === undefined) return { error: `${form} takes a duration above zero in ms, s or m, e.g. ${form} 2s, ${form} 1.5 s or ${form} 500ms.` };
    return { kind: firstByte !== null ? 'firstByteUnder' : 'totalUnder', ms, source, span };
  }
  return parseVaryingForm(rest, source, span) ?? { error: UNKNOWN(source) };
}

/** The forms for answers that vary (json, json schema, max gap under, judged by), or undefined when `rest` is none of them. */
function parseVaryingForm(rest: string, source: string, span: Span): Expectation | { readonly error: string } | undefined {
  if (JSON_FORM.test(rest)) return { kind: 'json', source, span };
  const schema = JSON_SCHEMA.exec(rest);
  if (schema !== null) {
    const path = rest.slice(schema[0].length).trim();
    if (path === '') return { error: 'json schema takes the path of a JSON Schema file inside the workspace folder, e.g. json schema schemas/answer.json.' };
    return { kind: 'jsonSchema', path, source, span };
  }
  const gap = MAX_GAP.exec(rest);
  if (gap !== null) {
    const ms = readDuration(rest.slice(gap[0].length).trim());
    if (ms === undefined) return { error: 'max gap under takes a duration above zero in ms, s or m, e.g. max gap under 2s or max gap under 500ms.' };
    return { kind: 'maxGapUnder', ms, source, span };
  }
  const judged = JUDGED_BY.exec(rest);
  if (judged === null) return undefined;
  const after = rest.slice(judged[0].length).trim();
  const model = MODEL.exec(after);
  if (model !== null && !after.slice(model[0].length).trimStart().startsWith(':')) {
    // `judged by model <name or id>`, optionally `: <criterion>` (a colon and a space: ids may hold colons).
    const named = after.slice(model[0].length).trim();
    const split = /:\s/.exec(named);
    const name = split === null ? named : named.slice(0, split.index).trim();
    const criterion = split === null ? '' : named.slice(split.index + 1).trim();
    if (name === '') return { error: 'judged by model takes the name or id of one of VS Code\'s language models, e.g. judged by model gpt-4o: answers politely.' };
    return { kind: 'judgedByModel', model: name, ...(criterion === '' ? {} : { criterion }), source, span };
  }
  const colon = after.indexOf(':');
  const application = colon < 0 ? '' : after.slice(0, colon).trim();
  const criterion = colon < 0 ? '' : after.slice(colon + 1).trim();
  if (application === '' || criterion === '') return { error: 'judged by takes an application, a colon and what the answer must meet, e.g. judged by grader: answers politely and mentions "refund".' };
  return { kind: 'judgedBy', application, criterion, source, span };
}

/** The escapes quoted text may use (`\u` is handled on its own). */
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'], ["'", "'"], ['\\', '\\'], ['n', '\n'], ['r', '\r'], ['t', '\t'],
]);

/** Reads a quoted string that must fill `text` entirely. */
function readQuoted(text: string): { text: string } | { error: string } {
  const quote = text.charAt(0);
  if (quote !== '"' && quote !== "'") return { error: text === '' ? 'the text is missing.' : 'the text is not in quotes.' };
  let out = '';
  let i = 1;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (ch === quote) {
      if (i + 1 < text.length) return { error: `there is more after the closing quote ("${clip(text.slice(i + 1), 20)}").` };
      return { text: out };
    }
    if (ch !== '\\') {
      // Copy a run of plain characters at once.
      let j = i + 1;
      while (j < text.length && text.charAt(j) !== quote && text.charAt(j) !== '\\') j++;
      out += text.slice(i, j);
      i = j;
      continue;
    }
    const next = text.charAt(i + 1);
    const simple = ESCAPES.get(next);
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    if (next === 'u') {
      const code = readUnicodeEscape(text, i + 2);
      if (code === undefined) return { error: 'a \\u escape needs four hex digits (\\u0041) or a code point in braces (\\u{1F600}).' };
      out += String.fromCodePoint(code.value);
      i = code.end;
      continue;
    }
    return { error: `${next === '' ? 'the text ends in a backslash' : `\\${next} is not an escape`}; the escapes are \\" \\' \\\\ \\n \\r \\t and \\uXXXX.` };
  }
  return { error: 'the closing quote is missing.' };
}

/** A `\u` escape's code point, its digits starting at `at`: four hex digits or `{1-6 hex digits}`. */
function readUnicodeEscape(text: string, at: number): { value: number; end: number } | undefined {
  if (text.charAt(at) === '{') {
    const close = text.indexOf('}', at + 1);
    const digits = close < 0 ? '' : text.slice(at + 1, close);
    if (!/^[0-9a-f]{1,6}$/i.test(digits)) return undefined;
    const value = parseInt(digits, 16);
    return value > 0x10ffff ? undefined : { value, end: close + 1 };
  }
  const digits = text.slice(at, at + 4);
  return /^[0-9a-f]{4}$/i.test(digits) ? { value: parseInt(digits, 16), end: at + 4 } : undefined;
}

/** Reads `/pattern/flags` (filling `text`), and compiles it. */
function readRegex(text: string): { pattern: string; flags: string; regex: AnswerRegex } | { error: string } {
  if (text.charAt(0) !== '/') return { error: text === '' ? 'the regex is missing.' : 'the regex must be written between slashes.' };
  let inClass = false;
  let i = 1;
  for (; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '\\') i++;
    else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '/') break;
  }
  if (i >= text.length) return { error: 'the closing slash is missing (write \\/ for a slash inside the regex).' };
  const pattern = text.slice(1, i);
  const flags = text.slice(i + 1);
  if (pattern === '') return { error: 'the regex is empty.' };
  if (!FLAGS.test(flags)) return { error: `"${clip(flags, 20)}" after the regex is not a set of flags (such as i, m, s, u).` };
  const compiled = compileAnswerRegex(pattern, flags);
  return 'error' in compiled ? compiled : { pattern, flags, regex: compiled.regex };
}

/** A status value's inclusive range: `200`, `2xx` or `200-204`. */
function readStatus(text: string): [number, number] | undefined {
  const code = STATUS_CODE.exec(text);
  if (code !== null) return [Number(code[1]), Number(code[1])];
  const family = STATUS_CLASS.exec(text);
  if (family !== null) return [Number(family[1]) * 100, Number(family[1]) * 100 + 99];
  const range = STATUS_RANGE.exec(text);
  if (range !== null && Number(range[1]) <= Number(range[2])) return [Number(range[1]), Number(range[2])];
  return undefined;
}

/** A duration in milliseconds (`2s`, `1.5 s`, `500ms`, `1m`), if above zero. */
function readDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  const factor = m === null ? undefined : UNITS.get(m[2].toLowerCase());
  if (m === null || factor === undefined) return undefined;
  const ms = Number(m[1]) * factor;
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/**
 * Checks a run against a query's expectations: one result per expectation, in order, after an
 * implicit first result "2xx status and a non-empty answer" when none of them is a `status`.
 */
export function checkExpectations(expect: readonly Expectation[], result: RunResult, outside: OutsideVerdicts = {}): ExpectationResult[] {
  const results: ExpectationResult[] = [];
  if (!expect.some((e) => e.kind === 'status')) results.push(implicitCheck(result));
  for (const expectation of expect) results.push({ expectation, ...checkOne(expectation, result, outside) });
  return results;
}

type Verdict = Omit<ExpectationResult, 'expectation'>;

/** Whether the answer was cut short (so that what it lacks proves nothing). */
function cutShort(result: RunResult): boolean {
  return result.kind === 'stopped' || result.kind === 'interrupted';
}

/** "stopped", "error: connection refused": what kind of end a run that did not complete had. */
function describeEnd(result: RunResult): string {
  return result.message === undefined || result.message === '' ? result.kind : `${result.kind}: ${result.message}`;
}

function implicitCheck(result: RunResult): ExpectationResult {
  if (result.kind !== 'done') return { passed: false, message: `The query did not complete (${describeEnd(result)}).` };
  const status = result.status;
  if (status === undefined) return { passed: false, message: 'Expected HTTP 2xx, no status came back.', expected: '2xx' };
  if (status < 200 || status > 299) return { passed: false, message: `Expected HTTP 2xx, got HTTP ${status}.`, expected: '2xx', actual: String(status) };
  if (result.answer.trim() === '') return { passed: false, message: 'Expected a non-empty answer, the answer is empty.' };
  return { passed: true, message: `HTTP ${status} and a non-empty answer.` };
}

function checkOne(expectation: Expectation, result: RunResult, outside: OutsideVerdicts): Verdict {
  switch (expectation.kind) {
    case 'contains':
      return checkContains(expectation.text, expectation.negate, result);
    case 'matches':
      return checkMatches(expectation, result);
    case 'status':
      return checkStatus(expectation.min, expectation.max, result);
    case 'firstByteUnder':
      return checkFirstByte(expectation.ms, result);
    case 'totalUnder':
      return checkTotal(expectation.ms, result);
    case 'json':
    case 'jsonSchema':
      return checkJson(expectation, result, outside);
    case 'maxGapUnder':
      return checkMaxGap(expectation.ms, result);
    case 'judgedBy':
    case 'judgedByModel':
      return checkJudgement(expectation, result, outside.judgements?.get(expectation));
  }
}

function checkJson(expectation: Extract<Expectation, { kind: 'json' | 'jsonSchema' }>, result: RunResult, outside: OutsideVerdicts): Verdict {
  if (cutShort(result)) return { passed: false, message: `Cannot tell whether the answer is JSON: it did not complete (${describeEnd(result)}).` };
  const parsed = answerJson(result.answer);
  if ('error' in parsed) return { passed: false, message: `Expected the answer to be JSON, it is not: ${parsed.error}`, actual: result.answer };
  if (expectation.kind === 'json') return { passed: true, message: parsed.fenced ? 'The answer\'s fenced block is JSON.' : 'The answer is JSON.' };
  const schema = outside.schemas?.get(expectation.path);
  const named = quote(expectation.path);
  if (schema === undefined) return { passed: false, message: `The schema ${named} was not read, so the answer could not be checked against it.` };
  if ('error' in schema) return { passed: false, message: `The answer could not be checked against ${named}: ${schema.error}` };
  const violations = schema.violations(parsed.value);
  if (violations.length === 0) return { passed: true, message: `The answer is JSON that validates against ${named}.` };
  const shown = violations.slice(0, MAX_VIOLATIONS_SHOWN).map((v) => `${v.pointer === '' ? '(the whole answer)' : v.pointer}: ${v.message}`);
  if (violations.length > shown.length) shown.push(`… and ${violations.length - shown.length} more`);
  return {
    passed: false,
    message: `Expected the answer to validate against ${named}; ${violations.length === 1 ? '1 violation' : `${violations.length} violations`}:\n${shown.join('\n')}`,
    expected: `valid against ${expectation.path}`,
    actual: shown.join('\n'),
  };
}

/** How many schema violations a message lists. */
const MAX_VIOLATIONS_SHOWN = 20;
const FENCE_OPEN = /^(`{3,}|~{3,})[^\n`]*\n/;

/**
 * The JSON an answer holds: the whole answer, or the single fenced code block it consists of
 * (```json … ```). Linear in the answer's length.
 */
export function answerJson(answer: string): { readonly value: unknown; readonly fenced: boolean } | { readonly error: string } {
  const text = answer.trim();
  const whole = parseJson(text);
  if (!('error' in whole)) return { value: whole.value, fenced: false };
  const open = FENCE_OPEN.exec(text);
  if (open !== null) {
    const fence = open[1];
    const close = text.lastIndexOf('\n');
    const last = text.slice(close + 1).trim();
    if (close >= open[0].length - 1 && last.startsWith(fence.charAt(0).repeat(fence.length)) && /^[`~]+$/.test(last)) {
      const inner = parseJson(text.slice(open[0].length, close));
      return 'error' in inner ? { error: `the fenced block is not JSON: ${inner.error}` } : { value: inner.value, fenced: true };
    }
  }
  return { error: whole.error };
}

function parseJson(text: string): { value: unknown } | { error: string } {
  if (text === '') return { error: 'the answer is empty.' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { error: `${clip(why, 160).replace(/\.?$/, '.')}` };
  }
}

function checkMaxGap(ms: number, result: RunResult): Verdict {
  const limit = duration(ms);
  const gap = result.maxGapMs;
  if (gap === undefined) return { passed: false, message: `Expected no gap of ${limit} or more between chunks, no chunk came.`, expected: `< ${limit}` };
  if (gap >= ms) return { passed: false, message: `Expected no gap of ${limit} or more between chunks, the longest was ${duration(gap)}.`, expected: `< ${limit}`, actual: duration(gap) };
  if (cutShort(result)) return { passed: false, message: `Cannot tell the longest gap between chunks: the answer did not complete (${describeEnd(result)}).` };
  return { passed: true, message: `The longest gap between chunks was ${duration(gap)} (limit ${limit}).` };
}

function checkJudgement(expectation: Extract<Expectation, { kind: 'judgedBy' | 'judgedByModel' }>, result: RunResult, judgement: Judgement | undefined): Verdict {
  const judge = expectation.kind === 'judgedBy' ? quote(expectation.application) : `the model ${quote(expectation.model)}`;
  if (judgement === undefined) {
    if (result.kind !== 'done') return { passed: false, message: `Not judged by ${judge}: the answer did not complete (${describeEnd(result)}).` };
    return { passed: false, message: `Not judged by ${judge}: the judge was not asked.` };
  }
  if ('error' in judgement) return { passed: false, message: `${judgement.notRun === true ? 'Not run' : 'Not judged'}: ${judgement.error}`, ...(judgement.notRun === true ? { notRun: true } : {}) };
  const reason = judgement.reason === '' ? '' : ` ${judgement.reason}`;
  return judgement.pass
    ? { passed: true, message: `Judged PASS by ${judge}.${reason}` }
    : { passed: false, message: `Judged FAIL by ${judge}.${reason}`, expected: expectation.criterion ?? expectation.source, actual: result.answer };
}

function checkContains(text: string, negate: boolean, result: RunResult): Verdict {
  const at = result.answer.indexOf(text);
  const quoted = quote(text);
  if (!negate) {
    return at >= 0
      ? { passed: true, message: `The answer contains ${quoted}.` }
      : { passed: false, message: `Expected the answer to contain ${quoted}, it does not.`, expected: text, actual: result.answer };
  }
  if (at >= 0) return { passed: false, message: `Expected the answer not to contain ${quoted}, found ${where(result.answer, at, text.length)}.`, actual: result.answer };
  if (cutShort(result)) return { passed: false, message: `Cannot tell whether the answer contains ${quoted}: it did not complete (${describeEnd(result)}).` };
  return { passed: true, message: `The answer does not contain ${quoted}.` };
}

function checkMatches({ pattern, flags, regex, negate }: Expectation & { kind: 'matches' }, result: RunResult): Verdict {
  const shown = `/${clip(pattern, 60)}/${flags}`;
  if (!negate) {
    return regex.test(result.answer)
      ? { passed: true, message: `The answer matches ${shown}.` }
      : { passed: false, message: `Expected the answer to match ${shown}, it does not.`, actual: result.answer };
  }
  const found = regex.find(result.answer);
  if (found !== undefined) return { passed: false, message: `Expected the answer not to match ${shown}, it does ${where(result.answer, found.index, found.length)}.`, actual: result.answer };
  if (cutShort(result)) return { passed: false, message: `Cannot tell whether the answer matches ${shown}: it did not complete (${describeEnd(result)}).` };
  return { passed: true, message: `The answer does not match ${shown}.` };
}

/** `200`, `2xx` or `200-204`. */
export function statusLabel(min: number, max: number): string {
  if (min === max) return String(min);
  if (min % 100 === 0 && max === min + 99) return `${min / 100}xx`;
  return `${min}-${max}`;
}

function checkStatus(min: number, max: number, result: RunResult): Verdict {
  const expected = statusLabel(min, max);
  const status = result.status;
  if (status === undefined) {
    const why = result.kind === 'done' ? '' : ` (${describeEnd(result)})`;
    return { passed: false, message: `Expected HTTP ${expected}, no status came back${why}.`, expected };
  }
  return status >= min && status <= max
    ? { passed: true, message: `HTTP ${status}, as expected.` }
    : { passed: false, message: `Expected HTTP ${expected}, got HTTP ${status}.`, expected, actual: String(status) };
}

function checkFirstByte(ms: number, result: RunResult): Verdict {
  const limit = duration(ms);
  const came = result.firstByteMs;
  if (came === undefined) return { passed: false, message: `Expected the first byte within ${limit}, no byte came.`, expected: `< ${limit}` };
  return came < ms
    ? { passed: true, message: `The first byte came after ${duration(came)} (limit ${limit}).` }
    : { passed: false, message: `Expected the first byte within ${limit}, it came after ${duration(came)}.`, expected: `< ${limit}`, actual: duration(came) };
}

function checkTotal(ms: number, result: RunResult): Verdict {
  const limit = duration(ms);
  if (cutShort(result)) return { passed: false, message: `Expected the whole answer within ${limit}, it did not complete (${describeEnd(result)}).`, expected: `< ${limit}` };
  return result.totalMs < ms
    ? { passed: true, message: `The whole answer took ${duration(result.totalMs)} (limit ${limit}).` }
    : { passed: false, message: `Expected the whole answer within ${limit}, it took ${duration(result.totalMs)}.`, expected: `< ${limit}`, actual: duration(result.totalMs) };
}

/** A duration for people: `730 ms` under a second, else seconds with up to two decimals (`2 s`, `3.41 s`). */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(2))} s`;
}

/** Where in the answer a match was: `at line 3, column 5: "…our refund policy…"` (1-based, UTF-16 columns). */
function where(answer: string, index: number, length: number): string {
  let line = 1;
  let lineStart = 0;
  for (let at = answer.indexOf('\n'); at >= 0 && at < index; at = answer.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  const from = Math.max(0, index - 20);
  const to = Math.min(answer.length, index + Math.min(length, 60) + 20);
  const excerpt = `${from > 0 ? '…' : ''}${answer.slice(from, to).replace(/[\r\n\t]/g, ' ')}${to < answer.length ? '…' : ''}`;
  return `at line ${line}, column ${index - lineStart + 1}: ${JSON.stringify(excerpt)}`;
}

/** Text quoted for a message (JSON escapes, cut to 80 characters). */
function quote(text: string): string {
  return JSON.stringify(clip(text, 80));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
