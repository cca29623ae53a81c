/**
 * The parser of query files (`*.aq.md`): Markdown where every top-level level-2 heading starts one
 * query. Under the heading, an optional bullet list of `- key: value` lines sets the query
 * (application, environment, context, expect); the rest of the section, up to the next such
 * heading, is the question. Text before the first heading is notes and never sent.
 *
 * Which lines are headings and where the list under one ends is Markdown's business, so the block
 * pass of markdown-it decides it (the same parser and options as a Markdown preview with HTML:
 * `## x` inside a fence, a blockquote, a list or an HTML block is no query; `Name` underlined with
 * `---` is one). Everything else is read line by line from the original text, so that every span
 * is a 0-based line and UTF-16 columns of the text as the editor shows it, whatever its line breaks.
 *
 * The block parser is the answers' (src/shared/answer/blocks.ts: its faster token making) with
 * HTML blocks on, as VS Code's preview and GitHub render a query file.
 *
 * Decisions beyond the file format's contract:
 * - The option lines are the list's items, each one line. A line of the list that is not an item's
 *   first line (a lazy continuation, as in `- expect: x` directly followed by the question, or an
 *   indented one) ends the options: the question starts there. A list of options right after the
 *   first one (another marker makes another list) still holds options.
 * - A key is followed by a colon (spaces around it allowed; `key:value` too, but not `://`, so a
 *   bare URL item is no option). A line with an unknown key is an unknownKey problem and not one
 *   of the query's `options`.
 * - A leading YAML front matter block (`---` on line 0, YAML-looking lines, then `---` or `...`) is
 *   notes, as previews show it, not a setext heading.
 * - A heading's name is trimmed of every kind of space; a setext heading of several lines is named
 *   by its lines joined with a space. An empty `##` is a query named "" (its section is its own).
 * - The question's line breaks are `\n`, whatever the file's.
 * - A query's own problems are also on the query (`problems`), so the host can refuse to send a
 *   query with an error (a bad context path: nothing is sent).
 */
import type MarkdownIt from 'markdown-it';
import { createMarkdown, type Markdown } from '../answer/blocks';
import { clipForMessage, CONTEXT_HINT, parseContextValue } from './contextPath';
import { parseExpectation, type Expectation } from './expect';
import { isSpaceOrTab, optionForm, suggestKey, type OptionForm } from './optionLine';
import { MAX_RUNS, OPTION_KEYS, type ContextRef, type NamedValue, type OptionKey, type OptionLine, type ParsedQueryFile, type ProblemCode, type QueryEntry, type QueryFileProblem } from './parsedFile';
import { hasPlaceholder } from './placeholders';
import type { Span } from './span';

export * from './contextPath';
export * from './optionLine';
export * from './parsedFile';
export * from './position';
export type * from './span';

type Token = MarkdownIt.Token;

