import {
  parseMarkdown,
  renderTokens,
  sanitizeToFragment,
  type MdToken,
  type ReferenceDefinition,
  type RenderEnv,
} from './markdown';

/** How a renderer gets its updates onto the screen. */
export interface RendererOptions {
  /** Runs a render later; defaults to `requestAnimationFrame`. Tests pass a synchronous one. */
  readonly scheduleFrame?: (callback: () => void) => void;
  /** Called after every update of the DOM (e.g. to keep a transcript scrolled to the bottom). */
  readonly onRender?: () => void;
}

type References = Record<string, ReferenceDefinition>;

/** A run of finished blocks, rendered once into its own (contiguous) nodes. */
interface FrozenChunk {
  first: ChildNode | null;
  count: number;
  /** Kept only when the text has a `]`, i.e. could use a reference definition that arrives later. */
  readonly source: string | undefined;
}

/** The text parsed in one frame, unless a longer open block needs more (then it doubles). */
const BASE_WINDOW = 64 * 1024;
const LINE_BREAK = /\r\n?|\n/g;
const BLANK = /^[ \t]*$/;

function defaultSchedule(callback: () => void): void {
  requestAnimationFrame(() => callback());
}

/** Start offsets of every line of `text` (line breaks as markdown-it normalizes them). */
function lineStarts(text: string): number[] {
  const starts = [0];
  LINE_BREAK.lastIndex = 0;
  for (let m = LINE_BREAK.exec(text); m !== null; m = LINE_BREAK.exec(text)) {
    starts.push(m.index + m[0].length);
  }
  return starts;
}

/**
 * Finds the last place in a parsed tail before which nothing can change any more, whatever text
 * follows: the start of a top-level block that follows a blank line and whose first line is
 * complete. Markdown's block structure is decided line by line, a blank line closes paragraphs
 * (no lazy continuation, no setext underline, no table header, no multi-line reference title),
 * and a block that started on a complete line after it means every container before it has
 * ended. Returns the token index and the character offset, or undefined.
 */
function findBoundary(tokens: readonly MdToken[], text: string, starts: readonly number[]): { index: number; offset: number } | undefined {
  for (let i = tokens.length - 1; i > 0; i--) {
    const token = tokens[i];
    if (token.level !== 0 || token.nesting === -1 || token.map === null) {
      continue;
    }
    const line = token.map[0];
    if (line < 1 || line + 1 >= starts.length) {
      continue;
    }
    // A trailing lone CR may still become CRLF: the line is not known to be complete.
    const lineEnd = starts[line + 1];
    if (lineEnd === text.length && text.charCodeAt(lineEnd - 1) === 13) {
      continue;
    }
    const previous = text.slice(starts[line - 1], starts[line]).replace(LINE_BREAK, '');
    if (BLANK.test(previous)) {
      return { index: i, offset: starts[line] };
    }
  }
  return undefined;
}

/**
 * A text reduced so that a reference label used in it is a substring: case folded like
 * markdown-it's label normalization, without whitespace and blockquote markers (which container
 * blocks strip from the inline text).
 */
function squash(text: string): string {
  return text.toLowerCase().toUpperCase().replace(/[\s>]+/g, '');
}

function insertFragment(container: Node, fragment: DocumentFragment, before: Node | null): { first: ChildNode | null; count: number } {
  const first = fragment.firstChild;
  const count = fragment.childNodes.length;
  container.insertBefore(fragment, before);
  return { first, count };
}

/**
 * Renders a streamed markdown answer. Finished blocks are rendered once into their own nodes and
 * never parsed again; only the open tail is re-rendered, at most once per frame. After `finish()`
 * the container holds exactly what `renderMarkdownOnce(fullText)` produces.
 */
