/**
 * markdown-it as the answer's renderer configures it: text to tokens, and tokens to markup as text.
 * No DOM here, so the page and its worker (worker/render.ts) parse and render alike; what the markup
 * becomes in the page is decided where the DOM is (markdown.ts: built or sanitized).
 */
import type MarkdownIt from 'markdown-it';
import { codeLanguage, highlightCode } from './code';
import { FILL_ATTR, SAFE_IMAGE, SAFE_LINK } from './markup';
import { createMarkdown, GROUP_SIZE, parseBlockLines, startsGroup } from '../../shared/answer/blocks';

/** The environment shared by one markdown-it parse: the link reference definitions known so far. */
export type RenderEnv = MarkdownIt.Env;

/** A link reference definition as markdown-it records it in `env.references`. */
export type ReferenceDefinition = NonNullable<RenderEnv['references']>[string];

/** One markdown-it token (re-exported so the renderer modules need no markdown-it import). */
export type MdToken = MarkdownIt.Token;

const REMOTE_IMAGE = /^https?:/i;

const md = createMarkdown();
const escapeHtml = md.utils.escapeHtml;

export const CODE_ACTIONS =
  '<div class="aq-code-actions">' +
  button('copy', 'Copy code', 'Copy', 'copy') +
  button('insert', 'Insert code at cursor', 'Insert at Cursor', 'insert') +
  button('open', 'Open code in new editor', 'Open in New Editor', 'go-to-file') +
  '</div>';

function button(action: string, label: string, title: string, icon: string): string {
  return `<button type="button" class="aq-icon-button" data-action="${action}" aria-label="${label}" title="${title}"><span class="codicon codicon-${icon}" aria-hidden="true"></span></button>`;
}

/** Code blocks whose highlighted markup is built after sanitizing (see markdown.ts, `renderFragment`). */
export interface FillEnv {
  aqFill?: Array<{ readonly code: string; readonly language: string; readonly name: string }>;
}

export const LANG_LABEL_OPEN = '<span class="aq-code-lang">';

function renderCode(code: string, info: string, env?: RenderEnv): string {
  const language = codeLanguage(info);
  const fills = (env as FillEnv | undefined)?.aqFill;
  const langAttr = language.name ? ` data-lang="${escapeHtml(language.name)}"` : '';
  const codeClass = language.name ? `hljs language-${escapeHtml(language.name)}` : 'hljs';
  if (fills !== undefined) {
    // The actions and the code are filled in after sanitizing (see renderFragment).
    const fill = fills.push({ code, language: language.highlight, name: language.name }) - 1;
    return `<div class="aq-code"${langAttr}><div class="aq-code-actions"></div><pre><code class="${codeClass}" ${FILL_ATTR}="${fill}"></code></pre></div>\n`;
  }
  const body = highlightCode(code, language.highlight);
  const langLabel = language.name ? `${LANG_LABEL_OPEN}${escapeHtml(language.name)}</span>` : '';
  return `<div class="aq-code"${langAttr}>${CODE_ACTIONS.replace('<div class="aq-code-actions">', `<div class="aq-code-actions">${langLabel}`)}<pre><code class="${codeClass}">${body}</code></pre></div>\n`;
}

/** A fence token's info string, as the fence renderer reads it. */
export function fenceInfo(token: MdToken): string {
  return token.info ? md.utils.unescapeAll(token.info).trim() : '';
}

/** An empty code block for `info` (the streamed code goes into its `pre > code`). */
export function renderCodeShell(info: string): string {
  return renderCode('', info);
}