const LINE_BREAK = /\r\n|\r|\n/;
const NUL = /\0/g;
const FRONT_MATTER_OPEN = /^---[ \t]*$/;
const FRONT_MATTER_CLOSE = /^(?:---|\.\.\.)[ \t]*$/;
/** A line of YAML front matter: indented, a list item, a comment (not `##`), or `key:`. */
const YAML_LINE = /^(?:[ \t]|-(?:[ \t]|$)|#(?!#)|[^\s:#][^:]*:(?:[ \t]|$))/;
/** How far a front matter block may reach. */
const FRONT_MATTER_LINES = 200;

let markdown: Markdown | undefined;

/** The block parser: the answers' markdown-it setup, with HTML blocks on as in a Markdown preview. */
function blockParser(): Markdown {
  if (markdown === undefined) {
    markdown = createMarkdown();
    markdown.set({ html: true });
  }
  return markdown;
}

/** Whether a line holds only spaces and tabs (Markdown's blank line). */
function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * The line after a leading front matter block, or 0: `---` on line 0, lines that read as YAML (a
 * key, a list item, a comment, an indented or blank line; never a `##` heading), then `---` or `...`.
 */
function frontMatterEnd(lines: readonly string[]): number {
  if (lines.length < 2 || !FRONT_MATTER_OPEN.test(lines[0])) return 0;
  const last = Math.min(lines.length, FRONT_MATTER_LINES);
  for (let i = 1; i < last; i++) {
    const line = lines[i];
    if (FRONT_MATTER_CLOSE.test(line)) return i + 1;
    if (!isBlank(line) && !YAML_LINE.test(line)) return 0;
  }
  return 0;
}

interface Heading {
  /** Token index of heading_open. */
  readonly token: number;
  readonly line: number;
  /** The line after the heading (after a setext underline). */
  readonly after: number;
  readonly setext: boolean;
  readonly content: string;
}

/**
 * Parses a query file. Never throws, for any string; linear in the text's length (markdown-it's
 * block pass plus one look at each line).
 */
export function parseQueryFile(text: string): ParsedQueryFile {
  const lines = text.split(LINE_BREAK);
  const lineCount = lines.length;
  const skip = frontMatterEnd(lines);
  const source = (skip === 0 ? lines : lines.map((line, i) => (i < skip ? '' : line))).join('\n').replace(NUL, '\uFFFD');
  const md = blockParser();
  const tokens: Token[] = [];
  md.block.parse(source, md, {}, tokens);

  const headings: Heading[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'heading_open' && token.level === 0 && token.tag === 'h2' && token.map !== null) {
      headings.push({ token: i, line: token.map[0], after: token.map[1], setext: token.markup !== '##', content: tokens[i + 1]?.content ?? '' });
    }
  }

  const queries: QueryEntry[] = [];
  const problems: QueryFileProblem[] = [];
  const names = new Set<string>();
  for (let k = 0; k < headings.length; k++) {
    const endLine = k + 1 < headings.length ? headings[k + 1].line : lineCount;
    const query = readQuery(lines, tokens, headings[k], k, endLine, names);
    queries.push(query);
    // One at a time: a spread of a huge list of problems would overflow the stack.
    for (const problem of query.problems) problems.push(problem);
  }
  return { queries, problems, lineCount };
}

/** The first top-level block token after token `from`, if it starts before `endLine`. */
function nextBlock(tokens: readonly Token[], from: number, endLine: number): number | undefined {
  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.level === 0 && token.nesting !== -1) return token.map !== null && token.map[0] < endLine ? i : undefined;
  }
  return undefined;
}

/** The index of the token that closes the top-level block opened at `open` (itself if it closes nothing). */
function closingToken(tokens: readonly Token[], open: number): number {
  if (tokens[open].nesting !== 1) return open;
  for (let i = open + 1; i < tokens.length; i++) {
    if (tokens[i].level === 0) return i;
  }
  return tokens.length - 1;
}

/** Collects what goes into a query while its section is read. */
class QueryBuilder {
  readonly applications: NamedValue[] = [];
  environment: NamedValue | undefined;
  readonly context: ContextRef[] = [];
  readonly expect: Expectation[] = [];
  readonly options: OptionLine[] = [];
  readonly problems: QueryFileProblem[] = [];
  cases: { path: string; span: Span } | undefined;
  runs: { value: number; span: Span } | undefined;
  passes: { value: number; span: Span } | undefined;
  /** Lines with a `{{column}}`: read per case, once a row fills them in. */
  readonly templated: OptionLine[] = [];

  constructor(private readonly queryIndex: number) {}

  problem(code: ProblemCode, span: Span, message: string, severity: 'error' | 'warning' = 'error', suggestion?: string): void {
    this.problems.push({ span, message, severity, code, queryIndex: this.queryIndex, ...(suggestion === undefined ? {} : { suggestion }) });
  }
}

