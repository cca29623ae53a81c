import MarkdownIt from 'markdown-it';
import DOMPurify from 'dompurify';
import { codeLanguage, highlightCode } from './code';

/** The environment shared by one markdown-it parse: the link reference definitions known so far. */
export type RenderEnv = MarkdownIt.Env;

/** A link reference definition as markdown-it records it in `env.references`. */
export type ReferenceDefinition = NonNullable<RenderEnv['references']>[string];

/** One markdown-it token (re-exported so the renderer modules need no markdown-it import). */
export type MdToken = MarkdownIt.Token;

/** Link schemes an answer may open (through the host). Everything else is inert. */
export const SAFE_LINK = /^(?:https?:|mailto:)/i;
/** Only inline raster images are shown; anything remote becomes a link. */
const SAFE_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp);/i;
const REMOTE_IMAGE = /^https?:/i;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
const escapeHtml = md.utils.escapeHtml;

const CODE_ACTIONS =
  '<div class="aq-code-actions">' +
  button('copy', 'Copy code', 'Copy', 'copy') +
  button('insert', 'Insert code at cursor', 'Insert at Cursor', 'insert') +
  button('open', 'Open code in new editor', 'Open in New Editor', 'go-to-file') +
  '</div>';

function button(action: string, label: string, title: string, icon: string): string {
  return `<button type="button" class="aq-icon-button" data-action="${action}" aria-label="${label}" title="${title}"><span class="codicon codicon-${icon}" aria-hidden="true"></span></button>`;
}

function renderCode(code: string, info: string): string {
  const language = codeLanguage(info);
  const body = highlightCode(code, language.highlight);
  const langAttr = language.name ? ` data-lang="${escapeHtml(language.name)}"` : '';
  const langLabel = language.name ? `<span class="aq-code-lang">${escapeHtml(language.name)}</span>` : '';
  const codeClass = language.name ? `hljs language-${escapeHtml(language.name)}` : 'hljs';
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

md.renderer.rules.fence = (tokens, idx) => renderCode(tokens[idx].content, fenceInfo(tokens[idx]));
md.renderer.rules.code_block = (tokens, idx) => renderCode(tokens[idx].content, '');

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
  const probe: InlineProbe = { open: false };
  const env: RenderEnv = { references, aqProbe: probe };
  const children = md.parseInline(text, env)[0]?.children ?? [];
  let open = probe.open;
  for (let i = 0; i < children.length && !open; i++) {
    open = children[i].type === 'text' && /[[`<]/.test(children[i].content);
  }
  return { html: md.renderer.renderInline(children, md.options, env), open };
}

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

/**
 * Cuts a long paragraph's inline text into chunks (each a block, see `.aq-text-chunk`) by a rule
 * of the text alone, so that a streamed paragraph and a one-shot render cut the same chunks: a
 * chunk ends before the first word that starts at least TEXT_CHUNK after the chunk's start, if the
 * text before it leaves nothing open (then it renders alone as it does in the whole paragraph);
 * otherwise the length it needs doubles (the checks cost a bounded multiple of the text).
 */
export class TextCutter {
  /** Where the current chunk starts. */
  start: number;
  private span = TEXT_CHUNK;
  /** Where the search for the next word start goes on. */
  private scan: number;

  constructor(start: number) {
    this.start = start;
    this.scan = start + TEXT_CHUNK;
  }

  /**
   * The next chunk's end in `text`, knowing `text[i]` for every `i < known`: undefined while that
   * is not decided (or there is none).
   */
  next(text: string, known: number, references: References): TextCut | undefined {
    for (;;) {
      let at = Math.max(this.scan, this.start + 1);
      while (at < known && !(isSpace(text.charCodeAt(at - 1)) && !isSpace(text.charCodeAt(at)))) {
        at++;
      }
      this.scan = at;
      if (at >= known) {
        return undefined;
      }
      const piece = renderInlinePiece(text.slice(this.start, at), references);
      if (!piece.open) {
        this.start = at;
        this.span = TEXT_CHUNK;
        this.scan = at + TEXT_CHUNK;
        return { end: at, html: piece.html };
      }
      this.span = Math.max(2 * this.span, at + 1 - this.start);
      this.scan = this.start + this.span;
    }
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

const purify = DOMPurify(window);
const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    'a', 'blockquote', 'br', 'code', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'img', 'li', 'ol', 'p', 'pre', 's',
    'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul', 'div', 'span', 'button',
  ],
  ALLOWED_ATTR: ['href', 'src', 'alt', 'title', 'class', 'start', 'type', 'aria-label', 'aria-hidden', 'data-action', 'data-lang'],
  ADD_URI_SAFE_ATTR: ['start', 'type', 'data-action', 'data-lang'],
  ALLOWED_URI_REGEXP: SAFE_LINK,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A') {
    const href = node.getAttribute('href');
    if (href !== null && !SAFE_LINK.test(href)) {
      node.removeAttribute('href');
    }
  } else if (node.nodeName === 'IMG') {
    const src = node.getAttribute('src');
    if (src !== null && !SAFE_IMAGE.test(src)) {
      node.removeAttribute('src');
    }
  } else if (node.nodeName === 'BUTTON' && node.getAttribute('type') !== 'button') {
    node.setAttribute('type', 'button');
  }
});

/** Parses markdown into block tokens, collecting reference definitions into `env`. */
export function parseMarkdown(text: string, env: RenderEnv): MdToken[] {
  return md.parse(text, env);
}

/** Parses the block structure only (no inline parsing): for deciding where blocks end. Text must be normalized. */
export function parseBlocks(text: string): MdToken[] {
  const tokens: MdToken[] = [];
  md.block.parse(text, md, {}, tokens);
  return tokens;
}

/** Renders tokens (from {@link parseMarkdown}) to unsanitized HTML. */
export function renderTokens(tokens: readonly MdToken[], env: RenderEnv): string {
  return md.renderer.render(tokens as MdToken[], md.options, env);
}

/** Sanitizes HTML into a string: the allow-list of what markdown produces, safe links and images only. */
export function sanitizeHtml(html: string): string {
  return purify.sanitize(html, PURIFY_CONFIG);
}

/** Sanitizes HTML into a fragment ready to insert (no second parse). */
export function sanitizeToFragment(html: string): DocumentFragment {
  return purify.sanitize(html, { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true });
}

/** The parent element a piece of rendered markup belongs in, for parsing it in context. */
export type PieceParent = 'ul' | 'tbody' | 'blockquote' | 'p' | 'code';

/** Sanitizes markup that belongs inside a `parent` element; returns the nodes that go in it. */
export function sanitizeChildren(html: string, parent: PieceParent): DocumentFragment {
  const wrapped = parent === 'tbody' ? `<table><tbody>${html}</tbody></table>` : `<${parent}>${html}</${parent}>`;
  const element = sanitizeToFragment(wrapped).querySelector(parent);
  const fragment = document.createDocumentFragment();
  if (element !== null) {
    fragment.append(...element.childNodes);
  }
  return fragment;
}

/** The one-shot render: markdown to sanitized HTML. Incremental rendering must end up identical. */
export function renderMarkdownOnce(text: string): string {
  return sanitizeHtml(md.render(text, {}));
}