md.renderer.rules.fence = (tokens, idx, _options, env) => renderCode(tokens[idx].content, fenceInfo(tokens[idx]), env);
md.renderer.rules.code_block = (tokens, idx, _options, env) => renderCode(tokens[idx].content, '', env);

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = attrString(token, 'href');
  if (!SAFE_LINK.test(href)) {
    // An inert link: the text stays, nothing can be opened from it.
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'href');
    token.attrJoin('class', 'aq-inert-link');
  }
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = attrString(token, 'src');
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  if (SAFE_IMAGE.test(src)) {
    token.attrSet('alt', alt);
    return self.renderToken(tokens, idx, options);
  }
  const text = `image: ${alt} (${src})`;
  if (REMOTE_IMAGE.test(src) && !insideLink(tokens, idx)) {
    return `<a href="${escapeHtml(src)}" class="aq-image-link">${escapeHtml(text)}</a>`;
  }
  return escapeHtml(text);
};

function attrString(token: MdToken, name: string): string {
  const value = token.attrGet(name);
  return value === null ? '' : String(value);
}

function insideLink(tokens: readonly MdToken[], idx: number): boolean {
  let depth = 0;
  for (let i = 0; i < idx; i++) {
    depth += tokens[i].type === 'link_open' ? 1 : tokens[i].type === 'link_close' ? -1 : 0;
  }
  return depth > 0;
}

// Table alignment arrives as `style="text-align:…"`; styles are never allowed through, so it
// becomes a class instead.
md.core.ruler.push('aq_align_classes', (state) => {
  for (const token of state.tokens) {
    if (token.type !== 'inline' && token.attrs) {
      const style = attrString(token, 'style');
      const align = style ? /text-align:\s*(left|right|center)/.exec(style) : null;
      token.attrs = token.attrs.filter(([name]) => name !== 'style');
      if (align) {
        token.attrJoin('class', `aq-align-${align[1]}`);
      }
    }
  }
});

/** Set in `env` by {@link renderInlinePiece}: whether an emphasis or strikethrough opener is left unmatched. */
interface InlineProbe {
  open: boolean;
}

md.inline.ruler2.push('aq_open_delimiters', (state) => {
  const probe = (state.env as { aqProbe?: InlineProbe }).aqProbe;
  if (probe !== undefined && state.delimiters.some((delimiter) => delimiter.open && delimiter.end < 0)) {
    probe.open = true;
  }
  return false;
});

/** Link reference definitions by normalized label. */
export type References = Record<string, ReferenceDefinition>;

/**
 * Renders a piece of a paragraph's inline text. `open` is true when the piece leaves something that
 * later text could still close (an emphasis opener, a `[`, a backtick run, a `<`): only a piece
 * without it renders the same alone as inside the whole paragraph.
 */
export function renderInlinePiece(text: string, references: References): { html: string; open: boolean } {
  const { children, open, env } = parseInlinePiece(text, references);
  return { html: md.renderer.renderInline(children, md.options, env), open };
}

