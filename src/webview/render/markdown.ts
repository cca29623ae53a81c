/**
 * What an answer's Markdown becomes: markdown-it's tokens and markup (raw HTML off, code through
 * code.ts), and the one sanitizer, DOMPurify, which alone decides what of that markup reaches the
 * page. Its configuration, and the rule for which links and images an answer may hold, are here
 * and nowhere else.
 */
import DOMPurify from 'dompurify';
import type MarkdownIt from 'markdown-it';
import { createMarkdown } from '../../shared/answer/blocks';
import { codeLanguage, escapeHtml, highlightCode } from './code';
import { LONG_PARAGRAPH, runEnds } from './runCuts';

/** One markdown-it token. */
export type Token = MarkdownIt.Token;
/** A parse's environment: the link reference definitions known to it (`env.references`). */
export type RenderEnv = MarkdownIt.Env;
/** Link reference definitions by normalized label. */
export type References = NonNullable<RenderEnv['references']>;

/** Links an answer may open (through the host); any other link stays as inert text. */
export const SAFE_LINK = /^(?:https?:|mailto:)/i;
/** Images an answer may show: inline raster images only. A remote one becomes a link to it. */
const SAFE_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp);/i;
const REMOTE_IMAGE = /^https?:/i;

export const md = createMarkdown();

const CODE_ACTIONS =
  '<div class="aq-code-actions">' +
  actionButton('copy', 'Copy code', 'Copy', 'copy') +
  actionButton('insert', 'Insert code at cursor', 'Insert at Cursor', 'insert') +
  actionButton('open', 'Open code in new editor', 'Open in New Editor', 'go-to-file') +
  '</div>';

function actionButton(action: string, label: string, title: string, icon: string): string {
  return `<button type="button" class="aq-icon-button" data-action="${action}" aria-label="${label}" title="${title}"><span class="codicon codicon-${icon}" aria-hidden="true"></span></button>`;
}

/** Where a code block's toolbar goes (see sanitizeToNodes). */
const TOOLBAR_SLOT = '<div class="aq-code-actions"></div>';

/** A code block's markup around its code: `open` + the code's chunks + `close`. */
export function codeBlockShell(info: string): { open: string; close: string; language: string } {
  const language = codeLanguage(info);
  const name = escapeHtml(language.name);
  const open =
    `<div class="aq-code"${name === '' ? '' : ` data-lang="${name}"`}>` +
    TOOLBAR_SLOT +
    `<pre><code class="${name === '' ? 'hljs' : `hljs language-${name}`}">`;
  return { open, close: '</code></pre></div>\n', language: language.highlight };
}

/** A fence token's info string, as markdown-it's own fence rule reads it. */
export function fenceInfo(token: Token): string {
  return token.info ? md.utils.unescapeAll(token.info).trim() : '';
}

function renderCode(code: string, info: string): string {
  const shell = codeBlockShell(info);
  return shell.open + highlightCode(code, shell.language) + shell.close;
}

md.renderer.rules.fence = (tokens, idx) => renderCode(tokens[idx].content, fenceInfo(tokens[idx]));
md.renderer.rules.code_block = (tokens, idx) => renderCode(tokens[idx].content, '');

md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const src = String(token.attrGet('src') ?? '');
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  if (SAFE_IMAGE.test(src)) {
    token.attrSet('alt', alt);
    return self.renderToken(tokens, idx, options);
  }
  const text = escapeHtml(`image: ${alt} (${src})`);
  const inLink = tokens.slice(0, idx).reduce((depth, t) => depth + (t.type === 'link_open' ? 1 : t.type === 'link_close' ? -1 : 0), 0) > 0;
  return REMOTE_IMAGE.test(src) && !inLink ? `<a href="${escapeHtml(src)}" class="aq-image-link">${text}</a>` : text;
};

// Table alignment arrives as `style="text-align:…"`; styles never pass the sanitizer, so it becomes a class.
md.core.ruler.push('aq_align_classes', (state) => {
  for (const token of state.tokens) {
    const style = token.type === 'inline' ? null : token.attrGet('style');
    if (style === null) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    const align = /text-align:\s*(left|right|center)/.exec(String(style));
    if (align !== null) token.attrJoin('class', `aq-align-${align[1]}`);
  }
});

/** A table with this many body rows or more is laid out row by row (see `table.aq-table-long` in webview.css). */
export const LONG_TABLE_ROWS = 64;
/** A long table's body rows come in `tbody` sections of this many (see `table.aq-table-long` in webview.css). */
export const TABLE_SECTION_ROWS = 64;

// A long table lays out its rows as grids of equal columns, in sections of TABLE_SECTION_ROWS rows
// that the browser lays out only while they are on screen: rows streaming in then cost the browser
// the layout of the rows in view, not a table layout over all rows again.
md.core.ruler.push('aq_long_tables', (state) => {
  const tokens: Token[] = [];
  let table: Token | undefined;
  let rows = 0;
  for (const token of state.tokens) {
    if (token.type === 'table_open') {
      table = token;
      rows = 0;
    } else if (token.type === 'tr_open' && table !== undefined) {
      rows++;
      // The header row counts too: one more than the body's.
      if (rows === LONG_TABLE_ROWS + 1) table.attrJoin('class', 'aq-table-long');
      const body = rows - 1;
      if (body > TABLE_SECTION_ROWS && body % TABLE_SECTION_ROWS === 1) {
        const close = new state.Token('tbody_close', 'tbody', -1);
        const open = new state.Token('tbody_open', 'tbody', 1);
        close.block = open.block = true;
        tokens.push(close, open);
      }
    } else if (token.type === 'table_close') {
      table = undefined;
    }
    tokens.push(token);
  }
  state.tokens = tokens;
});

