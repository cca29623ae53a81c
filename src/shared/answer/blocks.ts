/**
 * What the extension host and the webview agree on about an answer's block structure, so that the
 * host can keep text far from the view (whole groups of top-level blocks) and the webview can
 * place it as waiting groups exactly where a one-shot render puts them: the markdown options the
 * block structure depends on, how top-level blocks are counted and grouped, and where text can be
 * cut without changing how either side parses. This file is the one owner of those cutting rules:
 * heldText.ts (the host's side) and the webview's renderer (src/webview/render) both use it.
 *
 * Why markdown-it is in the extension host's bundle too (about 100 KB of it): where a top-level
 * block ends depends on all of CommonMark's block rules (lazy continuation lines, fences that
 * never close, lists that swallow what follows, reference definitions), and a cut the webview's
 * parser would not make moves text into another block. A scanner of our own would have to repeat
 * those rules and would drift from the parser the webview uses; running the same parser's block
 * pass (never its inline pass or renderer) on both sides keeps the two in step by construction.
 */
import MarkdownIt from 'markdown-it';

type Token = MarkdownIt.Token;
type Nesting = 1 | 0 | -1;
/** A markdown-it instance. */
export type Markdown = InstanceType<typeof MarkdownIt>;

/** The markdown-it options of every parse (the block rules depend on `html`). */
const MARKDOWN_OPTIONS = { html: false, linkify: true, typographer: false } as const;

/** The fields of a token, in the order markdown-it's Token constructor defines them (its shape). */
function initToken(token: Token, type: string, tag: string, nesting: Nesting): void {
  token.map = null;
  token.level = 0;
  token.children = null;
  token.content = '';
  token.markup = '';
  token.info = '';
  token.block = false;
  token.hidden = false;
  token.type = type;
  token.tag = tag;
  token.attrs = null;
  token.nesting = nesting;
  token.meta = null;
}

/**
 * A markdown-it instance with the options both sides parse with. Its block parser makes tokens
 * faster: markdown-it 15's build defines each of a token's fields through a generic helper, which
 * was most of a block parse's time (`npm run bench core`, HeldText, measures the parse).
 * The block state's `push` is replaced by one that does the same, making a token of the same class
 * with the same fields in the same order; it is checked against a token made by markdown-it.
 */
export function createMarkdown(): Markdown {
  const md = new MarkdownIt(MARKDOWN_OPTIONS);
  const State = md.block.State as unknown as { prototype: { push: unknown; level: number; tokens: Token[] } };
  const TokenClass = new md.core.State('', md, {}).Token;
  if (!fastPushInstalled && sameShape(new TokenClass('p', 'p', 1))) {
    fastPushInstalled = true;
    // A plain constructor of the same class (its prototype): V8 makes these as fast as literals.
    const FastToken = function (this: Token, type: string, tag: string, nesting: Nesting) {
      initToken(this, type, tag, nesting);
    } as unknown as { new (type: string, tag: string, nesting: Nesting): Token; prototype: object };
    FastToken.prototype = TokenClass.prototype;
    State.prototype.push = function push(this: { level: number; tokens: Token[] }, type: string, tag: string, nesting: Nesting): Token {
      const token = new FastToken(type, tag, nesting);
      token.block = true;
      if (nesting < 0) this.level--;
      token.level = this.level;
      if (nesting > 0) this.level++;
      this.tokens.push(token);
      return token;
    };
  }
  return md;
}

let fastPushInstalled = false;

/** Whether a token markdown-it made has exactly the fields `initToken` gives, in its order. */
function sameShape(stock: Token): boolean {
  const made = {} as Token;
  initToken(made, 'p', 'p', 1);
  return JSON.stringify(Object.entries(stock)) === JSON.stringify(Object.entries(made));
}

/**
 * Long runs of children are grouped: the first GROUP_SIZE stay where they are, every GROUP_SIZE
 * after them go into a group element of their own (see webview/render/groups.ts). A group the view
 * shows is laid out whole, and while the view follows a fast answer every group is the newest, in
 * view, at the end of some frame: smaller groups lay out less of what only streams past. More
 * groups cost the browser more to watch while they wait (see lazy.ts), so not smaller still.
 * `npm run bench renderer-shapes` (the browser's layout rows) measures the balance.
 */
export const GROUP_SIZE = 32;

/** Whether the child at `index` (of a grouped parent) is the first of a group. */
export function startsGroup(index: number): boolean {
  return index >= GROUP_SIZE && (index - GROUP_SIZE) % GROUP_SIZE === 0;
}

const LINE_BREAKS = /\r\n?/g;
const NUL = /\0/g;
const LINE_BREAK = /\n/g;
/** A line (or run of lines' text) of only spaces and tabs. */
export const BLANK = /^[ \t]*$/;

/**
 * Normalizes streamed text the way markdown-it normalizes a whole text (line breaks become `\n`,
 * NUL becomes U+FFFD), across pieces: a CR at the end of one piece and a LF at the start of the
 * next are one line break.
 */
export class TextNormalizer {
  private pendingCr = false;