export class IncrementalRenderer {
  /** The text after the frozen chunks (the frozen text itself is not kept). */
  private tail = '';
  private received = 0;
  /** Definitions made by the frozen text. */
  private frozenRefs: References = {};
  /** The definitions the DOM reflects, and their JSON. */
  private refs: References = {};
  private refsSignature = '{}';
  private chunks: FrozenChunk[] = [];
  private tailNodes: ChildNode[] = [];
  private tailHtml = '';
  private renderedLength = -1;
  private window = BASE_WINDOW;
  private scheduled = false;
  private generation = 0;
  private readonly schedule: (callback: () => void) => void;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: RendererOptions = {},
  ) {
    this.schedule = options.scheduleFrame ?? defaultSchedule;
  }

  /** How many UTF-16 code units have been received. */
  get length(): number {
    return this.received;
  }

  /** Adds streamed text; the DOM catches up on the next frame. */
  append(text: string): void {
    if (text === '') {
      return;
    }
    this.tail += text;
    this.received += text.length;
    this.requestFrame();
  }

  /** The stream ended: renders everything now. */
  finish(): void {
    this.update(true);
  }

  /** Renders what is pending now instead of on the next frame. */
  flush(): void {
    this.update(true);
  }

  /** Starts over, showing `text` (rendered at once); the stream may continue with `append`. */
  reset(text = ''): void {
    this.generation++;
    this.scheduled = false;
    this.tail = text;
    this.received = text.length;
    this.frozenRefs = {};
    this.refs = {};
    this.refsSignature = '{}';
    this.chunks = [];
    this.tailNodes = [];
    this.tailHtml = '';
    this.renderedLength = -1;
    this.window = BASE_WINDOW;
    this.container.replaceChildren();
    this.update(true);
  }

  private requestFrame(): void {
    if (this.scheduled) {
      return;
    }
    this.scheduled = true;
    const generation = this.generation;
    this.schedule(() => {
      if (generation === this.generation && this.scheduled) {
        this.scheduled = false;
        this.update(false);
      }
    });
  }

  /** One render pass. `all` processes the whole text; otherwise a bounded window of it. */
  private update(all: boolean): void {
    this.scheduled = false;
    if (this.renderedLength === this.received) {
      return;
    }
    let changed = false;
    for (;;) {
      const end = all ? this.tail.length : Math.min(this.tail.length, this.window);
      const complete = end === this.tail.length;
      changed = this.renderWindow(end) || changed;
      if (complete) {
        this.renderedLength = this.received;
        break;
      }
      if (!all) {
        this.requestFrame();
        break;
      }
    }
    if (changed) {
      this.options.onRender?.();
    }
  }

  /** Parses the first `end` code units of the tail, freezes what is finished, re-renders the rest. */
  private renderWindow(end: number): boolean {
    const complete = end === this.tail.length;
    const tail = complete ? this.tail : this.tail.slice(0, end);
    const env: RenderEnv = { references: { ...this.frozenRefs } };
    const tokens = parseMarkdown(tail, env);
    const boundary = findBoundary(tokens, tail, lineStarts(tail));
    const references = env.references ?? {};
    const signature = JSON.stringify(references);
    let changed = false;
    if (signature !== this.refsSignature) {
      changed = this.refreshReferences(this.refs, references);
      this.refs = references;
      this.refsSignature = signature;
    }
    let tailTokens = tokens;
    if (boundary !== undefined) {
      this.window = BASE_WINDOW;
      this.removeTail();
      const chunkText = tail.slice(0, boundary.offset);
      const inserted = insertFragment(this.container, sanitizeToFragment(renderTokens(tokens.slice(0, boundary.index), env)), null);
      this.chunks.push({ ...inserted, source: chunkText.includes(']') ? chunkText : undefined });
      if (chunkText.includes(']:')) {
        // The chunk may define references: learn them the same way a full parse would.
        const chunkEnv: RenderEnv = { references: { ...this.frozenRefs } };
        parseMarkdown(chunkText, chunkEnv);
        this.frozenRefs = chunkEnv.references ?? {};
      }
      this.tail = this.tail.slice(boundary.offset);
      tailTokens = tokens.slice(boundary.index);
      changed = true;
    } else if (!complete) {
      // An open block longer than the window: look further next time.
      this.window *= 2;
    }
    const html = renderTokens(tailTokens, env);
    if (html !== this.tailHtml || boundary !== undefined) {
      this.removeTail();
      const fragment = sanitizeToFragment(html);
      this.tailNodes = Array.from(fragment.childNodes);
      this.container.append(fragment);
      this.tailHtml = html;
      changed = true;
    }
    return changed;
  }

  private removeTail(): void {
    for (const node of this.tailNodes) {
      node.remove();
    }
    this.tailNodes = [];
    this.tailHtml = '';
  }

  /**
   * Definitions appeared, changed or went away (one can still be arriving): frozen chunks whose
   * text mentions an affected label are rendered again with the new definitions.
   */
  private refreshReferences(before: References, after: References): boolean {
    const labels = [...new Set([...Object.keys(before), ...Object.keys(after)])]
      .filter((label) => before[label]?.href !== after[label]?.href || before[label]?.title !== after[label]?.title)
      .map(squash);
    if (labels.length === 0) {
      return false;
    }
    let changed = false;
    for (let i = 0; i < this.chunks.length; i++) {
      const chunk = this.chunks[i];
      if (chunk.source === undefined) {
        continue;
      }
      const text = squash(chunk.source);
      if (!labels.some((label) => text.includes(label))) {
        continue;
      }
      const env: RenderEnv = { references: { ...after } };
      const html = renderTokens(parseMarkdown(chunk.source, env), env);
      const next = this.nodeAfterChunk(i);
      for (let node = chunk.first, n = 0; node !== null && n < chunk.count; n++) {
        const following = node.nextSibling;
        node.remove();
        node = following;
      }
      Object.assign(chunk, insertFragment(this.container, sanitizeToFragment(html), next));
      changed = true;
    }
    return changed;
  }

  private nodeAfterChunk(index: number): Node | null {
    for (let i = index + 1; i < this.chunks.length; i++) {
      if (this.chunks[i].first !== null) {
        return this.chunks[i].first;
      }
    }
    return this.tailNodes[0] ?? null;
  }
}
