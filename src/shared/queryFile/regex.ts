/**
 * The regexes of `expect: matches /…/flags`, run by RE2 (re2js): matching takes time linear in the
 * answer's length whatever the pattern, so neither a typo nor a hostile repository can hang the
 * extension host or a command-line run. JavaScript backtracking cannot promise that: a pattern such
 * as `/^(\w+\s?)+$/` takes exponential time on an answer that almost matches.
 *
 * Users write JavaScript regex syntax. What RE2 cannot run in linear time (backreferences and
 * lookaround) is refused when the file is read, with what to write instead. Where RE2 reads the
 * same text differently, the pattern is rewritten so that JavaScript's meaning holds: `\s` is
 * JavaScript's whitespace (Unicode spaces included), `.` stops at `\r`, `\u2028` and `\u2029` as
 * well as `\n`, `$` with the `m` flag matches before `\r\n`, `\uXXXX` and `\u{…}` are code points,
 * `[^]` is any character and `[]` none, and an escaped letter that is no JavaScript escape is that
 * letter. `\d`, `\w`, `\b` are ASCII in both.
 */
import { RE2JS } from 're2js';

/**
 * A compiled `matches` regex. Two compiled from the same text are equal to `deepEqual` (the RE2
 * program is private), so parses of the same file compare equal.
 */
export class AnswerRegex {
  readonly #compiled: RE2JS;

  /** `source` is the pattern as RE2 reads it. */
  constructor(readonly source: string, compiled: RE2JS) {
    this.#compiled = compiled;
  }

  /** Whether it matches anywhere in `text`. */
  test(text: string): boolean {
    return this.#compiled.test(text);
  }

  /** The first match (leftmost, as JavaScript would pick it), in UTF-16 indexes, or undefined. */
  find(text: string): { readonly index: number; readonly length: number } | undefined {
    const matcher = this.#compiled.matcher(text);
    return matcher.find() ? { index: matcher.start(), length: matcher.end() - matcher.start() } : undefined;
  }
}

/** JavaScript's `\s`, as the inside of a character class in RE2 syntax. */
const JS_SPACE = '\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** What `.` does not match without the `s` flag in JavaScript. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
/** Escaped letters that JavaScript reads as escapes; any other escaped letter is the letter itself. */
const JS_ESCAPE_LETTERS = new Set('dDwWsSbBnrtfv0cxukpP');
const ASCII_LETTER = /^[A-Za-z]$/;
const HEX4 = /^[0-9A-Fa-f]{4}$/;
const HEX_BRACED = /^\{([0-9A-Fa-f]{1,6})\}/;

/** The longest pattern compiled: compiling takes time that grows with the pattern, and no check needs more. */
export const MAX_PATTERN_LENGTH = 4096;

/** Regexes compiled lately, by flags and pattern: a file often repeats one, and compiling costs more than matching a short answer. */
const compiledLately = new Map<string, AnswerRegex>();
/** How many compiled regexes are kept at most (the cache starts over when it is full). */
const COMPILED_KEPT = 512;

/** Why RE2 runs no backreference or lookaround, and what to write instead (the end of each refusal). */
const WHY_LINEAR =
  'they can take exponential time on a long answer, so query files run regexes in linear time (RE2 syntax) and do not support them';

/**
 * Compiles a `matches` regex written in JavaScript syntax (`pattern` between the slashes, `flags`
 * after them). Returns the regex, or `{ error }` saying why it cannot run and what to write
 * instead. Never throws; linear in the pattern's length.
 */
export function compileAnswerRegex(pattern: string, flags: string): { readonly regex: AnswerRegex } | { readonly error: string } {
  const cacheKey = `${flags}/${pattern}`;
  const cached = compiledLately.get(cacheKey);
  if (cached !== undefined) return { regex: cached };
  if (pattern.length > MAX_PATTERN_LENGTH) return { error: `the regex is ${pattern.length} characters long; the most is ${MAX_PATTERN_LENGTH}. Check a shorter part of the answer.` };
  const read = readFlags(flags);
  if ('error' in read) return read;
  const translated = translate(pattern, read.dotAll, read.multiline);
  if ('error' in translated) return translated;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translated.source, (read.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (read.dotAll ? RE2JS.DOTALL : 0) | (read.multiline ? RE2JS.MULTILINE : 0));
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, '');
    return { error: `the regex cannot be read (${reason}). Query files use RE2 syntax, close to JavaScript's without backreferences or lookaround.` };
  }
  const regex = new AnswerRegex(translated.source, compiled);
  if (compiledLately.size >= COMPILED_KEPT) compiledLately.clear();
  compiledLately.set(cacheKey, regex);
  return { regex };
}