  /** The normalized form of the next piece. */
  normalize(text: string): string {
    if (text === '') {
      return '';
    }
    const skipLf = this.pendingCr && text.charCodeAt(0) === 10;
    this.pendingCr = text.charCodeAt(text.length - 1) === 13;
    return (skipLf ? text.slice(1) : text).replace(LINE_BREAKS, '\n').replace(NUL, '\uFFFD');
  }
}

/**
 * Parses the block structure of `text` (normalized; markdown-it's block pass only, never its inline
 * pass) into `tokens`, and returns the start offset of each of its lines as {@link lineStarts}
 * gives them. The block state finds every line's start before it parses, so they are not searched
 * for again: a search of its own was a sizeable share of the time the extension host spends
 * holding an answer back (`npm run bench core`, HeldText).
 */
export function parseBlockLines(md: Markdown, text: string, env: MarkdownIt.Env, tokens: Token[]): number[] {
  if (text === '') return [0];
  const state = new md.block.State(text, md, env, tokens);
  md.block.tokenize(state, state.line, state.lineMax);
  const starts = state.bMarks;
  // Its marks end with one at the end of the text, not a line's. And they leave out a last line of
  // only spaces and tabs with no line break after it (markdown-it skips such a line); the last
  // line starts after the last line break (at the end, if the text ends with one).
  starts.pop();
  const last = text.lastIndexOf('\n') + 1;
  if (starts[starts.length - 1] !== last) starts.push(last);
  return starts;
}

/** Start offsets of every line of `text` (normalized: line breaks are `\n`). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  LINE_BREAK.lastIndex = 0;
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) {
    starts.push(m.index + 1);
  }
  return starts;
}

/**
 * Whether a token starts a top-level element of the answer (as rendered: every block is one
 * element). A link reference definition renders nothing; the block parser still marks it with a
 * token, which a whole parse strips.
 */
export function startsElement(token: Token): boolean {
  return token.level === 0 && token.nesting !== -1 && token.type !== 'reference_definition';
}

/**
 * An unfinished line that is a paragraph's first whatever follows on it: up to three spaces, then
 * a letter, or one or two of `*`, `_` or a backtick and a letter (no block marker starts so: a list
 * marker is followed by a space, a rule or fence is of marks alone; and a line after a blank line
 * continues a block before it only by its indentation, which is known).
 */
const PARAGRAPH_START = /^ {0,3}(?:\*{1,2}|_{1,2}|`{1,2})?[A-Za-z\u00c0-\uffff]/;

/**
 * The offset where token `i` starts, if text can be cut there: a top-level block whose first
 * line is complete (or a paragraph whose first line has begun, see PARAGRAPH_START: a long line
 * streams as it comes) and that follows a blank line or a closed fence. Markdown's block structure is
 * decided line by line; a blank line closes paragraphs (no lazy continuation, no setext underline,
 * no table header, no multi-line reference title), so does a closing fence, and a block that
 * started on a complete line after either means every container before it has ended. Whatever
 * follows, the text before such a cut parses the same.
 */
export function boundaryAt(tokens: readonly Token[], i: number, text: string, starts: readonly number[]): number | undefined {
  const token = tokens[i];
  if (i < 1 || token.level !== 0 || token.nesting === -1 || token.map === null) {
    return undefined;
  }
  const line = token.map[0];
  if (line < 1 || (line + 1 >= starts.length && !(token.type === 'paragraph_open' && PARAGRAPH_START.test(text.slice(starts[line], starts[line] + 4))))) {
    return undefined;
  }
  const previous = text.slice(starts[line - 1], starts[line] - 1);
  // A fence followed by another block is closed, on the line before it.
  const closedFence = tokens[i - 1].type === 'fence' && tokens[i - 1].map?.[1] === line;
  return BLANK.test(previous) || closedFence ? starts[line] : undefined;
}

/**
 * Whether `text` could hold a cut (see {@link boundaryAt}) at all: one needs a blank line or a
 * closing fence (a second fence line) before it. Text without either is one open block, without
 * parsing it.
 */
export function mayHoldCut(text: string): boolean {
  return /(?:^|\n)[ \t]*\n/.test(text) || (text.match(/(?:^|\n) {0,3}(?:`{3,}|~{3,})/g)?.length ?? 0) >= 2;
}

/** The last cut in a parsed text (see {@link boundaryAt}): its token index and offset, or undefined. */
export function findBoundary(tokens: readonly Token[], text: string, starts: readonly number[]): { index: number; offset: number } | undefined {
  for (let i = tokens.length - 1; i > 0; i--) {
    const offset = boundaryAt(tokens, i, text, starts);
    if (offset !== undefined) {
      return { index: i, offset };
    }
  }
  return undefined;
}

/** How high a group of `lines` lines and `length` characters is guessed to be, in `em` (for a group not rendered yet). */
export function estimatedHeight(lines: number, length: number): number {
  // About a line per source line (spacing included) plus wrapping: close to the rendered height of
  // answers of mixed headings, paragraphs, lists, code, tables and quotes in a view of usual width.
  return Math.ceil(lines * 0.95 + length / 150);
}

/** How many line breaks `text` has. */
export function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
    lines++;
  }
  return lines;
}
