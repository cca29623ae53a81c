// What the answer's markup may hold, and a builder for the markup the renderer itself writes.
//
// markdown.ts renders tokens to markup (markdown-it with raw HTML off, highlight.js for code), so
// that markup has a small grammar: allowed tags with quoted, escaped attributes, five entities,
// and text. `buildMarkup` makes the nodes of markup in that grammar with the DOM's own methods
// (createElement, setAttribute, createTextNode), never the HTML parser, and gives up on anything
// else. What it makes is therefore within the sanitizer's allow-lists below; where it gives up,
// the caller sanitizes instead. It also gives up wherever the HTML parser would build a different
// tree or DOMPurify would change a value, so the nodes equal what sanitizing the markup makes.

/** Link schemes an answer may open (through the host). Everything else is inert. */
export const SAFE_LINK = /^(?:https?:|mailto:)/i;
/** Only inline raster images are shown; anything remote becomes a link (see markdown.ts). */
export const SAFE_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp);/i;

/** Marks where a code block's highlighted nodes go; it never stays in the DOM (see markdown.ts). */
export const FILL_ATTR = 'data-aq-fill';

/** The elements an answer's DOM may hold. */
export const MARKUP_TAGS = [
  'a', 'blockquote', 'br', 'code', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'img', 'li', 'ol', 'p', 'pre', 's',
  'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul', 'div', 'span', 'button',
] as const;
/** The attributes an answer's DOM may hold (href and src only with a safe URL). */
export const MARKUP_ATTRS = ['href', 'src', 'alt', 'title', 'class', 'start', 'type', 'aria-label', 'aria-hidden', 'data-action', 'data-lang', FILL_ATTR] as const;