// A long paragraph (or heading) is rendered in runs, each a block of its own inside it (runCuts.ts):
// the browser then lays out a run's lines at a time, not the whole paragraph's at once.
md.core.ruler.before('inline', 'aq_long_paragraphs', (state) => {
  // Most renders (an open block every frame) hold none: they keep their tokens as they are.
  if (!state.tokens.some((token) => token.type === 'inline' && token.content.length >= LONG_PARAGRAPH)) return;
  const tokens: Token[] = [];
  state.tokens.forEach((token, i) => {
    const opener = state.tokens[i - 1]?.type;
    if (token.type !== 'inline' || token.content.length < LONG_PARAGRAPH || (opener !== 'paragraph_open' && opener !== 'heading_open')) {
      tokens.push(token);
      return;
    }
    let from = 0;
    for (const end of runEnds(token.content)) {
      const open = new state.Token('aq_run_open', 'span', 1);
      const run = new state.Token('inline', '', 0);
      const close = new state.Token('aq_run_close', 'span', -1);
      // Hidden: the paragraph's tag and its first run stay on one line, as in the streamed paragraph.
      open.hidden = close.hidden = true;
      run.content = token.content.slice(from, end);
      run.map = token.map;
      run.level = token.level;
      run.children = [];
      tokens.push(open, run, close);
      from = end;
    }
  });
  state.tokens = tokens;
});
md.renderer.rules.aq_run_open = () => '<span class="aq-run">';
md.renderer.rules.aq_run_close = () => '</span>';

const PURIFY_CONFIG = {
  ALLOWED_TAGS: ['a', 'blockquote', 'br', 'code', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'img', 'li', 'ol', 'p', 'pre', 's', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul', 'div', 'span', 'button'],
  ALLOWED_ATTR: ['href', 'src', 'alt', 'title', 'class', 'start', 'type', 'aria-label', 'aria-hidden', 'data-action', 'data-lang'],
  ADD_URI_SAFE_ATTR: ['start', 'type', 'data-action', 'data-lang'],
  ALLOWED_URI_REGEXP: SAFE_LINK,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

/** Links and images beyond the allowed ones lose their URL; a link without one is marked inert. */
function keepSafeUrls(node: Element): void {
  if (node.nodeName === 'A') {
    const href = node.getAttribute('href');
    if (href === null || !SAFE_LINK.test(href)) {
      node.removeAttribute('href');
      node.classList.add('aq-inert-link');
    }
  } else if (node.nodeName === 'IMG') {
    const src = node.getAttribute('src');
    if (src !== null && !SAFE_IMAGE.test(src)) node.removeAttribute('src');
  } else if (node.nodeName === 'BUTTON') {
    node.setAttribute('type', 'button');
  }
}

/** One sanitizer for markup returned as text, one for nodes: each configured once, not on every call. */
const purifyToString = configured(PURIFY_CONFIG);
const purifyToNodes = configured({ ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true });

function configured(config: Parameters<typeof DOMPurify.setConfig>[0]): typeof DOMPurify {
  const purify = DOMPurify(window);
  purify.setConfig(config);
  purify.addHook('afterSanitizeAttributes', keepSafeUrls);
  return purify;
}

/** Sanitizes markup into a string. */
export function sanitizeHtml(html: string): string {
  return purifyToString.sanitize(html);
}

/** A code block's toolbar, made once from its constant markup (sanitized like any other) and cloned into each block. */
let toolbar: Element | undefined;

/**
 * Sanitizes markup into nodes, ready to insert. A code block's toolbar is no answer's text: it is
 * filled in after sanitizing, a copy of one made once, with the block's language as its label's text.
 */
export function sanitizeToNodes(html: string): DocumentFragment {
  const fragment = purifyToNodes.sanitize(html, { RETURN_DOM_FRAGMENT: true });
  if (!html.includes(TOOLBAR_SLOT)) return fragment;
  toolbar ??= purifyToNodes.sanitize(CODE_ACTIONS, { RETURN_DOM_FRAGMENT: true }).firstElementChild ?? document.createElement('div');
  for (const slot of fragment.querySelectorAll('.aq-code > .aq-code-actions:empty')) {
    const filled = toolbar.cloneNode(true) as Element;
    const language = slot.parentElement?.getAttribute('data-lang');
    if (language !== null && language !== undefined) {
      const label = document.createElement('span');
      label.className = 'aq-code-lang';
      label.textContent = language;
      filled.prepend(label);
    }
    slot.replaceWith(filled);
  }
  return fragment;
}

/**
 * Sanitized nodes of markup that goes inside an element `path` names (e.g. `['table', 'tbody']`
 * for rows), parsed in that element so the HTML parser keeps them.
 */
export function sanitizeInside(html: string, path: readonly string[]): DocumentFragment {
  const open = path.map((tag) => `<${tag}>`).join('');
  const close = [...path].reverse().map((tag) => `</${tag}>`).join('');
  let parent: Element | null = sanitizeToNodes(open + html + close).firstElementChild;
  for (let i = 1; i < path.length && parent !== null; i++) parent = parent.querySelector(`:scope > ${path[i]}`);
  const fragment = document.createDocumentFragment();
  if (parent !== null) fragment.append(...parent.childNodes);
  return fragment;
}

/** The markup of Markdown `text`, with the definitions in `env` known besides the text's own. */
export function renderMarkup(text: string, env: RenderEnv = {}): string {
  return md.render(text, env);
}

/** The one-shot render: Markdown to sanitized HTML. A streamed answer ends up exactly so. */
export function renderMarkdownOnce(text: string): string {
  const element = document.createElement('div');
  element.append(sanitizeToNodes(renderMarkup(text)));
  return element.innerHTML;
}
