/**
 * Where rendered markup becomes the page's nodes: built by markup.ts from the allow-lists, or
 * sanitized by DOMPurify with the same lists; code blocks are highlighted and filled in after that.
 * Parsing and rendering to markup are parse.ts's (no DOM).
 */
import DOMPurify from 'dompurify';
import { highlightCode } from './code';
import { buildMarkup, FILL_ATTR, MARKUP_ATTRS, MARKUP_TAGS, SAFE_IMAGE, SAFE_LINK } from './markup';
import { CODE_ACTIONS, LANG_LABEL_OPEN, renderMarkup, renderWithFills, type MdToken, type RenderEnv } from './parse';

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [...MARKUP_TAGS],
  ALLOWED_ATTR: [...MARKUP_ATTRS],
  ADD_URI_SAFE_ATTR: ['start', 'type', 'data-action', 'data-lang', FILL_ATTR],
  ALLOWED_URI_REGEXP: SAFE_LINK,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

/**
 * One sanitizer for markup returned as text, one for markup returned as nodes, each with its
 * configuration set once: a configuration passed with every call is parsed again every time (a
 * good part of the sanitizing cost of a small piece, and a streamed answer sanitizes many).
 */
const purifyToString = configured(PURIFY_CONFIG);
const purifyToFragment = configured({ ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true });

function configured(config: Parameters<typeof DOMPurify.setConfig>[0]): typeof DOMPurify {
  const purify = DOMPurify(window);
  purify.setConfig(config);
  purify.addHook('afterSanitizeAttributes', keepSafeUrls);
  return purify;
}

function keepSafeUrls(node: Element): void {
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
}

/** Sanitizes HTML into a string: the allow-list of what markdown produces, safe links and images only. */
export function sanitizeHtml(html: string): string {
  return purifyToString.sanitize(html);
}

/**
 * Sanitized nodes of HTML, ready to insert. The renderer's own markup is built with DOM methods
 * (see markup.ts: the same allow-lists, the same nodes, in about half the time); anything else
 * is sanitized.
 */
export function sanitizeToFragment(html: string): DocumentFragment {
  return buildMarkup(html) ?? purifiedFragment(html);
}

/** DOMPurify's nodes of HTML (what {@link sanitizeToFragment} gives when the markup cannot be built). */
export function purifiedFragment(html: string): DocumentFragment {
  // The configuration is the one set (the argument only selects the typing of the result).
  return purifyToFragment.sanitize(html, { RETURN_DOM_FRAGMENT: true });
}

/** The parent element a piece of rendered markup belongs in, for parsing it in context. */
export type PieceParent = 'ul' | 'table' | 'tbody' | 'blockquote' | 'p' | 'code';

/** Sanitizes markup that belongs inside a `parent` element; returns the nodes that go in it. */
export function sanitizeChildren(html: string, parent: PieceParent): DocumentFragment {
  const built = buildMarkup(html, parent === 'tbody' ? ['table', 'tbody'] : [parent]);
  if (built !== undefined) {
    return built;
  }
  const wrapped = parent === 'tbody' ? `<table><tbody>${html}</tbody></table>` : `<${parent}>${html}</${parent}>`;
  const element = purifiedFragment(wrapped).querySelector(parent);
  const fragment = document.createDocumentFragment();
  if (element !== null) {
    fragment.append(...element.childNodes);
  }
  return fragment;
}

/** The nodes of highlighted code's markup (see code.ts), inside a `code` element. */
export function highlightedNodes(html: string): DocumentFragment {
  return sanitizeChildren(html, 'code');
}

let actionTemplates: { readonly actions: Element; readonly label: Element } | undefined;

/** A code block's actions (and language label), as sanitizing their markup makes them: cloned, not parsed again. */
function codeActions(name: string): Element {
  actionTemplates ??= {
    actions: sanitizeToFragment(CODE_ACTIONS).firstElementChild ?? document.createElement('div'),
    label: sanitizeToFragment(`${LANG_LABEL_OPEN}</span>`).firstElementChild ?? document.createElement('span'),
  };
  const actions = actionTemplates.actions.cloneNode(true) as Element;
  if (name !== '') {
    const label = actionTemplates.label.cloneNode(true) as Element;
    label.textContent = name;
    actions.prepend(label);
  }
  return actions;
}

/** Rendered blocks, ready to insert: `key` changes whenever the nodes would. */
export interface RenderedBlocks {
  readonly key: string;
  build(): DocumentFragment;
}

/**
 * Renders tokens into sanitized nodes, as `sanitizeToFragment(renderTokens(…))` does, but code
 * blocks are left empty for the sanitizer and filled with {@link highlightedNodes} after it.
 */
export function renderFragment(tokens: readonly MdToken[], env: RenderEnv): RenderedBlocks {
  const { html, fills } = renderWithFills(tokens, env);
  return {
    key: fills.length === 0 ? html : html + fills.map((fill) => `\0${fill.language}\0${fill.code}`).join(''),
    build: () => {
      const fragment = sanitizeToFragment(html);
      for (const code of fragment.querySelectorAll(`code[${FILL_ATTR}]`)) {
        const fill = fills[Number(code.getAttribute(FILL_ATTR))];
        code.removeAttribute(FILL_ATTR);
        if (fill === undefined) {
          continue;
        }
        code.append(highlightedNodes(highlightCode(fill.code, fill.language)));
        code.closest('.aq-code')?.querySelector('.aq-code-actions')?.replaceWith(codeActions(fill.name));
      }
      return fragment;
    },
  };
}

/** The one-shot render: markdown to sanitized HTML. Incremental rendering must end up identical. */
export function renderMarkdownOnce(text: string): string {
  return sanitizeHtml(renderMarkup(text));
}