interface Flags {
  readonly ignoreCase: boolean;
  readonly multiline: boolean;
  readonly dotAll: boolean;
}

/** JavaScript flags: i, m, s and u mean what they do there; g, y and d change nothing about whether an answer matches. */
function readFlags(flags: string): Flags | { readonly error: string } {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (seen.has(flag)) return { error: `the flag ${flag} is given twice.` };
    seen.add(flag);
    if (flag === 'v') return { error: 'the v flag (set notation) is not supported; write the class without it, with the u flag if you like.' };
    if (!'imsugyd'.includes(flag)) return { error: `"${flag}" is not a regex flag; the flags are i (ignore case), m (^ and $ at line ends), s (. matches line breaks) and u.` };
  }
  return { ignoreCase: seen.has('i'), multiline: seen.has('m'), dotAll: seen.has('s') };
}

/** Rewrites a JavaScript pattern into RE2 syntax with the same meaning, or says why it cannot run. */
function translate(pattern: string, dotAll: boolean, multiline: boolean): { readonly source: string } | { readonly error: string } {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern.charAt(i);
    if (ch === '\\') {
      const escape = translateEscape(pattern, i, inClass);
      if ('error' in escape) return escape;
      out += escape.text;
      i = escape.end;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
      i++;
      continue;
    }
    if (ch === '[') {
      if (pattern.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10ffff}]';
        i += 3;
      } else if (pattern.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10ffff}]';
        i += 2;
      } else {
        // A `]` right after `[` or `[^` is literal in RE2 but ends the class in JavaScript: both handled above.
        inClass = true;
        const negated = pattern.charAt(i + 1) === '^';
        out += negated ? '[^' : '[';
        i += negated ? 2 : 1;
      }
      continue;
    }
    if (ch === '(' && pattern.charAt(i + 1) === '?') {
      const look = lookaround(pattern, i);
      if (look !== undefined) return { error: `${look} is not supported: ${WHY_LINEAR}. Match the text itself, or write a second expectation (e.g. not matches /…/) for what must not be there.` };
    }
    if (ch === '.' && !dotAll) out += JS_DOT;
    else if (ch === '$' && multiline) out += '(?:\\r?$)';
    else out += ch;
    i++;
  }
  return { source: out };
}

/** The kind of lookaround a `(?` at `at` opens, if it is one. */
function lookaround(pattern: string, at: number): string | undefined {
  const head = pattern.slice(at, at + 4);
  if (head.startsWith('(?=')) return `"(?=" (lookahead)`;
  if (head.startsWith('(?!')) return `"(?!" (negative lookahead)`;
  if (head === '(?<=') return `"(?<=" (lookbehind)`;
  if (head === '(?<!') return `"(?<!" (negative lookbehind)`;
  return undefined;
}

/** One escape at `at` (a backslash) in RE2 syntax, and where the pattern goes on. */
function translateEscape(pattern: string, at: number, inClass: boolean): { readonly text: string; readonly end: number } | { readonly error: string } {
  const next = pattern.charAt(at + 1);
  if (next === '') return { error: 'the regex ends in a backslash (write \\\\ for a backslash).' };
  if (!inClass && next >= '1' && next <= '9') {
    return { error: `"\\${next}" (a backreference) is not supported: ${WHY_LINEAR}. Write the repeated text out, or match each part with its own expectation.` };
  }
  if (!inClass && next === 'k' && pattern.charAt(at + 2) === '<') {
    return { error: `"\\k<…>" (a named backreference) is not supported: ${WHY_LINEAR}. Write the repeated text out, or match each part with its own expectation.` };
  }
  if (next === 'b' && inClass) return { text: '\\x{8}', end: at + 2 };
  const control = next === 'c' ? pattern.charCodeAt(at + 2) : NaN;
  if (ASCII_LETTER.test(String.fromCharCode(control))) return { text: `\\x{${(control % 32).toString(16)}}`, end: at + 3 };
  if (next === 's') return { text: inClass ? JS_SPACE : `[${JS_SPACE}]`, end: at + 2 };
  if (next === 'S' && !inClass) return { text: `[^${JS_SPACE}]`, end: at + 2 };
  if (next === 'u') {
    const four = pattern.slice(at + 2, at + 6);
    if (HEX4.test(four)) return { text: `\\x{${four}}`, end: at + 6 };
    const braced = HEX_BRACED.exec(pattern.slice(at + 2, at + 11));
    if (braced !== null) return { text: `\\x{${braced[1]}}`, end: at + 2 + braced[0].length };
  }
  if (ASCII_LETTER.test(next) && !JS_ESCAPE_LETTERS.has(next)) return { text: next, end: at + 2 };
  return { text: `\\${next}`, end: at + 2 };
}