const TAGS: ReadonlySet<string> = new Set(MARKUP_TAGS);
const ATTRS: ReadonlySet<string> = new Set(MARKUP_ATTRS);
const VOID = new Set(['br', 'hr', 'img']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Start tags before which the HTML parser closes an open `p` (of the allowed ones). */
const CLOSES_P = new Set(['blockquote', 'div', 'ol', 'p', 'ul', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'li', 'table', 'hr']);
/** Inside these the parser takes only table structure; text there may only be whitespace. */
const TABLE_CHILDREN: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['table', new Set(['thead', 'tbody'])],
  ['thead', new Set(['tr'])],
  ['tbody', new Set(['tr'])],
  ['tr', new Set(['th', 'td'])],
]);
/** Where the parser places these without changing the tree. */
const PARENTS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['thead', new Set(['table'])],
  ['tbody', new Set(['table'])],
  ['tr', new Set(['thead', 'tbody'])],
  ['th', new Set(['tr'])],
  ['td', new Set(['tr'])],
]);

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'" };
// Tags as markdown-it and highlight.js write them (the parser's whitespace in tags is ASCII only).
// The first alternative is highlight.js's span, most of highlighted code's tags: a class of word
// characters and single spaces, which needs none of an attribute's checks.
const TOKEN = /<span class="([\w-]+(?: [\w-]+)*)">|<([a-z][a-z0-9]*)((?:[\t\n\f ]+[a-z][a-z-]*="[^"<>]*")*)[\t\n\f ]*(\/?)>|<\/([a-z][a-z0-9]*)>|&(amp|lt|gt|quot|#x27);|[^<&]+/y;
const ATTRIBUTE = /[\t\n\f ]+([a-z][a-z-]*)="([^"]*)"/g;
const ATTR_ENTITY = /&(amp|lt|gt|quot|#x27);/g;
/** What the parser would change in text (NUL dropped, CR turned into LF): not built. */
const PARSER_CHANGES = /[\0\r]/;
/** Any `&` that is not one of the five entities above. */
const OTHER_ENTITY = /&(?!(?:amp|lt|gt|quot|#x27);)/;
/** Whitespace DOMPurify removes before it checks a URL (control characters included). */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const URL_WHITESPACE = /[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/;
/** Values DOMPurify removes whatever the attribute (markup that could break out of it). */
const VALUE_BREAKOUT = /(?:--!?|\])>|<\/(?:style|script|title|xmp|textarea|noscript|iframe|noembed|noframes)|\/>/i;
const TABLE_WHITESPACE = /^[\t\n\f ]*$/;

/**
 * Whether a list item may open here without the parser closing anything: its nearest ancestor
 * that is not a group's `div` is a list (an `li` below a `div` closes an open item above it).
 */
function inList(names: readonly string[]): boolean {
  for (let i = names.length - 1; i >= 0; i--) {
    if (names[i] !== 'div') {
      return names[i] === 'ul' || names[i] === 'ol';
    }
  }
  return false;
}

/** The value of an attribute as the element gets it, or undefined when the builder gives up on it. */
function attributeValue(tag: string, name: string, raw: string): string | undefined {
  if (OTHER_ENTITY.test(raw)) {
    return undefined;
  }
  const value = raw.includes('&') ? raw.replace(ATTR_ENTITY, (_, entity: string) => ENTITIES[entity]) : raw;
  if (!ATTRS.has(name) || value !== value.trim() || VALUE_BREAKOUT.test(value)) {
    return undefined;
  }
  switch (name) {
    case 'href':
      return tag === 'a' && SAFE_LINK.test(value) && !URL_WHITESPACE.test(value) ? value : undefined;
    case 'src':
      return tag === 'img' && value.startsWith('data:') && SAFE_IMAGE.test(value) && !URL_WHITESPACE.test(value) ? value : undefined;
    case 'type':
      return tag !== 'button' || value === 'button' ? value : undefined;
    default:
      return value;
  }
}

/**
 * Builds `html` (the renderer's own markup) into nodes with DOM methods, as children of elements
 * `context` (the open elements it goes in, outermost first; none: the answer itself). Returns
 * undefined for markup outside the renderer's grammar, or where parsing and sanitizing it would
 * give other nodes: the caller sanitizes it instead.
 */
export function buildMarkup(html: string, context: readonly string[] = []): DocumentFragment | undefined {
  // Whitespace before the first element of a document goes elsewhere in the parser's tree.
  if (PARSER_CHANGES.test(html) || (context.length === 0 && /^[\t\n\f ]/.test(html))) {
    return undefined;
  }
  const fragment = document.createDocumentFragment();
  const names: string[] = [...context];
  const nodes: Node[] = context.map(() => fragment);
  const current = (): Node => nodes[nodes.length - 1] ?? fragment;
  let text = '';
  /** Right after a `pre` start tag: the parser drops a line break there. */
  let afterPre = false;
  const flush = (): boolean => {
    if (text === '') {
      return true;
    }
    const parent = names[names.length - 1];
    if ((afterPre && text.startsWith('\n')) || (parent !== undefined && TABLE_CHILDREN.has(parent) && !TABLE_WHITESPACE.test(text))) {
      return false;
    }
    current().appendChild(document.createTextNode(text));
    text = '';
    return true;
  };
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const match = TOKEN.exec(html);
    if (match === null) {
      return undefined;
    }
    const [token, spanClass, tag, attributes, selfClosing, endTag, entity] = match;
    if (entity !== undefined) {
      text += ENTITIES[entity];
      continue;
    }
    if (spanClass === undefined && tag === undefined && endTag === undefined) {
      text += token;
      continue;
    }
    if (!flush()) {
      return undefined;
    }
    afterPre = false;
    if (spanClass !== undefined) {
      const parent = names[names.length - 1];
      if (parent !== undefined && TABLE_CHILDREN.has(parent)) {
        return undefined;
      }
      const span = document.createElement('span');
      span.className = spanClass;
      current().appendChild(span);
      names.push('span');
      nodes.push(span);
      continue;
    }
    if (endTag !== undefined) {
      if (names.length <= context.length || names[names.length - 1] !== endTag || VOID.has(endTag)) {
        return undefined;
      }
      names.pop();
      nodes.pop();
      continue;
    }
    if (!TAGS.has(tag)) {
      return undefined;
    }
    const parent = names[names.length - 1];
    const tableChildren = parent === undefined ? undefined : TABLE_CHILDREN.get(parent);
    const allowedParents = PARENTS.get(tag);
    if (
      (tag === 'li' && !inList(names)) ||
      (selfClosing !== '' && !VOID.has(tag)) ||
      (tableChildren !== undefined && !tableChildren.has(tag)) ||
      (allowedParents !== undefined && (parent === undefined || !allowedParents.has(parent))) ||
      (CLOSES_P.has(tag) && names.includes('p')) ||
      ((tag === 'a' || tag === 'button') && names.includes(tag)) ||
      (HEADINGS.has(tag) && parent !== undefined && HEADINGS.has(parent))
    ) {
      return undefined;
    }
    const element = document.createElement(tag);
    ATTRIBUTE.lastIndex = 0;
    for (let attribute = ATTRIBUTE.exec(attributes); attribute !== null; attribute = ATTRIBUTE.exec(attributes)) {
      const [, name, raw] = attribute;
      const value = element.hasAttribute(name) ? undefined : attributeValue(tag, name, raw);
      if (value === undefined) {
        return undefined;
      }
      element.setAttribute(name, value);
    }
    if (tag === 'button' && !element.hasAttribute('type')) {
      return undefined;
    }
    current().appendChild(element);
    if (!VOID.has(tag)) {
      names.push(tag);
      nodes.push(element);
      afterPre = tag === 'pre';
    }
  }
  return flush() && names.length === context.length ? fragment : undefined;
}