function readQuery(lines: readonly string[], tokens: readonly Token[], heading: Heading, index: number, endLine: number, names: Set<string>): QueryEntry {
  const builder = new QueryBuilder(index);
  const { name, nameSpan, headingSpan } = headingText(lines, heading);
  if (names.has(name)) {
    builder.problem('duplicateName', headingSpan, `Another query of this file is already named ${JSON.stringify(name)}: the Testing view tells queries apart by name, give this one another.`, 'warning');
  }
  names.add(name);

  // The option list: the first block after the heading, if it is a bullet list of `key: value`
  // items (a change of marker starts another list: lists of options right after it count too).
  let questionStart = Math.min(heading.after, endLine);
  let block = nextBlock(tokens, heading.token + 3, endLine);
  while (block !== undefined) {
    const map = tokens[block].map;
    const items = map === null ? undefined : optionItems(lines, tokens, block);
    if (map === null || items === undefined) break;
    const listEnd = Math.min(map[1], endLine);
    let line = map[0];
    for (; line < listEnd; line++) {
      const form = items.get(line);
      if (form !== undefined) readOption(lines[line], line, form, builder);
      else if (!isBlank(lines[line])) break;
    }
    questionStart = line;
    if (line < listEnd) break;
    block = nextBlock(tokens, closingToken(tokens, block) + 1, endLine);
  }

  finishRepeatsAndCases(builder);

  let qStart = questionStart;
  while (qStart < endLine && isBlank(lines[qStart])) qStart++;
  let qEnd = endLine;
  while (qEnd > qStart && isBlank(lines[qEnd - 1])) qEnd--;
  const question = lines.slice(qStart, qEnd).join('\n');
  if (question === '') {
    const hasContext = builder.context.length > 0;
    builder.problem('emptyQuestion', headingSpan, hasContext ? 'This query has no question: only its context is sent.' : 'This query has no question: write it under the heading (after the option lines).', 'warning');
  }

  return {
    name,
    index,
    headingLine: heading.line,
    endLine,
    headingSpan,
    nameSpan,
    applications: builder.applications,
    ...(builder.environment === undefined ? {} : { environment: builder.environment }),
    context: builder.context,
    expect: builder.expect,
    options: builder.options,
    question,
    ...(question === '' ? {} : { questionLine: qStart }),
    problems: builder.problems,
    ...(builder.cases === undefined ? {} : { cases: builder.cases }),
    ...(builder.runs === undefined ? {} : { runs: builder.runs.value }),
    ...(builder.passes === undefined ? {} : { passes: builder.passes.value }),
  };
}

/** The checks that need the whole option list: passes within runs, `{{column}}` only with a cases file. */
function finishRepeatsAndCases(builder: QueryBuilder): void {
  const runs = builder.runs?.value ?? 1;
  if (builder.passes !== undefined && builder.passes.value > runs) {
    builder.problem('badRuns', builder.passes.span, `passes: ${builder.passes.value} is more than the ${runs} run${runs === 1 ? '' : 's'} of this query: add "- runs: ${builder.passes.value}" or lower passes.`);
  }
  if (builder.cases !== undefined) return;
  for (const option of builder.templated) {
    builder.problem('placeholderWithoutCases', option.valueSpan, 'A {{column}} is filled in from a cases file: add "- cases: path/to/cases.csv" to this query, or write the value out.');
  }
}

/** The heading's name (from the original text), its span and the heading's span on its first line. */
function headingText(lines: readonly string[], heading: Heading): { name: string; nameSpan: Span; headingSpan: Span } {
  const line = heading.line;
  const first = lines[line];
  let headingStart = 0;
  while (isSpaceOrTab(first.charCodeAt(headingStart))) headingStart++;
  let headingEnd = first.length;
  while (headingEnd > headingStart && isSpaceOrTab(first.charCodeAt(headingEnd - 1))) headingEnd--;
  const headingSpan: Span = { line, start: headingStart, end: headingEnd };
  // markdown-it's content is a slice of the (normalised) text trimmed of ASCII blanks only: it
  // starts at the first non-blank after the `##` (ATX) or of the first line (setext).
  const textEnd = heading.setext ? Math.max(line + 1, heading.after - 1) : line + 1;
  const region = textEnd === line + 1 ? first : lines.slice(line, textEnd).join('\n');
  let start = 0;
  if (!heading.setext) {
    start = headingStart;
    while (start < first.length && first.charCodeAt(start) === 35) start++;
  }
  while (start < region.length && isAsciiBlank(region.charCodeAt(start))) start++;
  const raw = region.slice(start, start + Math.min(heading.content.length, region.length - start));
  // The name is trimmed of every kind of space; a setext heading's lines are joined by one space.
  const breakAt = raw.indexOf('\n');
  const onFirst = breakAt < 0 ? raw : raw.slice(0, breakAt);
  const name = breakAt < 0 ? raw.trim() : raw.split('\n').map((part) => part.trim()).filter((part) => part !== '').join(' ');
  const nameStart = Math.min(first.length, start + (onFirst.length - onFirst.trimStart().length));
  const nameEnd = Math.min(first.length, Math.max(nameStart, start + onFirst.trimEnd().length));
  return { name, nameSpan: { line, start: nameStart, end: nameEnd }, headingSpan };
}