function parseInlinePiece(text: string, references: References): { children: MdToken[]; open: boolean; env: RenderEnv } {
  const probe: InlineProbe = { open: false };
  const env: RenderEnv = { references, aqProbe: probe };
  const children = md.parseInline(text, env)[0]?.children ?? [];
  let open = probe.open;
  for (let i = 0; i < children.length && !open; i++) {
    open = children[i].type === 'text' && /[[`<]/.test(children[i].content);
  }
  return { children, open, env };
}

/** Definitions for every label: a piece parsed with them is what it would be whatever is defined. */
const EVERY_LABEL: References = new Proxy<References>({}, { get: (_target, label) => (typeof label === 'string' ? { href: '', title: '' } : undefined) });

/**
 * Whether a piece left open with `references` would be left open whatever the answer defines.
 * A `[label]` without a definition (yet) is text with a `[`, but it cannot join text after the
 * piece: a cut decided with every label defined holds whichever definitions come, and the same
 * pieces are cut whether the definitions came before the paragraph, after it, or never.
 */
function openWhateverDefined(text: string): boolean {
  return parseInlinePiece(text, EVERY_LABEL).open;
}

/** An open block's unfinished part is rendered again only when it has grown by half once it is longer than this. */
export const LIVE_LIMIT = 32 * 1024;

/** A top-level paragraph's inline text is cut into chunks of at least this many code units. */
const TEXT_CHUNK = 8192;
const TEXT_CHUNK_OPEN = '<span class="aq-text-chunk">';

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a;
}

/** A piece of rendered inline text that ends a chunk. */
export interface TextCut {
  readonly end: number;
  readonly html: string;
}

/** How far past a chunk's least length its end is looked for at a sentence's start (see TextCutter). */
const SENTENCE_LOOK = 1024;

/**
 * The text a {@link TextCutter} reads: a string, or a view of one that keeps its end only (a
 * streamed paragraph's, see streams.ts's TailText: the whole text is a string built by appending,
 * which V8 copies whole at its first read).
 */
export interface CutText {
  charCodeAt(index: number): number;
  slice(start: number, end: number): string;
}

function isWordStart(text: CutText, at: number): boolean {
  return isSpace(text.charCodeAt(at - 1)) && !isSpace(text.charCodeAt(at));
}

/** Whether the word at `at` follows the end of a sentence (`.`, `!` or `?`, then spaces). */
function startsSentence(text: CutText, at: number): boolean {
  let before = at - 1;
  while (before > 0 && isSpace(text.charCodeAt(before))) {
    before--;
  }
  const code = text.charCodeAt(before);
  return code === 0x2e || code === 0x21 || code === 0x3f;
}

/**
 * Cuts a long paragraph's inline text into chunks (each a block, see `.aq-text-chunk`) by a rule
 * of the text alone, so that a streamed paragraph and a one-shot render cut the same chunks. A
 * chunk ends before the first word that starts a sentence within SENTENCE_LOOK of the point
 * TEXT_CHUNK after the chunk's start (inline markup seldom spans two sentences), else before the
 * first word that starts after that point, if the text before it leaves nothing open whatever the
 * answer defines (then it renders alone as it does in the whole paragraph, and definitions that
 * come later change no cut); otherwise the length it needs doubles (the checks cost a bounded
 * multiple of the text). Cut at any word, the bench's long paragraphs left something open (a
 * link's text, an emphasis) at a few chunks, each costing several chunks' parse in one frame;
 * cut at a sentence, none (`npm run bench renderer-shapes`, the paragraph).
 */
export class TextCutter {
  /** Where the current chunk starts. */
  start: number;
  private span = TEXT_CHUNK;
  /** Where the search for a word start past the sentence look goes on (0: not begun). */
  private scan = 0;

  constructor(start: number) {
    this.start = start;
  }

  /**
   * The next chunk's end in `text`, knowing `text[i]` for every `i < known`: undefined while that
   * is not decided (or there is none).
   */
  next(text: CutText, known: number, references: References): TextCut | undefined {
    for (;;) {
      const at = this.end(text, known);
      if (at === undefined) {
        return undefined;
      }
      const slice = text.slice(this.start, at);
      const piece = renderInlinePiece(slice, references);
      // A piece closed with the definitions at hand is closed with any (a label they define is defined in both).
      if (!piece.open || !openWhateverDefined(slice)) {
        this.start = at;
        this.span = TEXT_CHUNK;
        this.scan = 0;
        return { end: at, html: piece.html };
      }
      this.span = Math.max(2 * this.span, at + 1 - this.start);
      this.scan = 0;
    }
  }

  /** Where the current chunk would end (see the class), once the text before `known` decides it. */
  private end(text: CutText, known: number): number | undefined {
    const from = this.start + this.span;
    const look = from + SENTENCE_LOOK;
    let first = -1;
    for (let at = from, to = Math.min(known, look); at < to; at++) {
      if (isWordStart(text, at)) {
        if (startsSentence(text, at)) {
          return at;
        }
        first = first < 0 ? at : first;
      }
    }
    if (known < look) {
      return undefined;
    }
    if (first >= 0) {
      return first;
    }
    let at = Math.max(this.scan, look);
    while (at < known && !isWordStart(text, at)) {
      at++;
    }
    this.scan = at;
    return at < known ? at : undefined;
  }
}

/** Rendered inline text as one chunk of a paragraph. */
export function textChunk(html: string): string {
  return `${TEXT_CHUNK_OPEN}${html}</span>`;
}

md.renderer.rules.aq_text_chunk_open = () => TEXT_CHUNK_OPEN;
md.renderer.rules.aq_text_chunk_close = () => '</span>';

// A top-level paragraph longer than a chunk is rendered in chunks (see TextCutter): its inline
// token is split into one inline token per chunk, each parsed alone, between chunk tags.
md.core.ruler.before('inline', 'aq_text_chunks', (state) => {
  const tokens = state.tokens;
  for (let i = tokens.length - 2; i > 0; i--) {
    const token = tokens[i];
    if (token.type !== 'inline' || token.content.length <= TEXT_CHUNK || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 1].level !== 0) {
      continue;
    }
    const text = token.content;
    const cutter = new TextCutter(0);
    const ends: number[] = [];
    for (let cut = cutter.next(text, text.length, state.env.references ?? {}); cut !== undefined; cut = cutter.next(text, text.length, state.env.references ?? {})) {
      ends.push(cut.end);
    }
    if (ends.length === 0) {
      continue;
    }
    ends.push(text.length);
    const chunks: MdToken[] = [];
    let from = 0;
    for (const end of ends) {
      const open = new state.Token('aq_text_chunk_open', 'span', 1);
      // Hidden: the paragraph's tag is then followed by no line break, as before inline text.
      open.hidden = true;
      open.level = token.level;
      const inline = new state.Token('inline', '', 0);
      inline.content = text.slice(from, end);
      inline.map = token.map;
      inline.level = token.level + 1;
      inline.children = [];
      const close = new state.Token('aq_text_chunk_close', 'span', -1);
      close.level = token.level;
      chunks.push(open, inline, close);
      from = end;
    }
    tokens.splice(i, 1, ...chunks);
  }
});

/**
 * What a parse is for. A whole answer (undefined) is grouped everywhere (see groups.ts). A run of
 * top-level blocks ('blocks') is placed by the renderer's own grouper, so its top level is not
 * grouped; nor, in a piece of a top-level container ('container'), are that container's children.
 */
export type ParsePiece = 'blocks' | 'container';

const GROUP_OPEN = '<div class="aq-group">';
const GROUP_CLOSE = '</div>\n';
/** A group of blocks or list items, empty: what the renderer adds when a group starts. */
export const GROUP_SHELL = GROUP_OPEN + GROUP_CLOSE;
/** A table grouped in several bodies: each is laid out apart, with fixed, equal columns. */
export const LONG_TABLE = 'aq-table-long';
/** An empty table body as markdown-it renders one (the open tag ends its line, as before rows). */
export const TABLE_BODY_SHELL = '<tbody>\n</tbody>\n';
md.renderer.rules.aq_group_open = () => GROUP_OPEN;
md.renderer.rules.aq_group_close = () => GROUP_CLOSE;

/** The containers whose children are grouped, and which of their tokens open a child. */
const GROUPED: Readonly<Record<string, { readonly child: string | undefined; readonly depth: number }>> = {
  bullet_list_open: { child: 'list_item_open', depth: 1 },
  ordered_list_open: { child: 'list_item_open', depth: 1 },
  blockquote_open: { child: undefined, depth: 1 },
  table_open: { child: 'tr_open', depth: 2 },
};

interface GroupFrame {
  /** The container's level (-1: the answer itself). */
  readonly level: number;
  readonly child: string | undefined;
  readonly childLevel: number;
  /** Tables: the opening token (it gets LONG_TABLE), and whether the body has begun (header rows do not count). */
  readonly table: MdToken | undefined;
  body: boolean;
  count: number;
  open: boolean;
}

md.core.ruler.push('aq_groups', (state) => {
  const piece = (state.env as { aqPiece?: ParsePiece }).aqPiece;
  const make = (type: string, tag: string, nesting: 1 | 0 | -1, level: number): MdToken => {
    const token = new state.Token(type, tag, nesting);
    token.level = level;
    token.block = true;
    return token;
  };
  const out: MdToken[] = [];
  const stack: GroupFrame[] = piece === undefined ? [{ level: -1, child: undefined, childLevel: 0, table: undefined, body: true, count: 0, open: false }] : [];
  for (const token of state.tokens) {
    const frame = stack[stack.length - 1];
    if (frame !== undefined && token.nesting === -1 && token.level === frame.level) {
      if (frame.open) {
        out.push(make('aq_group_close', 'div', -1, frame.childLevel));
      }
      stack.pop();
    } else if (frame?.table !== undefined && token.type === 'tbody_open' && token.level === frame.level + 1) {
      frame.body = true;
    } else if (frame !== undefined && frame.body && token.level === frame.childLevel && token.nesting !== -1 && (frame.child === undefined || token.type === frame.child)) {
      const index = frame.count++;
      if (startsGroup(index)) {
        if (frame.table !== undefined) {
          out.push(make('tbody_close', 'tbody', -1, frame.level + 1), make('tbody_open', 'tbody', 1, frame.level + 1));
          if (index === GROUP_SIZE) {
            frame.table.attrJoin('class', LONG_TABLE);
          }
        } else {
          if (frame.open) {
            out.push(make('aq_group_close', 'div', -1, frame.childLevel));
          }
          out.push(make('aq_group_open', 'div', 1, frame.childLevel));
          frame.open = true;
        }
      }
    }
    out.push(token);
    const grouped = GROUPED[token.type];
    if (grouped !== undefined && !(piece === 'container' && token.level === 0)) {
      const table = token.type === 'table_open' ? token : undefined;
      stack.push({ level: token.level, child: grouped.child, childLevel: token.level + grouped.depth, table, body: table === undefined, count: 0, open: false });
    }
  }
  // The answer itself has no closing token.
  if (stack[0]?.level === -1 && stack[0].open) {
    out.push(make('aq_group_close', 'div', -1, 0));
  }
  state.tokens = out;
});

/**
 * Parses markdown into block tokens, collecting reference definitions into `env`. `piece` says
 * which children a grouper places instead (see {@link ParsePiece}).
 */
export function parseMarkdown(text: string, env: RenderEnv, piece?: ParsePiece): MdToken[] {
  return md.parse(text, piece === undefined ? env : Object.assign(env, { aqPiece: piece }));
}

/**
 * Parses the block structure only (no inline parsing): for deciding where blocks end. Link
 * reference definitions (a block rule) still go into `env`. Text must be normalized.
 */
export function parseBlocks(text: string, env: RenderEnv = {}): MdToken[] {
  const tokens: MdToken[] = [];
  md.block.parse(text, md, env, tokens);
  return tokens;
}

/** {@link parseBlocks}, with the start of each of the text's lines (as `lineStarts` gives them) from the same parse. */
export function parseBlocksAndLines(text: string): { tokens: MdToken[]; starts: number[] } {
  const tokens: MdToken[] = [];
  const starts = parseBlockLines(md, text, {}, tokens);
  return { tokens, starts };
}

/** Renders tokens (from {@link parseMarkdown}) to unsanitized HTML. */
export function renderTokens(tokens: readonly MdToken[], env: RenderEnv): string {
  return md.renderer.render(tokens as MdToken[], md.options, env);
}

/** A code block left empty in rendered markup: its code is highlighted and filled in where the DOM is. */
export type CodeFill = NonNullable<FillEnv['aqFill']>[number];

/** Renders tokens to markup in which code blocks are left empty, and the code to fill them with. */
export function renderWithFills(tokens: readonly MdToken[], env: RenderEnv): { readonly html: string; readonly fills: readonly CodeFill[] } {
  const fills: CodeFill[] = [];
  const html = md.renderer.render(tokens as MdToken[], md.options, { ...env, aqFill: fills });
  return { html, fills };
}

/** A whole answer's markup as the renderer writes it, before it is built or sanitized. */
export function renderMarkup(text: string): string {
  return md.render(text, {});
}