/** Space, tab, LF or CR: what markdown-it trims off a heading's text. */
function isAsciiBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * The first lines of a bullet list's items and their forms, if every one has the `key: value`
 * form (else the list is part of the question). Token `list` is the list's opening token.
 */
function optionItems(lines: readonly string[], tokens: readonly Token[], list: number): Map<number, OptionForm> | undefined {
  if (tokens[list].type !== 'bullet_list_open') return undefined;
  const items = new Map<number, OptionForm>();
  for (let i = list + 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.level === 0) break; // bullet_list_close
    if (token.type !== 'list_item_open' || token.level !== 1 || token.map === null) continue;
    const line = token.map[0];
    const form = optionForm(lines[line]);
    if (form === undefined) return undefined;
    items.set(line, form);
  }
  return items.size > 0 ? items : undefined;
}

function unquoteValue(lineText: string, line: number, start: number, end: number): { value: string; span: Span } {
  let s = start;
  let e = end;
  while (s < e && isSpaceAt(lineText, s)) s++;
  while (e > s && isSpaceAt(lineText, e - 1)) e--;
  if (e - s >= 2 && lineText.charAt(s) === '`' && lineText.charAt(e - 1) === '`' && !lineText.slice(s + 1, e - 1).includes('`')) {
    s++;
    e--;
    while (s < e && isSpaceAt(lineText, s)) s++;
    while (e > s && isSpaceAt(lineText, e - 1)) e--;
  }
  return { value: lineText.slice(s, e), span: { line, start: s, end: e } };
}

/** Whether the character at `i` is whitespace (as String.prototype.trim sees it). */
function isSpaceAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c === 32 || c === 9) return true;
  if (c < 128) return c >= 10 && c <= 13;
  return text.charAt(i).trim() === '';
}

/** Reads one option line (of the option form) into the query. */
function readOption(lineText: string, line: number, form: OptionForm, builder: QueryBuilder): void {
  const { afterColon } = form;
  const written = lineText.slice(form.keyStart, form.keyEnd);
  const keySpan: Span = { line, start: form.keyStart, end: form.keyEnd };
  // An empty value's span is the place to type it: after the colon and its spaces (or inside ``).
  const { value, span: valueSpan } = unquoteValue(lineText, line, afterColon, lineText.length);
  const span: Span = { line, start: form.marker, end: Math.max(valueSpan.end, lineText.trimEnd().length) };
  const key = written.toLowerCase();
  if (!(OPTION_KEYS as readonly string[]).includes(key)) {
    const suggestion = suggestKey(written);
    const hint = suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`;
    builder.problem('unknownKey', keySpan, `Unknown option "${written}".${hint} The options are: ${OPTION_KEYS.slice(0, -1).join(', ')} and ${OPTION_KEYS[OPTION_KEYS.length - 1]}.`, 'error', suggestion);
    return;
  }
  const option: OptionLine = { key: key as OptionKey, value, span, valueSpan, keySpan };
  builder.options.push(option);
  if (value === '') {
    builder.problem('emptyValue', span, `"${key}:" has no value. ${VALUE_HINTS[key as OptionKey]}`);
    return;
  }
  switch (option.key) {
    case 'application':
      readApplications(lineText, valueSpan, builder);
      break;
    case 'environment':
      if (builder.environment === undefined) builder.environment = { name: value, span: valueSpan };
      else builder.problem('duplicateEnvironment', valueSpan, `This query already names the environment "${builder.environment.name}" (line ${builder.environment.span.line + 1}); a query runs on one environment.`);
      break;
    case 'context': {
      if (hasPlaceholder(value)) {
        builder.templated.push(option);
        break;
      }
      const ref = parseContextValue(value, valueSpan);
      if ('error' in ref) builder.problem('badContext', valueSpan, ref.error);
      else builder.context.push(ref);
      break;
    }
    case 'expect': {
      if (hasPlaceholder(value)) {
        builder.templated.push(option);
        break;
      }
      const expectation = readExpectValue(value, valueSpan);
      if ('error' in expectation) builder.problem('badExpect', valueSpan, expectation.error);
      else builder.expect.push(expectation);
      break;
    }
    case 'cases':
      readCases(value, valueSpan, builder);
      break;
    case 'runs':
    case 'passes':
      readCount(option.key, value, valueSpan, builder);
      break;
  }
}

/**
 * An `expect:` value (also a case's, once its `{{column}}`s are filled in): the expectation, with a
 * `json schema` path held to the same fence as a context file.
 */
export function readExpectValue(value: string, span: Span): Expectation | { readonly error: string } {
  const expectation = parseExpectation(value, span);
  if ('error' in expectation || expectation.kind !== 'jsonSchema') return expectation;
  const ref = parseContextValue(expectation.path, span);
  if ('error' in ref) return { error: `json schema: ${ref.error}` };
  if (ref.startLine !== undefined) return { error: 'json schema takes a file without a line range.' };
  return { ...expectation, path: ref.path };
}

function readCases(value: string, span: Span, builder: QueryBuilder): void {
  if (builder.cases !== undefined) {
    builder.problem('badCases', span, `This query already reads its cases from ${builder.cases.path} (line ${builder.cases.span.line + 1}); a query has one cases file.`);
    return;
  }
  const ref = parseContextValue(value, span);
  if ('error' in ref) builder.problem('badCases', span, ref.error.replace(/context (files?)/g, 'cases $1'));
  else if (ref.startLine !== undefined) builder.problem('badCases', span, 'A cases file takes no line range: every row is a case.');
  else if (!CASES_EXTENSION.test(ref.path)) builder.problem('badCases', span, `${JSON.stringify(clipForMessage(ref.path))} is not a cases file: use a .csv (with a header row), .jsonl or .json (an array of objects) file.`);
  else builder.cases = { path: ref.path, span };
}

/** The file types a cases file may have. */
const CASES_EXTENSION = /\.(?:csv|jsonl|ndjson|json)$/i;

function readCount(key: 'runs' | 'passes', value: string, span: Span, builder: QueryBuilder): void {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (builder[key] !== undefined) {
    builder.problem('badRuns', span, `This query already sets ${key} (line ${builder[key].span.line + 1}).`);
    return;
  }
  if (!(n >= 1 && n <= MAX_RUNS)) {
    builder.problem('badRuns', span, key === 'runs' ? `runs takes a whole number from 1 to ${MAX_RUNS}, e.g. "- runs: 5".` : `passes takes a whole number from 1 to the number of runs, e.g. "- passes: 4" with "- runs: 5".`);
    return;
  }
  builder[key] = { value: n, span };
}

/** What each key's value looks like, for an empty value's message. */
const VALUE_HINTS: Readonly<Record<OptionKey, string>> = {
  application: 'Name an application by id or name, e.g. "- application: support-bot" (several: comma-separated).',
  environment: 'Name an environment of applicationQuery.environments, e.g. "- environment: staging".',
  context: `Name a file to send along. ${CONTEXT_HINT}`,
  expect: 'Write what the answer must do, e.g. "- expect: contains \\"refund\\"".',
  cases: 'Name a CSV (with a header row), JSON Lines or JSON array file inside the workspace folder, e.g. "- cases: tests/questions.csv".',
  runs: `Write how many times to send the query, from 1 to ${MAX_RUNS}, e.g. "- runs: 5".`,
  passes: 'Write how many of the runs must pass, e.g. "- passes: 4".',
};

/** Splits an `application:` value on commas into names (each trimmed, without backticks). */
function readApplications(lineText: string, value: Span, builder: QueryBuilder): void {
  let start = value.start;
  let reported = -1;
  for (;;) {
    let comma = lineText.indexOf(',', start);
    if (comma < 0 || comma >= value.end) comma = value.end;
    const part = unquoteValue(lineText, value.line, start, comma);
    if (part.value !== '') {
      builder.applications.push({ name: part.value, span: part.span });
    } else {
      // Point at a comma that can go: the one after the empty name, or for the last name the one before it.
      const at = comma < value.end ? comma : start - 1;
      if (at !== reported) builder.problem('emptyApplication', { line: value.line, start: at, end: at + 1 }, 'An application name is missing between commas: remove the extra comma or add a name.');
      reported = at;
    }
    if (comma >= value.end) return;
    start = comma + 1;
  }
}

